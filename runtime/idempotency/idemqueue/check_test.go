package idemqueue_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddbtest"
	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/idempotency/idemqueue"
)

// TestCheckTable: on another team's table (id/kind, TTL purge_at) a
// consumer built with CheckTable and the wrong names fails every message
// with an error naming the option, and writes nothing; with the right
// names it runs each message once.
func TestCheckTable(t *testing.T) {
	ctx := context.Background()
	db, _ := ddbtest.Client(t, nil)
	table := ddbtest.TableName("shipments")
	names := idempotency.Attributes{PartitionKey: "id", SortKey: "kind", TTL: "purge_at"}
	ddbtest.DeleteAfter(t, db, table)
	if err := idempotency.CreateTable(ctx, db, table, names, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	shipped := map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "ship#1"}, "kind": &types.AttributeValueMemberS{Value: "count"}}
	plan := func(ctx context.Context, m events.SQSMessage) (idempotency.Plan, error) {
		return idempotency.Plan{Effect: func(time.Time) (*idempotency.Effect, error) {
			eff := &idempotency.Effect{Status: 200, Body: json.RawMessage(`{}`)}
			eff.Items.Add("count", types.TransactWriteItem{Update: &types.Update{TableName: aws.String(table), Key: shipped,
				UpdateExpression: aws.String("ADD n :one"), ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}}}})
			return eff, nil
		}}, nil
	}
	ev := events.SQSEvent{Records: []events.SQSMessage{
		{MessageId: "m1", Body: "a", EventSourceARN: "arn:aws:sqs:eu-west-1:1:q"},
		{MessageId: "m1", Body: "a", EventSourceARN: "arn:aws:sqs:eu-west-1:1:q"},
	}}
	var seen error
	wrong := idemqueue.SQS(idempotency.NewTable(db, table), "ship", plan, func(o *idemqueue.Options) {
		o.CheckTable, o.OnError = true, func(_ string, err error) { seen = err }
	})
	resp, _ := wrong(ctx, ev)
	var ce *idempotency.ConfigError
	if len(resp.BatchItemFailures) != 2 || !errors.As(seen, &ce) || ce.Option != "Options.Attributes.PartitionKey" {
		t.Errorf("misconfigured: %d failures, error %v; want both messages failed naming Options.Attributes.PartitionKey", len(resp.BatchItemFailures), seen)
	}
	eb := idemqueue.EventBridge(idempotency.NewTable(db, table), "ship", nil, func(o *idemqueue.Options) { o.CheckTable = true })
	if err := eb(ctx, events.EventBridgeEvent{ID: "e1"}); !errors.As(err, &ce) {
		t.Errorf("EventBridge misconfigured: %v, want a ConfigError", err)
	}
	right := idemqueue.SQS(idempotency.NewTable(db, table, func(o *idempotency.Options) { o.Attributes = names }), "ship", plan,
		func(o *idemqueue.Options) { o.CheckTable = true })
	if resp, _ := right(ctx, ev); len(resp.BatchItemFailures) != 0 {
		t.Errorf("configured: failures %v", resp.BatchItemFailures)
	}
	out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: shipped, ConsistentRead: aws.Bool(true)})
	if err != nil || out.Item["n"].(*types.AttributeValueMemberN).Value != "1" {
		t.Errorf("count = %v, %v; want 1 (two deliveries of one message)", out.Item, err)
	}
}
