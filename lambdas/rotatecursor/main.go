// Command rotatecursor is the Secrets Manager rotation function of the api
// function's cursor-signing secret: it creates a new random version and
// makes it AWSCURRENT; the old one stays AWSPREVIOUS, so cursors it signed
// keep verifying. All logic lives in runtime/cursorsecret.
package main

import (
	"log"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/oncetable/oncetable/runtime/cursorsecret"
	"github.com/oncetable/oncetable/runtime/lambdaenv"
)

func main() {
	cfg, err := lambdaenv.Config()
	if err != nil {
		log.Fatalf("rotatecursor: %v", err)
	}
	lambda.Start(cursorsecret.NewRotator(secretsmanager.NewFromConfig(cfg)).Handle)
}
