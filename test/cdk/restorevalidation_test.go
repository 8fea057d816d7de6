package cdk

import (
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/aws/jsii-runtime-go"

	"github.com/oncetable/oncetable/runtime/config"
	"github.com/oncetable/oncetable/runtime/restorevalidation"
)

// TestRestoreValidation: where restore tests run (staging, prod), each
// completed restore testing job of the plan invokes a function that
// verifies the restored table's money invariants and reports with
// PutRestoreValidationResult; it may read only restore-test tables (never
// the protected one) and report validations, nothing else; a failed
// verdict alarms on the topic; dev has none.
func TestRestoreValidation(t *testing.T) {
	for _, env := range envs {
		t.Run(env, func(t *testing.T) {
			s := byEnv[env]
			fnID, fn := validationFunction(s)
			if env == "dev" {
				if fn != nil {
					t.Errorf("dev has a restore validation function %s", fnID)
				}
				return
			}
			if fn == nil {
				t.Fatal("no function with RESTORE_TESTING_PLAN_ARN")
			}
			planID, _ := only(t, s, "AWS::Backup::RestoreTestingPlan")
			tableID := logicalID(s, s.table.Table)
			planArn := map[string]any{"Fn::GetAtt": []any{planID, "RestoreTestingPlanArn"}}
			p := props(fn)
			vars := p["Environment"].(map[string]any)["Variables"].(map[string]any)
			if !reflect.DeepEqual(vars[config.RestoreTestingPlanARNEnv], planArn) || !reflect.DeepEqual(vars[config.SourceTableNameEnv], ref(tableID)) {
				t.Errorf("environment %v, want the plan's ARN and the table's name", vars)
			}
			if p["Timeout"] != 900.0 {
				t.Errorf("Timeout %v, want 900 (a large table's scan)", p["Timeout"])
			}
			checkValidationPolicy(t, s, fn, tableID)
			checkValidationRule(t, s, fnID, planArn)
			topicID := logicalID(s, s.ops.Page.Topic)
			check(t, "a failed validation pages", func() {
				s.template.HasResourceProperties(jsii.String("AWS::CloudWatch::Alarm"), map[string]any{
					"Namespace": restorevalidation.Namespace, "MetricName": restorevalidation.MetricValidationFailed,
					"Dimensions": []any{map[string]any{"Name": restorevalidation.DimensionTableName, "Value": ref(tableID)}},
					"Statistic":  "Maximum", "Threshold": 1.0, "ComparisonOperator": "GreaterThanOrEqualToThreshold",
					"AlarmActions": []any{ref(topicID)},
				})
			})
		})
	}
}

// validationFunction is the function whose environment names a restore
// testing plan.
func validationFunction(s *synthesized) (string, map[string]any) {
	for id, fn := range resources(s, "AWS::Lambda::Function") {
		if env, ok := props(fn)["Environment"].(map[string]any); ok {
			if _, ok := env["Variables"].(map[string]any)[config.RestoreTestingPlanARNEnv]; ok {
				return id, fn
			}
		}
	}
	return "", nil
}

// checkValidationPolicy: the role's statements allow exactly its logs,
// tracing, the restore-test tables' DescribeTable and Scan, the verdict,
// the failure destination and, with a customer-managed key, decrypting
// with it; no statement names the protected table.
func checkValidationPolicy(t *testing.T, s *synthesized, fn map[string]any, tableID string) {
	t.Helper()
	roleID := props(fn)["Role"].(map[string]any)["Fn::GetAtt"].([]any)[0].(string)
	var actions []string
	for id, pol := range resources(s, "AWS::IAM::Policy") {
		if !slices.ContainsFunc(asList(props(pol)["Roles"]), func(r any) bool { return reflect.DeepEqual(r, ref(roleID)) }) {
			continue
		}
		for _, st := range asList(props(pol)["PolicyDocument"].(map[string]any)["Statement"]) {
			stmt := st.(map[string]any)
			res := compact(stmt["Resource"])
			if strings.Contains(res, tableID) {
				t.Errorf("policy %s names the protected table: %v", id, stmt)
			}
			acts := asList(stmt["Action"])
			if a, ok := stmt["Action"].(string); ok {
				acts = []any{a}
			}
			for _, a := range acts {
				a := a.(string)
				actions = append(actions, a)
				switch {
				case strings.HasPrefix(a, "dynamodb:") && !strings.Contains(res, "table/"+restorevalidation.RestoredTablePrefix+"*"):
					t.Errorf("%s on %s, want only %s* tables", a, res, restorevalidation.RestoredTablePrefix)
				case a == "backup:PutRestoreValidationResult" && !strings.Contains(compact(stmt["Condition"]), "aws:RequestedRegion"):
					t.Errorf("%s without a region condition: %v", a, stmt)
				case a == "kms:Decrypt" && (s.table.Key == nil || res != compact(getAtt(logicalID(s, s.table.Key)))):
					t.Errorf("%s on %s, want only the table's key", a, res)
				}
			}
		}
	}
	sort.Strings(actions)
	// The on-failure destination's grant is CDK's: send, and find the queue.
	want := []string{"backup:PutRestoreValidationResult", "dynamodb:DescribeTable", "dynamodb:Scan", "logs:CreateLogStream",
		"logs:PutLogEvents", "sqs:GetQueueAttributes", "sqs:GetQueueUrl", "sqs:SendMessage", "xray:PutTelemetryRecords", "xray:PutTraceSegments"}
	if s.table.Key != nil {
		want = append([]string{"kms:Decrypt"}, want...)
		sort.Strings(want)
	}
	if !reflect.DeepEqual(slices.Compact(actions), want) {
		t.Errorf("the role allows %v, want exactly %v", slices.Compact(actions), want)
	}
}

// checkValidationRule: completed DynamoDB restore testing jobs of the plan
// invoke the function, with a dead-letter queue.
func checkValidationRule(t *testing.T, s *synthesized, fnID string, planArn map[string]any) {
	t.Helper()
	for _, rule := range resources(s, "AWS::Events::Rule") {
		p := props(rule)
		pat, _ := p["EventPattern"].(map[string]any)
		if !reflect.DeepEqual(pat["detail-type"], []any{"Restore Job State Change"}) {
			continue
		}
		d, _ := pat["detail"].(map[string]any)
		if !reflect.DeepEqual(d["status"], []any{"COMPLETED"}) {
			continue
		}
		if !reflect.DeepEqual(pat["source"], []any{"aws.backup"}) || !reflect.DeepEqual(d["resourceType"], []any{"DynamoDB"}) ||
			!reflect.DeepEqual(d["restoreTestingPlanArn"], []any{planArn}) {
			t.Errorf("restore validation rule pattern %v, want completed DynamoDB jobs of the plan", compact(pat))
		}
		targets := asList(p["Targets"])
		if len(targets) != 1 || !reflect.DeepEqual(targets[0].(map[string]any)["Arn"], getAtt(fnID)) || targets[0].(map[string]any)["DeadLetterConfig"] == nil {
			t.Errorf("targets %v, want the function with a dead-letter queue", compact(targets))
		}
		return
	}
	t.Error("no rule for completed restore jobs")
}
