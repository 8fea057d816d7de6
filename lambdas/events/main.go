// Command events is the Lambda function behind the table's DynamoDB stream
// event source mapping: it publishes the payment events of each batch of
// stream records to EventBridge and reports the first record it could not
// publish (ReportBatchItemFailures). It reads EVENT_BUS_NAME and, optionally,
// EVENT_SOURCE; all logic lives in runtime/outbox.
package main

import (
	"context"
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/oncetable/oncetable/runtime/outbox"
	"github.com/oncetable/oncetable/runtime/tracing"
)

func main() {
	// Built once per execution environment, before the first event.
	pub, err := outbox.FromEnvironment(context.Background())
	if err != nil {
		log.Fatalf("events: %v", err)
	}
	lambda.Start(tracing.Lambda(pub.Handle))
}
