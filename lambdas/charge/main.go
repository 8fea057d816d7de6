// Command charge is the Lambda function that runs the idempotent charge: POST /orders/{orderId}/payments.
// It reads config.Payments (runtime/config); all logic, the authorization
// check included, lives in runtime/httpapi.
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
		log.Fatalf("charge: %v", err)
	}
	lambda.Start(tracing.Lambda(api.Only(httpapi.RouteCharge)))
}
