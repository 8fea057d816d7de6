package idemqueue_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/idempotency/idemqueue"
)

func ExampleSQS() {
	eng := ddblocal.New()
	defer eng.Close()
	db := eng.Client()
	db.CreateTable(context.Background(), &dynamodb.CreateTableInput{TableName: aws.String("counters"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("PK"), AttributeType: "S"}, {AttributeName: aws.String("SK"), AttributeType: "S"}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: "HASH"}, {AttributeName: aws.String("SK"), KeyType: "RANGE"}}})
	records := idempotency.NewTable(db, "counters")

	// plan counts a message, and refuses one whose body says "bad".
	handler := idemqueue.SQS(records, "count", func(_ context.Context, m events.SQSMessage) (idempotency.Plan, error) { return plan(m.Body) })
	ev := batch("arn:aws:sqs:eu-west-1:123456789012:jobs", "m1={}", "m2=bad", "m3={}")
	resp, _ := handler(context.Background(), ev)
	fmt.Println("retry:", failures(resp))
	// SQS delivers m1 again: it replays instead of counting twice.
	resp, _ = handler(context.Background(), batch("arn:aws:sqs:eu-west-1:123456789012:jobs", "m1={}"))
	fmt.Println("retry:", failures(resp))

	out, _ := db.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String("counters"), Key: key})
	fmt.Println("count:", strings.TrimSpace(out.Item["n"].(*types.AttributeValueMemberN).Value))
	// Output:
	// retry: [m2]
	// retry: []
	// count: 2
}
