package restorevalidation_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/restorevalidation"
	"github.com/oncetable/oncetable/runtime/schema/provision"
)

// A restore test of an empty table completes: the validator reports
// VALIDATING, then SUCCESSFUL, to the restore job (a real one is
// backup.NewFromConfig(cfg)).
func ExampleValidator_Handle() {
	eng := ddblocal.New()
	defer eng.Close()
	ctx := context.Background()
	restored := restorevalidation.RestoredTablePrefix + "-0123456789"
	if err := provision.EnsureTable(ctx, eng.Client(), restored); err != nil {
		panic(err)
	}
	bk := &fakeBackup{}
	v := restorevalidation.New(eng.Client(), bk, func(o *restorevalidation.Options) {
		o.SourceTable = "OnceTable-prod-Table"
		o.Metrics, o.Log = io.Discard, slog.New(slog.NewTextHandler(io.Discard, nil))
	})
	detail, _ := json.Marshal(restorevalidation.Detail{RestoreJobID: "job-1", Status: "COMPLETED", ResourceType: "DynamoDB",
		CreatedResourceArn:    "arn:aws:dynamodb:eu-west-1:111122223333:table/" + restored,
		RestoreTestingPlanArn: "arn:aws:backup:eu-west-1:111122223333:restore-testing-plan:OnceTable_prod_restore_test-1"})
	err := v.Handle(ctx, events.CloudWatchEvent{DetailType: "Restore Job State Change", Source: "aws.backup", Detail: detail})
	fmt.Println(err)
	for _, c := range bk.calls {
		fmt.Println(aws.ToString(c.RestoreJobId), c.ValidationStatus)
	}
	// Output:
	// <nil>
	// job-1 VALIDATING
	// job-1 SUCCESSFUL
}
