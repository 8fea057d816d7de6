// Command restorevalidation validates AWS Backup restore tests of the table:
// EventBridge invokes it when a restore testing job completes; it checks the
// restored table's money invariants (runtime/verify) and reports the verdict
// with PutRestoreValidationResult. It reads SOURCE_TABLE_NAME,
// RESTORE_TESTING_PLAN_ARN, VERIFY_SEGMENTS and VERIFY_MAX_RCU; all logic
// lives in runtime/restorevalidation.
package main

import (
	"log"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/service/backup"

	"github.com/oncetable/oncetable/runtime/lambdaenv"
	"github.com/oncetable/oncetable/runtime/restorevalidation"
	"github.com/oncetable/oncetable/runtime/retry"
)

func main() {
	cfg, err := lambdaenv.Config()
	if err != nil {
		log.Fatalf("restorevalidation: %v", err)
	}
	opts, err := restorevalidation.FromEnv(os.Getenv)
	if err != nil {
		log.Fatalf("restorevalidation: %v", err)
	}
	v := restorevalidation.New(retry.Client{API: retry.NewClient(cfg)}, backup.NewFromConfig(cfg), opts)
	lambda.Start(v.Handle)
}
