// Command debit is the Lambda function that runs the guarded debit: POST /users/{userId}/debits.
// It reads TABLE_NAME, IDEMPOTENCY_EXPIRY and CURSOR_SECRET; all logic lives
// in runtime/httpapi.
package main

import (
	"context"
	"log"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/oncetable/oncetable/runtime/httpapi"
)

// handler is built once per execution environment, at init.
var handler httpapi.HandlerFunc

func init() {
	cfg, err := httpapi.ConfigFromEnv()
	if err != nil || cfg.Table == "" {
		log.Fatalf("debit: configuration: TABLE_NAME must be set (%v)", err)
	}
	awsCfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		log.Fatalf("debit: aws config: %v", err)
	}
	handler = httpapi.New(dynamodb.NewFromConfig(awsCfg), cfg).Only(httpapi.RouteDebit)
}

func main() { lambda.Start(handler) }
