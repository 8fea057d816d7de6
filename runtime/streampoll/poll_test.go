package streampoll_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/streampoll"
)

// streamWith returns an engine whose table "things" holds n items k00.. written
// in order, and the table's stream ARN.
func streamWith(t *testing.T, n int) (*ddblocal.Engine, string) {
	t.Helper()
	eng := ddblocal.New()
	t.Cleanup(func() { eng.Close() })
	db := eng.Client()
	ctx := context.Background()
	out, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String("things"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		StreamSpecification:  &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewImage},
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("things"), Item: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: fmt.Sprintf("k%02d", i)},
			"m":  &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"n": &types.AttributeValueMemberN{Value: fmt.Sprint(i)}}},
		}})
		if err != nil {
			t.Fatal(err)
		}
	}
	return eng, aws.ToString(out.TableDescription.LatestStreamArn)
}

func keysOf(recs []events.DynamoDBEventRecord) string {
	var out []string
	for _, r := range recs {
		out = append(out, r.Change.Keys["pk"].String())
	}
	return fmt.Sprint(out)
}

func TestPoller(t *testing.T) {
	for _, c := range []struct {
		name string
		// answer decides the handler's response to delivery n (1, 2, ...).
		answer     func(n int, b events.DynamoDBEvent) (events.DynamoDBEventResponse, error)
		deliveries []string // keys per delivery
		givenUp    []string // keys per OnFailure call
	}{
		{name: "batches in order", deliveries: []string{"[k00 k01 k02]", "[k03 k04]"}},
		{name: "a reported record is retried with what follows, not what precedes",
			answer: func(n int, b events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
				if n == 1 {
					return failAt(b.Records[1]), nil
				}
				return events.DynamoDBEventResponse{}, nil
			},
			deliveries: []string{"[k00 k01 k02]", "[k01 k02 k03]", "[k04]"}},
		{name: "a record that keeps failing goes to OnFailure after the retries",
			answer: func(n int, b events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
				for _, r := range b.Records {
					if r.Change.Keys["pk"].String() == "k02" {
						return failAt(r), nil
					}
				}
				return events.DynamoDBEventResponse{}, nil
			},
			deliveries: []string{"[k00 k01 k02]", "[k02 k03 k04]", "[k02 k03 k04]", "[k03 k04]"},
			givenUp:    []string{"[k02]"}},
		{name: "a handler error retries the batch, then gives it up",
			answer: func(n int, b events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
				if b.Records[0].Change.Keys["pk"].String() == "k00" {
					return events.DynamoDBEventResponse{}, errors.New("boom")
				}
				return events.DynamoDBEventResponse{}, nil
			},
			deliveries: []string{"[k00 k01 k02]", "[k00 k01 k02]", "[k00 k01 k02]", "[k03 k04]"},
			givenUp:    []string{"[k00 k01 k02]"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			eng, arn := streamWith(t, 5)
			var deliveries, givenUp []string
			h := func(_ context.Context, b events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
				deliveries = append(deliveries, keysOf(b.Records))
				if c.answer == nil {
					return events.DynamoDBEventResponse{}, nil
				}
				return c.answer(len(deliveries), b)
			}
			p := streampoll.New(eng.StreamsClient(), arn, h, func(o *streampoll.Options) {
				o.BatchSize = 3
				o.OnFailure = func(recs []events.DynamoDBEventRecord, _ error) { givenUp = append(givenUp, keysOf(recs)) }
			})
			if _, err := p.Poll(context.Background()); err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(deliveries) != fmt.Sprint(c.deliveries) {
				t.Errorf("deliveries\n got %v\nwant %v", deliveries, c.deliveries)
			}
			if fmt.Sprint(givenUp) != fmt.Sprint(c.givenUp) {
				t.Errorf("given up %v, want %v", givenUp, c.givenUp)
			}
		})
	}
}

func failAt(r events.DynamoDBEventRecord) events.DynamoDBEventResponse {
	return events.DynamoDBEventResponse{BatchItemFailures: []events.DynamoDBBatchItemFailure{{ItemIdentifier: r.Change.SequenceNumber}}}
}

func TestPollerDeliversLambdaRecords(t *testing.T) {
	eng, arn := streamWith(t, 1)
	var got events.DynamoDBEventRecord
	p := streampoll.New(eng.StreamsClient(), arn, func(_ context.Context, b events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
		got = b.Records[0]
		return events.DynamoDBEventResponse{}, nil
	})
	if _, err := p.Poll(context.Background()); err != nil {
		t.Fatal(err)
	}
	n := got.Change.NewImage["m"].Map()["n"].Number()
	if got.EventName != "INSERT" || got.EventSource != "aws:dynamodb" || got.EventSourceArn != arn || n != "0" || got.Change.SequenceNumber == "" {
		t.Errorf("record %+v (m.n %q), want an INSERT from %s with its image", got, n, arn)
	}
	// Nothing new: nothing delivered.
	if done, err := p.Poll(context.Background()); err != nil || done != 0 {
		t.Errorf("second Poll handled %d records (%v), want 0", done, err)
	}
}

// TestPollerResumesFromItsCheckpointAfterACrash crashes a consumer in the
// middle of a batch (its context ends while the handler runs, after the
// handler published part of the batch), then starts a new Poller with the
// same Checkpoints, as an event source mapping's new poller resumes from
// the shard's checkpoint: the batch is delivered again from its first
// unfinished record, and nothing finished is delivered again.
func TestPollerResumesFromItsCheckpointAfterACrash(t *testing.T) {
	for _, c := range []struct {
		name string
		// crashAt is the delivery (1, 2, ...) of the first poller during
		// which its process dies; failAt, if set, is a delivery answered
		// with a failure of its second record.
		crashAt, failAt int
		first, second   []string // keys per delivery of each poller
	}{
		{name: "a crash after a batch succeeded resumes after that batch", crashAt: 2,
			first: []string{"[k00 k01]", "[k02 k03]"}, second: []string{"[k02 k03]", "[k04]"}},
		{name: "a crash after a partial failure resumes at the failed record", failAt: 1, crashAt: 2,
			first: []string{"[k00 k01]", "[k01 k02]"}, second: []string{"[k01 k02]", "[k03 k04]"}},
		{name: "a crash in the first batch starts again at TRIM_HORIZON", crashAt: 1,
			first: []string{"[k00 k01]"}, second: []string{"[k00 k01]", "[k02 k03]", "[k04]"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			eng, arn := streamWith(t, 5)
			cps := &streampoll.MemoryCheckpoints{}
			ctx, crash := context.WithCancel(context.Background())
			var first, second []string
			h := func(_ context.Context, b events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
				first = append(first, keysOf(b.Records))
				switch len(first) {
				case c.crashAt:
					crash()
					return events.DynamoDBEventResponse{}, errors.New("the process died")
				case c.failAt:
					return failAt(b.Records[1]), nil
				}
				return events.DynamoDBEventResponse{}, nil
			}
			opts := func(o *streampoll.Options) { o.BatchSize, o.Checkpoints = 2, cps }
			if _, err := streampoll.New(eng.StreamsClient(), arn, h, opts).Poll(ctx); err != nil {
				t.Fatal(err)
			}
			again := streampoll.New(eng.StreamsClient(), arn, func(_ context.Context, b events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
				second = append(second, keysOf(b.Records))
				return events.DynamoDBEventResponse{}, nil
			}, opts)
			if _, err := again.Poll(context.Background()); err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(first) != fmt.Sprint(c.first) || fmt.Sprint(second) != fmt.Sprint(c.second) {
				t.Errorf("deliveries\n got %v then %v\nwant %v then %v", first, second, c.first, c.second)
			}
		})
	}
}

// TestFileCheckpoints keeps a poller's position in a file, so a poller of
// a restarted process resumes where the last one finished.
func TestFileCheckpoints(t *testing.T) {
	eng, arn := streamWith(t, 3)
	path := filepath.Join(t.TempDir(), "checkpoints.json")
	var got []string
	h := func(_ context.Context, b events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
		got = append(got, keysOf(b.Records))
		return events.DynamoDBEventResponse{}, nil
	}
	opts := func(o *streampoll.Options) { o.BatchSize, o.Checkpoints = 2, streampoll.NewFileCheckpoints(path) }
	if _, err := streampoll.New(eng.StreamsClient(), arn, h, opts).Poll(context.Background()); err != nil {
		t.Fatal(err)
	}
	db := eng.Client()
	if _, err := db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("things"),
		Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "k03"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := streampoll.New(eng.StreamsClient(), arn, h, opts).Poll(context.Background()); err != nil {
		t.Fatal(err)
	}
	if want := "[[k00 k01] [k02] [k03]]"; fmt.Sprint(got) != want {
		t.Errorf("deliveries %v, want %v", got, want)
	}
	raw, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(raw), arn) {
		t.Errorf("checkpoint file %s (%v), want the stream's shard", raw, err)
	}
	bad := filepath.Join(t.TempDir(), "torn.json")
	if err := os.WriteFile(bad, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := streampoll.NewFileCheckpoints(bad).Load(context.Background(), arn, "s"); err == nil {
		t.Error("Load of an unreadable checkpoint file succeeded")
	}
}
