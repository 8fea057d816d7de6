// Command totals is the Lambda function behind the table's second DynamoDB
// stream event source mapping: it adds the platform legs of each batch's
// new ledger entries to the platform accounts' stored totals, each entry
// exactly once, and reports the first record it could not total
// (ReportBatchItemFailures). It reads TABLE_NAME and PLATFORM_SHARDS
// (runtime/config); all logic lives in runtime/platform.
package main

import (
	"context"
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/oncetable/oncetable/runtime/platform"
	"github.com/oncetable/oncetable/runtime/tracing"
)

func main() {
	// Built once per execution environment, before the first event.
	t, err := platform.FromEnvironment(context.Background())
	if err != nil {
		log.Fatalf("totals: %v", err)
	}
	lambda.Start(tracing.Lambda(t.Handle))
}
