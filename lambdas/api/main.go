// Command api is the Lambda function that serves every route except charge, debit and settle, which have functions of their own.
// It reads config.Payments (runtime/config): the cursor-signing secret is read from Secrets Manager at run time
// (CURSOR_SECRET_ARN), never from the configuration. All logic, the authorization check included, lives in runtime/httpapi.
package main

import (
	"context"
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/oncetable/oncetable/runtime/httpapi"
	"github.com/oncetable/oncetable/runtime/tracing"
)

func main() {
	// Built once per execution environment, before the first event.
	api, err := httpapi.FromEnvironment(context.Background())
	if err != nil {
		log.Fatalf("api: %v", err)
	}
	lambda.Start(tracing.Lambda(api.Except(httpapi.RouteCharge, httpapi.RouteDebit, httpapi.RouteSettle)))
}
