package cli_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	ebtypes "github.com/aws/aws-sdk-go-v2/service/eventbridge/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/oncetable/oncetable/runtime/opsenv"
	"github.com/oncetable/oncetable/runtime/outbox"
	"github.com/oncetable/oncetable/runtime/republish"
	"github.com/oncetable/oncetable/runtime/republish/cli"
	"github.com/oncetable/oncetable/runtime/retry"
)

// fakeQueue is a failure queue: Receive hands out its messages, Delete
// removes them.
type fakeQueue struct {
	mu       sync.Mutex
	messages map[string]string // id -> body
}

func (q *fakeQueue) ReceiveMessage(_ context.Context, in *sqs.ReceiveMessageInput, _ ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := &sqs.ReceiveMessageOutput{}
	for id, body := range q.messages {
		if len(out.Messages) == int(in.MaxNumberOfMessages) {
			break
		}
		out.Messages = append(out.Messages, sqstypes.Message{MessageId: aws.String(id), ReceiptHandle: aws.String("rh-" + id), Body: aws.String(body)})
	}
	return out, nil
}

func (q *fakeQueue) DeleteMessageBatch(_ context.Context, in *sqs.DeleteMessageBatchInput, _ ...func(*sqs.Options)) (*sqs.DeleteMessageBatchOutput, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, e := range in.Entries {
		delete(q.messages, strings.TrimPrefix(aws.ToString(e.ReceiptHandle), "rh-"))
	}
	return &sqs.DeleteMessageBatchOutput{}, nil
}

// fakeBus keeps the details it is given.
type fakeBus struct {
	mu     sync.Mutex
	events []outbox.Event
}

func (b *fakeBus) PutEvents(_ context.Context, in *eventbridge.PutEventsInput, _ ...func(*eventbridge.Options)) (*eventbridge.PutEventsOutput, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := &eventbridge.PutEventsOutput{}
	for _, e := range in.Entries {
		var ev outbox.Event
		if err := json.Unmarshal([]byte(aws.ToString(e.Detail)), &ev); err != nil {
			return nil, err
		}
		b.events = append(b.events, ev)
		out.Entries = append(out.Entries, ebtypes.PutEventsResultEntry{EventId: aws.String(ev.ID)})
	}
	return out, nil
}

// failureBody is Lambda's on-failure record of a stream batch whose
// records arrived between first and last.
func failureBody(first, last time.Time) string {
	return fmt.Sprintf(`{"requestContext":{"condition":"RetryAttemptsExhausted"},"version":"1.0","DDBStreamBatchInfo":{"shardId":"shardId-1",`+
		`"startSequenceNumber":"100","endSequenceNumber":"200","approximateArrivalOfFirstRecord":%q,"approximateArrivalOfLastRecord":%q,"batchSize":3,`+
		`"streamArn":"arn:aws:dynamodb:us-east-1:111122223333:table/oncetable/stream/2026"}}`, first.Format(time.RFC3339Nano), last.Format(time.RFC3339Nano))
}

// TestRepublishDeadLetters: -dlq republishes the events of the failed
// batches' windows, and only them; a dry run keeps the messages, -apply
// deletes them once published.
func TestRepublishDeadLetters(t *testing.T) {
	r := startRunner(t)
	streamed := r.settled(25)
	var credit outbox.Event // alice's first credit, alone before mid
	for _, ev := range streamed {
		if ev.CommittedAt.Before(r.mid) {
			credit = ev
		}
	}
	q := &fakeQueue{messages: map[string]string{"m1": failureBody(credit.CommittedAt, credit.CommittedAt)}}
	bus := &fakeBus{}
	db := retry.NewClient(aws.Config{Region: "us-east-1", Credentials: opsenv.LocalCredentials},
		func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(r.DynamoDBURL) })
	cmd := cli.Command{DB: db, Bus: bus, Queue: q}
	args := []string{"-dlq", "-queue-url", "https://sqs.local/failures", "-margin", "1ms"}

	dry := run(t, cmd, args...)
	if len(bus.events) != 0 || len(q.messages) != 1 || !strings.Contains(dry, "dry run: would publish 1 events") || !strings.Contains(dry, credit.ID) {
		t.Fatalf("dry run: published %d, queue holds %d; printed:\n%s\nwant nothing published, the message kept, %s listed", len(bus.events), len(q.messages), dry, credit.ID)
	}
	out := run(t, cmd, append(args, "-apply")...)
	if len(bus.events) != 1 || !same(bus.events[0], credit) || len(q.messages) != 0 {
		t.Fatalf("-apply: published %+v, queue holds %d; printed:\n%s\nwant %+v alone and the queue empty", bus.events, len(q.messages), out, credit)
	}
	if again := run(t, cmd, append(args, "-apply")...); !strings.Contains(again, "holds no message") || len(bus.events) != 1 {
		t.Errorf("with an empty queue: printed %q, published %d; want nothing more", again, len(bus.events))
	}
}

func TestParseFailure(t *testing.T) {
	at := time.Date(2026, 12, 5, 3, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name, body string
		ok         bool
	}{
		{"a batch", failureBody(at, at.Add(time.Second)), true},
		{"not JSON", "{", false},
		{"no batch info", `{"version":"1.0"}`, false},
		{"no arrival", `{"DDBStreamBatchInfo":{"shardId":"s"}}`, false},
		{"last before first", failureBody(at, at.Add(-time.Second)), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := republish.ParseFailure("m", "rh", c.body)
			var fe *republish.FailureMessageError
			switch {
			case c.ok && (err != nil || f.Window(time.Minute) != republish.Window{From: at.Add(-time.Minute), To: at.Add(time.Second + time.Minute)}):
				t.Errorf("got %+v, %v; want the batch's window widened by a minute", f, err)
			case !c.ok && !errors.As(err, &fe):
				t.Errorf("got %+v, %v; want a *FailureMessageError", f, err)
			}
		})
	}
}

// TestUsage: flags that do not make a command exit 2 and touch nothing.
func TestUsage(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"-from", "2026-12-05T00:00:00Z"},
		{"-dlq", "-from", "2026-12-05T00:00:00Z", "-to", "2026-12-05T01:00:00Z"},
		{"-from", "yesterday", "-to", "2026-12-05T01:00:00Z"},
		{"-from", "2026-12-05T01:00:00Z", "-to", "2026-12-05T00:00:00Z"},
		{"-env", "local", "-dlq"},
		{"-env", "nowhere", "-from", "2026-12-05T00:00:00Z", "-to", "2026-12-05T01:00:00Z"},
		{"-segments", "0", "-from", "2026-12-05T00:00:00Z", "-to", "2026-12-05T01:00:00Z"},
		{"extra"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			var out, errOut strings.Builder
			bus, q := &fakeBus{}, &fakeQueue{}
			cmd := cli.Command{Stdout: &out, Stderr: &errOut, DB: unusedDB{}, Bus: bus, Queue: q,
				Env: []func(*opsenv.Options){func(o *opsenv.Options) { o.CDKJSON = "../../../cdk.json" }}}
			if code := cmd.Main(t.Context(), args); code != cli.ExitError || errOut.Len() == 0 || len(bus.events) != 0 {
				t.Errorf("exit %d, stderr %q, published %d; want 2, a reason, nothing", code, errOut.String(), len(bus.events))
			}
		})
	}
}

// unusedDB fails every read: a usage error must not reach the table.
type unusedDB struct{}

func (unusedDB) Scan(context.Context, *dynamodb.ScanInput, ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	return nil, errors.New("scan: the command should not have read the table")
}

func (unusedDB) GetItem(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return nil, errors.New("get: the command should not have read the table")
}
