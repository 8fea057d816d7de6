package idemqueue_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/idempotency/idemqueue"
)

var errBad = errors.New("malformed message")

type counters struct {
	db      *dynamodb.Client
	records *idempotency.Table
}

func newCounters(t *testing.T) *counters {
	eng := ddblocal.New()
	t.Cleanup(func() { eng.Close() })
	db := eng.Client()
	if err := idempotency.CreateTable(context.Background(), db, "counters", idempotency.Attributes{}, time.Minute); err != nil {
		t.Fatal(err)
	}
	return &counters{db: db, records: idempotency.NewTable(db, "counters")}
}

var key = map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "n"}, "SK": &types.AttributeValueMemberS{Value: "n"}}

func plan(body string) (idempotency.Plan, error) {
	if strings.Contains(body, "bad") {
		return idempotency.Plan{}, errBad
	}
	return idempotency.Plan{Effect: func(time.Time) (*idempotency.Effect, error) {
		eff := &idempotency.Effect{Status: 200, Body: json.RawMessage(`{}`)}
		eff.Items.Add("count", types.TransactWriteItem{Update: &types.Update{TableName: aws.String("counters"), Key: key,
			UpdateExpression: aws.String("ADD n :one"), ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}}}})
		return eff, nil
	}}, nil
}

func (c *counters) count(t *testing.T) string {
	out, err := c.db.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String("counters"), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := out.Item["n"].(*types.AttributeValueMemberN); ok {
		return n.Value
	}
	return "0"
}

func batch(arn string, msgs ...string) events.SQSEvent {
	var ev events.SQSEvent
	for _, m := range msgs {
		id, body, _ := strings.Cut(m, "=")
		ev.Records = append(ev.Records, events.SQSMessage{MessageId: id, Body: body, EventSourceARN: arn})
	}
	return ev
}

func failures(r events.SQSEventResponse) string {
	var ids []string
	for _, f := range r.BatchItemFailures {
		ids = append(ids, f.ItemIdentifier)
	}
	return fmt.Sprint(ids)
}

func TestSQS(t *testing.T) {
	c := newCounters(t)
	h := idemqueue.SQS(c.records, "count", func(_ context.Context, m events.SQSMessage) (idempotency.Plan, error) { return plan(m.Body) })
	const std, fifo = "arn:aws:sqs:eu-west-1:1:jobs", "arn:aws:sqs:eu-west-1:1:jobs.fifo"
	ctx := context.Background()
	steps := []struct {
		name  string
		ev    events.SQSEvent
		fails string
		count string
	}{
		{"a failing message fails alone", batch(std, "m1={}", "m2=bad", "m3={}"), "[m2]", "2"},
		{"redelivery replays", batch(std, "m1={}", "m3={}"), "[]", "2"},
		{"same id on another queue is another key", batch(std+"2", "m1={}"), "[]", "3"},
		{"reused id with another body fails", batch(std, `m1={"x":1}`), "[m1]", "3"},
		{"FIFO stops at the first failure", batch(fifo, "f1=bad", "f2={}", "f3={}"), "[f1 f2 f3]", "3"},
		{"FIFO in order", batch(fifo, "f2={}", "f3={}"), "[]", "5"},
	}
	for _, st := range steps {
		resp, err := h(ctx, st.ev)
		if err != nil {
			t.Fatal(err)
		}
		if got := failures(resp); got != st.fails || c.count(t) != st.count {
			t.Errorf("%s: failures %s, count %s; want %s and %s", st.name, got, c.count(t), st.fails, st.count)
		}
	}
}

func TestSQSDrop(t *testing.T) {
	c := newCounters(t)
	var seen []string
	h := idemqueue.SQS(c.records, "count", func(_ context.Context, m events.SQSMessage) (idempotency.Plan, error) { return plan(m.Body) },
		func(o *idemqueue.Options) {
			o.Drop = func(err error) bool { return errors.Is(err, errBad) }
			o.OnError = func(id string, _ error) { seen = append(seen, id) }
		})
	resp, _ := h(context.Background(), batch("arn:aws:sqs:eu-west-1:1:jobs", "m1=bad", "m2={}"))
	if failures(resp) != "[]" || fmt.Sprint(seen) != "[m1]" || c.count(t) != "1" {
		t.Errorf("failures %s, errors seen %v, count %s; want [], [m1], 1", failures(resp), seen, c.count(t))
	}
}

func TestEventBridge(t *testing.T) {
	c := newCounters(t)
	h := idemqueue.EventBridge(c.records, "count", func(_ context.Context, ev events.EventBridgeEvent) (idempotency.Plan, error) {
		return plan(string(ev.Detail))
	})
	ev := events.EventBridgeEvent{ID: "6a7e8feb-b491-4cf7-a9f1-bf3703467718", Source: "shop", AccountID: "1", Detail: json.RawMessage(`{"o":1}`)}
	for range 3 {
		if err := h(context.Background(), ev); err != nil {
			t.Fatal(err)
		}
	}
	ev.ID, ev.Detail = "other", json.RawMessage(`"bad"`)
	if err := h(context.Background(), ev); !errors.Is(err, errBad) {
		t.Errorf("bad event: err = %v, want it returned for a retry", err)
	}
	if c.count(t) != "1" {
		t.Errorf("count = %s after one event delivered three times, want 1", c.count(t))
	}
}
