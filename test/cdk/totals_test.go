package cdk

import (
	"reflect"
	"slices"
	"sort"
	"testing"

	"github.com/aws/jsii-runtime-go"

	"github.com/oncetable/oncetable/constructs/oncall"
	"github.com/oncetable/oncetable/constructs/totals"
	"github.com/oncetable/oncetable/runtime/config"
	"github.com/oncetable/oncetable/runtime/platform"
	"github.com/oncetable/oncetable/runtime/store"
)

// TestTotals: every environment deploys the platform totaller on its
// table's stream: a mapping whose filter admits inserted ledger entries
// only, in batches of one totals transaction, with bisect, retries, record
// age, partial failures and an encrypted failure queue; a role that writes
// with UpdateItem only in the users' and the platform totals' partitions
// and reads that stream only; tickets on lag and on dead letters.
func TestTotals(t *testing.T) {
	for _, env := range envs {
		t.Run(env, func(t *testing.T) {
			s := byEnv[env]
			if s.totals == nil {
				t.Fatal("the stack deploys no totaller")
			}
			tableID := logicalID(s, s.table.Table)
			fnID := logicalID(s, s.totals.Function.Function)
			queueID := logicalID(s, s.totals.FailureQueue)
			streamArn := map[string]any{"Fn::GetAtt": []any{tableID, "StreamArn"}}
			fn := s.json["Resources"].(map[string]any)[fnID].(map[string]any)
			vars := props(fn)["Environment"].(map[string]any)["Variables"].(map[string]any)
			if !reflect.DeepEqual(vars[config.TableNameEnv], ref(tableID)) || vars[config.PlatformShardsEnv] != "16" {
				t.Errorf("environment %v, want the table and 16 shards", vars)
			}
			check(t, "the stream mapping", func() {
				s.template.HasResourceProperties(jsii.String("AWS::Lambda::EventSourceMapping"), map[string]any{
					"FunctionName": ref(fnID), "EventSourceArn": streamArn, "StartingPosition": "TRIM_HORIZON",
					"BatchSize": platform.MaxEntriesPerTransaction, "MaximumBatchingWindowInSeconds": 5, "BisectBatchOnFunctionError": true,
					"MaximumRetryAttempts": 10, "MaximumRecordAgeInSeconds": 86400,
					"FunctionResponseTypes": []any{"ReportBatchItemFailures"},
					"DestinationConfig":     map[string]any{"OnFailure": map[string]any{"Destination": getAtt(queueID)}},
					"FilterCriteria": map[string]any{"Filters": []any{map[string]any{"Pattern": compact(map[string]any{
						"eventName": []any{"INSERT"},
						"dynamodb":  map[string]any{"NewImage": map[string]any{"EntityType": map[string]any{"S": []any{store.TypeLedgerEntry}}}},
					})}}},
				})
			})
			if p := props(s.json["Resources"].(map[string]any)[queueID].(map[string]any)); p["SqsManagedSseEnabled"] != true {
				t.Errorf("failure queue %v, want SQS-managed encryption", p)
			}
			checkTotalsPolicy(t, s, fn, tableID, streamArn)
			checkTotalsAlarms(t, s, fnID, queueID)
		})
	}
}

// checkTotalsPolicy: the role's DynamoDB writes are totals.FunctionAccess
// on the table, conditioned on its partitions; it reads the stream; besides,
// only its logs, tracing and the table's key.
func checkTotalsPolicy(t *testing.T, s *synthesized, fn map[string]any, tableID string, streamArn any) {
	t.Helper()
	roleID := props(fn)["Role"].(map[string]any)["Fn::GetAtt"].([]any)[0].(string)
	acc := totals.FunctionAccess()
	var actions []string
	for _, st := range roleStatements(s, roleID) {
		stmt, names := st.statement, st.actions
		actions = append(actions, names...)
		switch stmt["Sid"] {
		case "TotalLedgerEntries":
			want := compact(map[string]any{"ForAllValues:StringLike": map[string]any{"dynamodb:LeadingKeys": acc.WritePartitions}})
			if !reflect.DeepEqual(names, acc.WriteActions) || !reflect.DeepEqual(stmt["Resource"], getAtt(tableID)) || compact(stmt["Condition"]) != want {
				t.Errorf("writes %v on %v conditioned on %s, want %v on the table conditioned on %s", names, compact(stmt["Resource"]), compact(stmt["Condition"]), acc.WriteActions, want)
			}
		case "ReadTableStream":
			if !reflect.DeepEqual(stmt["Resource"], streamArn) {
				t.Errorf("stream reads on %v, want the table's stream", compact(stmt["Resource"]))
			}
		}
	}
	sort.Strings(actions)
	want := append([]string{"dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator", "dynamodb:ListStreams",
		"logs:CreateLogStream", "logs:PutLogEvents", "sqs:GetQueueAttributes", "sqs:GetQueueUrl", "sqs:SendMessage",
		"xray:PutTelemetryRecords", "xray:PutTraceSegments"}, acc.WriteActions...)
	if s.table.Key != nil {
		want = append(want, "kms:Decrypt", "kms:DescribeKey", "kms:Encrypt", "kms:GenerateDataKey")
	}
	sort.Strings(want)
	if got := slices.Compact(actions); !reflect.DeepEqual(got, want) {
		t.Errorf("the role allows %v, want exactly %v", got, want)
	}
}

// checkTotalsAlarms: the mapping's iterator age at 15 minutes in 3 periods
// running, and any message in the failure queue, each a ticket.
func checkTotalsAlarms(t *testing.T, s *synthesized, fnID, queueID string) {
	t.Helper()
	found := map[string]bool{}
	for _, a := range s.ops.Alarms {
		switch a.Kind {
		case oncall.TotalsLag:
			p := alarmResource(t, s, a.Alarm)
			if p["MetricName"] != "IteratorAge" || !reflect.DeepEqual(p["Dimensions"], []any{map[string]any{"Name": "FunctionName", "Value": ref(fnID)}}) ||
				p["Threshold"] != 900000.0 || p["EvaluationPeriods"] != 3.0 || datapoints(p) != 3 || p["Statistic"] != "Maximum" {
				t.Errorf("totals-lag alarm %s, want the totals function's IteratorAge at 15 minutes, 3 of 3", compact(p))
			}
		case oncall.TotalsDeadLetters:
			p := alarmResource(t, s, a.Alarm)
			if p["MetricName"] != "ApproximateNumberOfMessagesVisible" || compact(p["Dimensions"]) != compact([]any{map[string]any{"Name": "QueueName", "Value": map[string]any{"Fn::GetAtt": []any{queueID, "QueueName"}}}}) {
				t.Errorf("totals-dead-letters alarm %s, want the totals failure queue's depth", compact(p))
			}
		default:
			continue
		}
		if a.Kind.Severity != oncall.Ticket {
			t.Errorf("%s is a %s, want a ticket", a.Kind.Name, a.Kind.Severity)
		}
		found[a.Kind.Name] = true
	}
	if len(found) != 2 {
		t.Errorf("totals alarms %v, want totals-lag and totals-dead-letters", found)
	}
}

// statement is one statement of a role's policies and its actions.
type statement struct {
	statement map[string]any
	actions   []string
}

// roleStatements lists the statements of every policy attached to roleID.
func roleStatements(s *synthesized, roleID string) []statement {
	var out []statement
	for _, pol := range resources(s, "AWS::IAM::Policy") {
		if !slices.ContainsFunc(asList(props(pol)["Roles"]), func(r any) bool { return reflect.DeepEqual(r, ref(roleID)) }) {
			continue
		}
		for _, st := range asList(props(pol)["PolicyDocument"].(map[string]any)["Statement"]) {
			stmt := st.(map[string]any)
			acts := asList(stmt["Action"])
			if a, ok := stmt["Action"].(string); ok {
				acts = []any{a}
			}
			var names []string
			for _, a := range acts {
				names = append(names, a.(string))
			}
			out = append(out, statement{statement: stmt, actions: names})
		}
	}
	return out
}
