// Command api is the Lambda function that serves every route except charge, debit and settle, which have functions of their own.
// It reads TABLE_NAME and IDEMPOTENCY_EXPIRY, and CURSOR_SECRET_ARN: the
// cursor-signing secret is read from Secrets Manager at run time, never
// from the configuration. All logic lives in runtime/httpapi.
package main

import (
	"context"
	"log"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/oncetable/oncetable/runtime/cursorsecret"
	"github.com/oncetable/oncetable/runtime/httpapi"
)

func main() {
	// Built once per execution environment, before the first event.
	ctx := context.Background()
	cfg, err := httpapi.ConfigFromEnv()
	if err != nil {
		log.Fatalf("api: %v", err)
	}
	awsCfg := lambdaConfig()
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

// lambdaConfig is the AWS configuration Lambda gives a function: its
// region and its role's credentials in the environment. It replaces
// config.LoadDefaultConfig, whose other sources (shared files, SSO, STS,
// IMDS, processes) never apply in Lambda but add 1.5 MB to the bootstrap
// (docs/compute.md). AWS_ENDPOINT_URL points every client elsewhere, as
// the SDK's own loader does; the cold-start benchmark uses it.
func lambdaConfig() aws.Config {
	c := aws.Config{
		Region: os.Getenv("AWS_REGION"),
		Credentials: aws.NewCredentialsCache(credentials.NewStaticCredentialsProvider(
			os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY"), os.Getenv("AWS_SESSION_TOKEN"))),
	}
	if u := os.Getenv("AWS_ENDPOINT_URL"); u != "" {
		c.BaseEndpoint = aws.String(u)
	}
	return c
}
