package idemqueue_test

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/idempotency/idemqueue"
)

// shipments is a table of records on the embedded engine (in Lambda: a
// *dynamodb.Client of the real table, created once by your stack).
func shipments() (*idempotency.Table, func()) {
	eng := ddblocal.New()
	db := eng.Client()
	if err := idempotency.CreateTable(context.Background(), db, "shipments", idempotency.Attributes{}, time.Minute); err != nil {
		panic(err)
	}
	return idempotency.NewTable(db, "shipments"), func() { eng.Close() }
}

func printFailures(ids []string) { fmt.Println("retry:", ids) }

// An SQS consumer keyed on a field of the body: the producer sent order
// o1 twice under two message ids, and it is reserved once. An external
// call (the carrier) runs in LockFirst mode.
func ExampleSQS() {
	records, done := shipments()
	defer done()
	calls := 0
	handler := idemqueue.SQS(records, idemqueue.Options[events.SQSMessage]{
		Operation: "book-carrier",
		Mode:      idemqueue.LockFirst,
		Key: func(m events.SQSMessage) (string, error) {
			var o struct{ Order string }
			return o.Order, json.Unmarshal([]byte(m.Body), &o)
		},
	}, func(ctx context.Context, m events.SQSMessage, at idemqueue.Attempt) (*idempotency.Effect, error) {
		calls++ // the carrier's API, given at.ForwardKey as its own idempotency key
		return &idempotency.Effect{Status: 201, Body: map[string]string{"label": "L-1"}}, nil
	})
	ev := events.SQSEvent{Records: []events.SQSMessage{
		{MessageId: "m1", EventSourceARN: "arn:aws:sqs:eu-west-1:123456789012:orders", Body: `{"order":"o1"}`},
		{MessageId: "m2", EventSourceARN: "arn:aws:sqs:eu-west-1:123456789012:orders", Body: `{"order":"o1"}`},
		{MessageId: "m3", EventSourceARN: "arn:aws:sqs:eu-west-1:123456789012:orders", Body: `not json`},
	}}
	resp, _ := handler(context.Background(), ev) // lambda.Start(handler) in a Lambda
	var ids []string
	for _, f := range resp.BatchItemFailures {
		ids = append(ids, f.ItemIdentifier)
	}
	printFailures(ids)
	fmt.Println("carrier calls:", calls)
	// Output:
	// retry: [m3]
	// carrier calls: 1
}

// A FIFO queue: a failure stops its group; with SkipFailedGroup the other
// groups carry on (without it, every later message of the batch would be
// returned too).
func ExampleSQS_fifo() {
	records, done := shipments()
	defer done()
	handler := idemqueue.SQS(records, idemqueue.Options[events.SQSMessage]{Operation: "reserve", SkipFailedGroup: true},
		func(ctx context.Context, m events.SQSMessage, at idemqueue.Attempt) (*idempotency.Effect, error) {
			if m.Body == "bad" {
				return nil, fmt.Errorf("cannot reserve %s", m.MessageId)
			}
			return &idempotency.Effect{Status: 200}, nil
		})
	fifo := "arn:aws:sqs:eu-west-1:123456789012:orders.fifo"
	msg := func(id, group, body string) events.SQSMessage {
		return events.SQSMessage{MessageId: id, EventSourceARN: fifo, Body: body, Attributes: map[string]string{"MessageGroupId": group}}
	}
	resp, _ := handler(context.Background(), events.SQSEvent{Records: []events.SQSMessage{
		msg("a1", "customer-a", "ok"), msg("a2", "customer-a", "bad"), msg("b1", "customer-b", "ok"), msg("a3", "customer-a", "ok"),
	}})
	var ids []string
	for _, f := range resp.BatchItemFailures {
		ids = append(ids, f.ItemIdentifier)
	}
	printFailures(ids)
	// Output:
	// retry: [a2 a3]
}

// A DynamoDB Streams consumer: the first failure stops the batch and its
// sequence number is where Lambda resumes; records already applied replay.
func ExampleDynamoDBStream() {
	records, done := shipments()
	defer done()
	replays := 0
	handler := idemqueue.DynamoDBStream(records, idemqueue.Options[events.DynamoDBEventRecord]{
		Operation: "notify-carrier",
		OnReplay:  func(events.DynamoDBEventRecord, idempotency.Response) { replays++ },
	}, func(ctx context.Context, r events.DynamoDBEventRecord, at idemqueue.Attempt) (*idempotency.Effect, error) {
		if r.Change.NewImage["status"].String() != "PAID" {
			return nil, fmt.Errorf("order %s is not paid", r.Change.Keys["PK"].String())
		}
		return &idempotency.Effect{Status: 200}, nil
	})
	rec := func(seq, order, status string) events.DynamoDBEventRecord {
		return events.DynamoDBEventRecord{EventID: "ev-" + seq, EventName: "MODIFY",
			EventSourceArn: "arn:aws:dynamodb:eu-west-1:123456789012:table/orders/stream/2026-12-04T00:00:00.000",
			Change: events.DynamoDBStreamRecord{SequenceNumber: seq, Keys: map[string]events.DynamoDBAttributeValue{"PK": events.NewStringAttribute(order)},
				NewImage: map[string]events.DynamoDBAttributeValue{"status": events.NewStringAttribute(status)}}}
	}
	batch := events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{rec("100", "o1", "PAID"), rec("101", "o2", "NEW"), rec("102", "o3", "PAID")}}
	resp, _ := handler(context.Background(), batch)
	fmt.Println("resume at:", resp.BatchItemFailures[0].ItemIdentifier)
	batch.Records[1] = rec("101", "o2", "PAID") // fixed upstream; a retried batch holds o1 again
	resp, _ = handler(context.Background(), batch)
	fmt.Println("failures:", len(resp.BatchItemFailures), "replays:", replays)
	// Output:
	// resume at: 101
	// failures: 0 replays: 1
}

// A Kinesis consumer: each shard stops at its own first failure.
func ExampleKinesis() {
	records, done := shipments()
	defer done()
	handler := idemqueue.Kinesis(records, idemqueue.Options[events.KinesisEventRecord]{Operation: "reserve"},
		func(ctx context.Context, r events.KinesisEventRecord, at idemqueue.Attempt) (*idempotency.Effect, error) {
			if string(r.Kinesis.Data) == "bad" {
				return nil, fmt.Errorf("bad record %s", r.Kinesis.SequenceNumber)
			}
			return &idempotency.Effect{Status: 200}, nil
		})
	rec := func(shard, seq, data string) events.KinesisEventRecord {
		return events.KinesisEventRecord{EventID: shard + ":" + seq, EventSourceArn: "arn:aws:kinesis:eu-west-1:123456789012:stream/orders",
			Kinesis: events.KinesisRecord{SequenceNumber: seq, Data: []byte(data)}}
	}
	resp, _ := handler(context.Background(), events.KinesisEvent{Records: []events.KinesisEventRecord{
		rec("shardId-000000000000", "4951", "ok"), rec("shardId-000000000000", "4952", "bad"), rec("shardId-000000000000", "4953", "ok"),
	}})
	fmt.Println("resume at:", resp.BatchItemFailures[0].ItemIdentifier)
	// Output:
	// resume at: 4952
}
