// Command api is the Lambda function that serves every route except charge, debit and settle, which have functions of their own.
// It reads TABLE_NAME, IDEMPOTENCY_EXPIRY, ORDER_INDEXES and ORDER_SHARDS, and
// CURSOR_SECRET_ARN: the cursor-signing secret is read from Secrets Manager at run time, never
// from the configuration; the AUTH_* variables say who may call it (httpapi.Auth).
// All logic, the authorization check included, lives in runtime/httpapi.
package main

import (
	"context"
	"log"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/oncetable/oncetable/runtime/cursorsecret"
	"github.com/oncetable/oncetable/runtime/httpapi"
	"github.com/oncetable/oncetable/runtime/lambdaenv"
)

func main() {
	// Built once per execution environment, before the first event.
	ctx := context.Background()
	cfg, err := httpapi.ConfigFromEnv()
	if err != nil {
		log.Fatalf("api: %v", err)
	}
	awsCfg, err := lambdaenv.Config()
	if err != nil {
		log.Fatalf("api: %v", err)
	}
	api := httpapi.New(dynamodb.NewFromConfig(awsCfg), cfg)
	if arn := os.Getenv(cursorsecret.ARNEnv); arn != "" {
		secret := cursorsecret.New(secretsmanager.NewFromConfig(awsCfg), arn)
		if err := secret.Load(ctx); err != nil {
			log.Fatalf("api: %v", err)
		}
		api.Store().Cursors().UseKeySource(secret)
	}
	lambda.Start(api.Except(httpapi.RouteCharge, httpapi.RouteDebit, httpapi.RouteSettle))
}
