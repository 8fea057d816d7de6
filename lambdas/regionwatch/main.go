// Command regionwatch is the Lambda function behind the money table's
// stream event source mapping in each Region of a global table: it
// quarantines the ledger entries an old home wrote that arrive after this
// Region claimed a later epoch, checks the accounts homed here whose
// balance changed, and reports the first record it could not check
// (ReportBatchItemFailures). It reads TABLE_NAME and the HOME_ variables
// (runtime/config); all logic lives in runtime/regionwatch.
package main

import (
	"context"
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/oncetable/oncetable/runtime/regionwatch"
	"github.com/oncetable/oncetable/runtime/tracing"
)

func main() {
	// Built once per execution environment, before the first event.
	w, err := regionwatch.FromEnvironment(context.Background())
	if err != nil {
		log.Fatalf("regionwatch: %v", err)
	}
	lambda.Start(tracing.Lambda(w.Handle))
}
