package cdk

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"

	"github.com/oncetable/oncetable/constructs/backup"
	"github.com/oncetable/oncetable/constructs/singletable"
)

// The options no environment uses today still synthesize what they promise.
func TestOptionalFeatures(t *testing.T) {
	// GIVEN a table with a stream and contributor insights, backed up with a copy to a second region
	app := awscdk.NewApp(nil)
	stack := awscdk.NewStack(app, jsii.String("Options"), &awscdk.StackProps{Env: &awscdk.Environment{Region: jsii.String("eu-west-1")}})
	table := singletable.NewTable(stack, "Table", &singletable.TableProps{Stream: true, ContributorInsights: true})
	copyVault := "arn:aws:backup:eu-central-1:111122223333:backup-vault:oncetable-copy"
	backup.NewTableBackup(stack, "Backup", table.Table, &backup.TableBackupProps{
		Rules:             []backup.Rule{{Schedule: backup.Daily, RetentionDays: 35}},
		CopyVaultARN:      copyVault,
		CopyRetentionDays: 90,
	})

	// WHEN it is synthesized
	var template map[string]any
	raw, _ := json.Marshal(assertions.Template_FromStack(stack, nil).ToJSON())
	if err := json.Unmarshal(raw, &template); err != nil {
		t.Fatal(err)
	}
	s := &synthesized{json: template}

	// THEN the table streams new and old images and has contributor insights
	_, tbl := dataTable(t, s)
	p := props(tbl)
	if got := p["StreamSpecification"]; !reflect.DeepEqual(got, map[string]any{"StreamViewType": "NEW_AND_OLD_IMAGES"}) {
		t.Errorf("StreamSpecification: got %v", got)
	}
	replica := p["Replicas"].([]any)[0].(map[string]any)
	if got := replica["ContributorInsightsSpecification"]; !reflect.DeepEqual(got, map[string]any{"Enabled": true}) {
		t.Errorf("ContributorInsightsSpecification: got %v", got)
	}
	// THEN every recovery point is copied to the second vault and kept there 90 days
	_, plan := only(t, s, "AWS::Backup::BackupPlan")
	rule := props(plan)["BackupPlan"].(map[string]any)["BackupPlanRule"].([]any)[0].(map[string]any)
	wantCopy := []any{map[string]any{"DestinationBackupVaultArn": copyVault, "Lifecycle": map[string]any{"DeleteAfterDays": 90.0}}}
	if got := rule["CopyActions"]; !reflect.DeepEqual(got, wantCopy) {
		t.Errorf("CopyActions: got %v, want %v", got, wantCopy)
	}
	// THEN without an alarm topic no failed-job rule is created
	if n := len(resources(s, "AWS::Events::Rule")); n != 0 {
		t.Errorf("got %d event rules without an alarm topic, want 0", n)
	}
}
