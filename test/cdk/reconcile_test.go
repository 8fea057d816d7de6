package cdk

import (
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/oncetable/oncetable/constructs/oncall"
	"github.com/oncetable/oncetable/constructs/reconciler"
	"github.com/oncetable/oncetable/runtime/config"
	"github.com/oncetable/oncetable/runtime/obs"
)

// reconcileFunction is the function whose environment has the
// reconciliation's segments.
func reconcileFunction(s *synthesized) (string, map[string]any) {
	for id, fn := range resources(s, "AWS::Lambda::Function") {
		if env, ok := props(fn)["Environment"].(map[string]any); ok {
			if _, ok := env["Variables"].(map[string]any)[config.ReconcileSegmentsEnv]; ok {
				return id, fn
			}
		}
	}
	return "", nil
}

// TestReconcile: every environment deploys the live reconciliation of its
// table: a 15-minute schedule whose role may invoke that function only, a
// role that reads the table and writes only the reconciliation's control
// partitions, a page on any confirmed violation and a ticket when no pass
// completes for 6 hours.
func TestReconcile(t *testing.T) {
	for _, env := range envs {
		t.Run(env, func(t *testing.T) {
			s := byEnv[env]
			fnID, fn := reconcileFunction(s)
			if fn == nil {
				t.Fatal("no function with " + config.ReconcileSegmentsEnv)
			}
			tableID := logicalID(s, s.table.Table)
			p := props(fn)
			vars := p["Environment"].(map[string]any)["Variables"].(map[string]any)
			if !reflect.DeepEqual(vars[config.TableNameEnv], ref(tableID)) || vars[config.ReconcileMaxRCUEnv] != "100" || vars[config.ReconcileBudgetEnv] != "10m0s" {
				t.Errorf("environment %v, want the table, 100 RCU and a 10m budget", vars)
			}
			if p["Timeout"] != 900.0 {
				t.Errorf("Timeout %v, want 900", p["Timeout"])
			}
			checkReconcileSchedule(t, s, fnID)
			checkReconcilePolicy(t, s, fn, tableID)
			checkReconcileAlarms(t, s, tableID)
		})
	}
}

func checkReconcileSchedule(t *testing.T, s *synthesized, fnID string) {
	t.Helper()
	_, sched := onlyNamed(t, s, "AWS::Scheduler::Schedule", "Reconcile")
	p := props(sched)
	target := p["Target"].(map[string]any)
	if p["ScheduleExpression"] != "rate(15 minutes)" || p["State"] != "ENABLED" || !reflect.DeepEqual(target["Arn"], getAtt(fnID)) {
		t.Fatalf("schedule %v, want rate(15 minutes), enabled, on the reconcile function", compact(p))
	}
	roleID := target["RoleArn"].(map[string]any)["Fn::GetAtt"].([]any)[0].(string)
	var statements []string
	for _, pol := range resources(s, "AWS::IAM::Policy") {
		if slices.ContainsFunc(asList(props(pol)["Roles"]), func(r any) bool { return reflect.DeepEqual(r, ref(roleID)) }) {
			for _, st := range asList(props(pol)["PolicyDocument"].(map[string]any)["Statement"]) {
				statements = append(statements, compact(st))
			}
		}
	}
	want := compact(map[string]any{"Action": "lambda:InvokeFunction", "Effect": "Allow", "Resource": getAtt(fnID), "Sid": "InvokeReconcile"})
	if len(statements) != 1 || statements[0] != want {
		t.Errorf("the schedule's role allows %v, want only %s", statements, want)
	}
	trust := compact(props(s.json["Resources"].(map[string]any)[roleID].(map[string]any))["AssumeRolePolicyDocument"])
	if !strings.Contains(trust, "scheduler.amazonaws.com") || !strings.Contains(trust, "aws:SourceAccount") {
		t.Errorf("the schedule's role trusts %s, want EventBridge Scheduler of this account", trust)
	}
}

// checkReconcilePolicy: the function's DynamoDB statements are
// reconciler.FunctionAccess on the table, its writes conditioned on the
// control partitions; besides, only its logs, tracing and the table's key.
func checkReconcilePolicy(t *testing.T, s *synthesized, fn map[string]any, tableID string) {
	t.Helper()
	roleID := props(fn)["Role"].(map[string]any)["Fn::GetAtt"].([]any)[0].(string)
	acc := reconciler.FunctionAccess()
	var actions []string
	for _, st := range roleStatements(s, roleID) {
		stmt, names := st.statement, st.actions
		actions = append(actions, names...)
		if !strings.HasPrefix(names[0], "dynamodb:") {
			continue
		}
		if !reflect.DeepEqual(stmt["Resource"], getAtt(tableID)) {
			t.Errorf("%v on %v, want the table only", names, compact(stmt["Resource"]))
		}
		cond := compact(stmt["Condition"])
		switch {
		case reflect.DeepEqual(names, acc.ReadActions):
			if stmt["Condition"] != nil {
				t.Errorf("reads conditioned: %s", cond)
			}
		case reflect.DeepEqual(names, acc.WriteActions):
			want := compact(map[string]any{"ForAllValues:StringLike": map[string]any{"dynamodb:LeadingKeys": acc.WritePartitions}})
			if cond != want {
				t.Errorf("writes %v conditioned on %s, want %s", names, cond, want)
			}
		default:
			t.Errorf("DynamoDB statement %v is neither FunctionAccess's reads nor its writes", names)
		}
	}
	sort.Strings(actions)
	want := append(append([]string{"logs:CreateLogStream", "logs:PutLogEvents", "xray:PutTelemetryRecords", "xray:PutTraceSegments"},
		acc.ReadActions...), acc.WriteActions...)
	if s.table.Key != nil {
		want = append(want, "kms:Decrypt", "kms:DescribeKey", "kms:Encrypt", "kms:GenerateDataKey")
	}
	sort.Strings(want)
	if !reflect.DeepEqual(slices.Compact(actions), want) {
		t.Errorf("the role allows %v, want exactly %v", slices.Compact(actions), want)
	}
}

// checkReconcileAlarms: Violations pages at 1, PassCompleted below 1 for 6
// hourly periods (missing data breaches) opens a ticket.
func checkReconcileAlarms(t *testing.T, s *synthesized, tableID string) {
	t.Helper()
	found := map[string]bool{}
	for _, a := range s.ops.Alarms {
		if a.Kind != oncall.ReconcileViolations && a.Kind != oncall.ReconcileStalled {
			continue
		}
		found[a.Kind.Name] = true
		p := alarmResource(t, s, a.Alarm)
		if p["Namespace"] != obs.ReconcileNamespace || !reflect.DeepEqual(p["Dimensions"], []any{map[string]any{"Name": "Table", "Value": ref(tableID)}}) {
			t.Errorf("%s: on %v %v, want %s by the table", a.Kind.Name, p["Namespace"], p["Dimensions"], obs.ReconcileNamespace)
		}
		type shape struct {
			metric, stat, op, missing, threshold, period, evaluations any
		}
		got := shape{p["MetricName"], p["Statistic"], p["ComparisonOperator"], p["TreatMissingData"], p["Threshold"], p["Period"], p["EvaluationPeriods"]}
		want := map[string]shape{
			oncall.ReconcileViolations.Name: {obs.ReconcileViolations, "Maximum", "GreaterThanOrEqualToThreshold", "notBreaching", 1.0, 300.0, 1.0},
			oncall.ReconcileStalled.Name:    {obs.ReconcilePassCompleted, "Sum", "LessThanThreshold", "breaching", 1.0, 3600.0, 6.0},
		}[a.Kind.Name]
		if got != want || datapoints(p) != want.evaluations.(float64) {
			t.Errorf("%s: %+v (datapoints %v), want %+v", a.Kind.Name, got, datapoints(p), want)
		}
	}
	if len(found) != 2 {
		t.Errorf("reconcile alarms %v, want reconcile-violations and reconcile-stalled", found)
	}
}
