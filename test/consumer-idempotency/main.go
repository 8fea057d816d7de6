// Command consumer-idempotency is another team's SQS consumer in a Go module
// of its own (go.mod, with replace directives to oncetable's library
// modules): it requires only the exactly-once library, never oncetable's
// root module, so none of the CDK, jsii or the payments code. Its test runs
// `go mod graph` here and fails on any of them; make test runs it.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/idempotency/idemhttp"
	"github.com/oncetable/oncetable/runtime/idempotency/idemqueue"
)

// reserve is the consumer's handler: one stock reservation per order,
// keyed on the body's order id.
func reserve(db *dynamodb.Client) func(context.Context, events.SQSEvent) (events.SQSEventResponse, error) {
	records := idempotency.NewTable(db, "shipments")
	return idemqueue.SQS(records, idemqueue.Options[events.SQSMessage]{
		Operation: "reserve",
		Key: func(m events.SQSMessage) (string, error) {
			var o struct{ Order string }
			return o.Order, json.Unmarshal([]byte(m.Body), &o)
		},
	}, func(context.Context, events.SQSMessage, idemqueue.Attempt) (*idempotency.Effect, error) {
		return &idempotency.Effect{Status: 200, Body: json.RawMessage(`{"reserved":true}`)}, nil
	})
}

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// run delivers one message twice, as SQS may, and prints the failures.
func run(w io.Writer) error {
	eng := ddblocal.New()
	defer eng.Close()
	db := eng.Client()
	ctx := context.Background()
	if err := idempotency.CreateTable(ctx, db, "shipments", idempotency.Attributes{}, time.Minute); err != nil {
		return err
	}
	handle := reserve(db)
	ev := events.SQSEvent{Records: []events.SQSMessage{{MessageId: "m-1", EventSourceARN: "arn:aws:sqs:eu-west-1:123456789012:orders", Body: `{"order":"o-1"}`}}}
	for range 2 {
		resp, err := handle(ctx, ev)
		if err != nil {
			return err
		}
		fmt.Fprintln(w, "failures:", len(resp.BatchItemFailures))
	}
	key, err := idemhttp.ParseKey(`"order-1"`)
	fmt.Fprintln(w, "HTTP key:", key, err)
	return nil
}
