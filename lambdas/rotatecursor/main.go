// Command rotatecursor is the Secrets Manager rotation function of the api
// function's cursor-signing secret: it creates a new random version and
// makes it AWSCURRENT; the old one stays AWSPREVIOUS, so cursors it signed
// keep verifying. All logic lives in runtime/cursorsecret.
package main

import (
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/oncetable/oncetable/runtime/cursorsecret"
)

func main() {
	// Lambda's region and role credentials, as in lambdas/api: the default
	// loader's other sources never apply in Lambda.
	cfg := aws.Config{
		Region: os.Getenv("AWS_REGION"),
		Credentials: aws.NewCredentialsCache(credentials.NewStaticCredentialsProvider(
			os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY"), os.Getenv("AWS_SESSION_TOKEN"))),
	}
	lambda.Start(cursorsecret.NewRotator(secretsmanager.NewFromConfig(cfg)).Handle)
}
