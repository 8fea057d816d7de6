package cdk

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"

	"github.com/oncetable/oncetable/constructs/alarms"
	"github.com/oncetable/oncetable/runtime/config"
	"github.com/oncetable/oncetable/stacks"
	"github.com/oncetable/oncetable/stacks/envconfig"
)

// secretName matches variable names that say they hold a secret value.
var secretName = regexp.MustCompile(`(?i)(secret|password|passwd|token|private_?key|api_?key|credential)`)

// TestLambdaEnvironmentHoldsNoSecret: no function's configuration carries a
// secret: no dynamic reference ({{resolve:...}}), which CloudFormation
// would resolve into the clear-text environment, and no variable named like
// a secret unless it only names one (…_ARN).
func TestLambdaEnvironmentHoldsNoSecret(t *testing.T) {
	for name, s := range nagStacks() {
		t.Run(name, func(t *testing.T) {
			for id, r := range resources(s, "AWS::Lambda::Function") {
				env, _ := props(r)["Environment"].(map[string]any)
				vars, _ := env["Variables"].(map[string]any)
				for k, v := range vars {
					if raw := compact(v); strings.Contains(raw, "{{resolve:") {
						t.Errorf("%s: %s = %s is a dynamic reference: CloudFormation puts its value in the configuration", id, k, raw)
					}
					if secretName.MatchString(k) && !strings.HasSuffix(k, "_ARN") {
						t.Errorf("%s: %s = %s looks like a secret in the configuration; pass its ARN and read it at run time", id, k, compact(v))
					}
				}
			}
		})
	}
}

// TestCursorSecret: the api function reads the secret at run time by ARN
// and may only GetSecretValue on it; the secret rotates every 30 days
// through its rotation function, which only Secrets Manager may invoke for
// this secret; in prod the secret uses the environment's key and is kept.
func TestCursorSecret(t *testing.T) {
	for _, tc := range computeCases {
		t.Run(tc.env, func(t *testing.T) {
			s := stackOf(tc.env)
			secretID, secret := only(t, s, "AWS::SecretsManager::Secret")
			wantPolicy := tc.deletionPolicy // the secret follows the environment's removal policy, like its logs
			if secret["DeletionPolicy"] != wantPolicy {
				t.Errorf("secret DeletionPolicy %v, want %s", secret["DeletionPolicy"], wantPolicy)
			}
			key, hasKey := props(secret)["KmsKeyId"]
			if hasKey != tc.tableKey || (tc.tableKey && !reflect.DeepEqual(key, getAtt(logicalID(s, s.table.Key)))) {
				t.Errorf("secret KmsKeyId %v, want the table's key: %v", key, tc.tableKey)
			}
			api := s.payments.Functions["api"]
			env := props(s.json["Resources"].(map[string]any)[logicalID(s, api.Function)].(map[string]any))["Environment"].(map[string]any)["Variables"].(map[string]any)
			if !reflect.DeepEqual(env[config.CursorSecretARNEnv], ref(secretID)) {
				t.Errorf("api %s = %v, want Ref %s", config.CursorSecretARNEnv, env[config.CursorSecretARNEnv], secretID)
			}
			rotationID := logicalID(s, s.payments.RotationFunction.Function)
			_, schedule := only(t, s, "AWS::SecretsManager::RotationSchedule")
			wantSchedule := map[string]any{"SecretId": ref(secretID), "RotationLambdaARN": getAtt(rotationID),
				"RotationRules": map[string]any{"ScheduleExpression": "rate(30 days)"}}
			if !reflect.DeepEqual(props(schedule), wantSchedule) {
				t.Errorf("rotation schedule %v, want %v", props(schedule), wantSchedule)
			}
			check(t, "only Secrets Manager, for this secret of this account, invokes the rotation function", func() {
				s.template.HasResourceProperties(jsii.String("AWS::Lambda::Permission"), map[string]any{
					"FunctionName": getAtt(rotationID), "Principal": "secretsmanager.amazonaws.com",
					"SourceArn": ref(secretID), "SourceAccount": ref("AWS::AccountId"),
				})
			})
			for id, r := range resources(s, "AWS::IAM::Policy") {
				for _, st := range props(r)["PolicyDocument"].(map[string]any)["Statement"].([]any) {
					stmt := st.(map[string]any)
					if !strings.Contains(compact(stmt["Action"]), "secretsmanager:") {
						continue
					}
					if !reflect.DeepEqual(stmt["Resource"], ref(secretID)) {
						t.Errorf("%s: %v on %v, want the cursor secret only", id, stmt["Action"], stmt["Resource"])
					}
				}
			}
		})
	}
}

// TestAlarmTopicPublishersAreConditioned: every service principal that may
// publish to the alarm topic or use its key is held to this account's
// alarms (aws:SourceAccount and aws:SourceArn); EventBridge publishes
// through a role only these rules of this account may assume; the Chatbot
// role trusts only this channel configuration of this account.
func TestAlarmTopicPublishersAreConditioned(t *testing.T) {
	conditioned := func(t *testing.T, where string, statements []any) {
		t.Helper()
		for _, st := range statements {
			stmt := st.(map[string]any)
			principal, _ := stmt["Principal"].(map[string]any)
			if stmt["Effect"] != "Allow" || principal["Service"] == nil {
				continue
			}
			cond := compact(stmt["Condition"])
			if !strings.Contains(cond, `"aws:SourceAccount"`) || !strings.Contains(cond, `"aws:SourceArn"`) {
				t.Errorf("%s: statement for %v has no aws:SourceAccount and aws:SourceArn condition: %s", where, principal["Service"], compact(stmt))
			}
		}
	}
	statements := func(doc any) []any { return doc.(map[string]any)["Statement"].([]any) }
	for _, env := range envs {
		t.Run(env, func(t *testing.T) {
			s := byEnv[env]
			topicID := logicalID(s, s.ops.Ticket.Topic) // the failed-jobs events
			if n := len(resources(s, "AWS::SNS::TopicPolicy")); n != 2 {
				t.Errorf("got %d topic policies, want the page and the ticket topic's", n)
			}
			for id, r := range resources(s, "AWS::SNS::TopicPolicy") {
				conditioned(t, id, statements(props(r)["PolicyDocument"]))
				if strings.Contains(compact(r), "events.amazonaws.com") {
					t.Errorf("%s: the topic policy admits events.amazonaws.com, which any account's rule can use", id)
				}
			}
			keyID := logicalID(s, s.ops.Key)
			conditioned(t, keyID, statements(props(s.json["Resources"].(map[string]any)[keyID].(map[string]any))["KeyPolicy"]))
			rules := resources(s, "AWS::Events::Rule")
			for id := range rules {
				if strings.Contains(id, "RestoreValidationRule") {
					delete(rules, id) // its target is a function: TestRestoreValidation
				}
			}
			if len(rules) != 2 {
				t.Fatalf("got %d rules, want FailedJobs and FailedRestores", len(rules))
			}
			for _, rule := range rules {
				target := props(rule)["Targets"].([]any)[0].(map[string]any)
				if !reflect.DeepEqual(target["Arn"], ref(topicID)) || target["RoleArn"] == nil {
					t.Fatalf("failed-jobs target %v, want the topic through a role", target)
				}
				roleID := target["RoleArn"].(map[string]any)["Fn::GetAtt"].([]any)[0].(string)
				role := props(s.json["Resources"].(map[string]any)[roleID].(map[string]any))
				conditioned(t, roleID, statements(role["AssumeRolePolicyDocument"]))
				if want := fmt.Sprint(props(rule)["Name"]); !strings.Contains(compact(role["AssumeRolePolicyDocument"]), ":rule/"+want) {
					t.Errorf("role %s trusts %s, want the rule %s", roleID, compact(role["AssumeRolePolicyDocument"]), want)
				}
			}
			for id, r := range resources(s, "AWS::Chatbot::SlackChannelConfiguration") {
				chatRole := props(r)["IamRoleArn"].(map[string]any)["Fn::GetAtt"].([]any)[0].(string)
				conditioned(t, id, statements(props(s.json["Resources"].(map[string]any)[chatRole].(map[string]any))["AssumeRolePolicyDocument"]))
			}
		})
	}
}

// TestMoneyFunctionsHaveReservedConcurrency: prod reserves concurrency per
// function, so the api function cannot take the money flows' share.
func TestMoneyFunctionsHaveReservedConcurrency(t *testing.T) {
	want := map[string]float64{"api": 100, "charge": 200, "debit": 200, "settle": 100}
	s := byEnv["prod"]
	for name, fn := range s.payments.Functions {
		p := props(s.json["Resources"].(map[string]any)[logicalID(s, fn.Function)].(map[string]any))
		if got := p["ReservedConcurrentExecutions"]; got != want[name] {
			t.Errorf("%s: ReservedConcurrentExecutions %v, want %v", name, got, want[name])
		}
	}
}

// TestBackupSilenceAndRestoreTesting: no completed backup job for 26 hours
// pages the topic; restore tests run monthly in prod, weekly in staging,
// never in dev, and restore the table from the vault.
func TestBackupSilenceAndRestoreTesting(t *testing.T) {
	tests := []struct{ env, cron string }{
		{"dev", ""}, {"staging", "cron(0 6 ? * SUN *)"}, {"prod", "cron(0 6 2 * ? *)"},
	}
	for _, tt := range tests {
		t.Run(tt.env, func(t *testing.T) {
			s := byEnv[tt.env]
			topicID := logicalID(s, s.ops.Page.Topic) // backup-missing pages in every environment
			vaultID, _ := only(t, s, "AWS::Backup::BackupVault")
			check(t, "no completed backup for 26 hours alarms", func() {
				s.template.HasResourceProperties(jsii.String("AWS::CloudWatch::Alarm"), map[string]any{
					"Namespace": "AWS/Backup", "MetricName": "NumberOfBackupJobsCompleted",
					"Dimensions": []any{map[string]any{"Name": "BackupVaultName", "Value": map[string]any{"Fn::GetAtt": []any{vaultID, "BackupVaultName"}}}},
					"Statistic":  "Sum", "Period": 3600, "EvaluationPeriods": 26, "DatapointsToAlarm": 26,
					"Threshold": 1, "ComparisonOperator": "LessThanThreshold", "TreatMissingData": "breaching",
					"AlarmActions": []any{ref(topicID)}, "OKActions": []any{ref(topicID)},
				})
			})
			plans := resources(s, "AWS::Backup::RestoreTestingPlan")
			if tt.cron == "" {
				if len(plans) != 0 {
					t.Errorf("got %d restore testing plans, want none", len(plans))
				}
				return
			}
			_, plan := only(t, s, "AWS::Backup::RestoreTestingPlan")
			p := props(plan)
			sel := p["RecoveryPointSelection"].(map[string]any)
			vaultArn := map[string]any{"Fn::GetAtt": []any{vaultID, "BackupVaultArn"}}
			if p["ScheduleExpression"] != tt.cron || !reflect.DeepEqual(sel["IncludeVaults"], []any{vaultArn}) || sel["Algorithm"] != "LATEST_WITHIN_WINDOW" {
				t.Errorf("restore testing plan %v, want %s over the vault's latest recovery point", p, tt.cron)
			}
			tableID := logicalID(s, s.table.Table)
			check(t, "the table is the restore test's selection", func() {
				s.template.HasResourceProperties(jsii.String("AWS::Backup::RestoreTestingSelection"), map[string]any{
					"ProtectedResourceType": "DynamoDB", "ProtectedResourceArns": []any{getAtt(tableID)},
					"RestoreTestingPlanName": p["RestoreTestingPlanName"],
				})
			})
		})
	}
}

// TestDisasterRecovery: prod copies daily and monthly recovery points to a
// vault in eu-central-1, locked in compliance mode like the primary, held
// by a stack of its own; dev and staging have none.
func TestDisasterRecovery(t *testing.T) {
	for _, env := range []string{"dev", "staging"} {
		if _, ok := drStacks[env]; ok {
			t.Errorf("%s has a DR stack", env)
		}
	}
	dr, ok := drStacks["prod"]
	if !ok {
		t.Fatal("prod has no DR stack")
	}
	if got := *dr.stack.StackName(); got != stacks.DRStackName("prod") || *dr.stack.Region() != "eu-central-1" {
		t.Errorf("DR stack %s in %s, want %s in eu-central-1", got, *dr.stack.Region(), stacks.DRStackName("prod"))
	}
	_, vault := only(t, dr, "AWS::Backup::BackupVault")
	wantLock := map[string]any{"MinRetentionDays": 7.0, "MaxRetentionDays": 400.0, "ChangeableForDays": 3.0}
	if p := props(vault); p["BackupVaultName"] != stacks.DRVaultName("prod") || !reflect.DeepEqual(p["LockConfiguration"], wantLock) || p["EncryptionKeyArn"] == nil {
		t.Errorf("DR vault %v, want %s locked %v with its own key", p, stacks.DRVaultName("prod"), wantLock)
	}
	if vault["DeletionPolicy"] != "RetainExceptOnCreate" {
		t.Errorf("DR vault DeletionPolicy %v, want RetainExceptOnCreate", vault["DeletionPolicy"])
	}
	_, plan := only(t, byEnv["prod"], "AWS::Backup::BackupPlan")
	// Every rule of the plan reaches DR, the weekly one included.
	want := map[string]float64{"Daily": 35, "Weekly": 91, "Monthly": 365}
	got := map[string]float64{}
	for _, r := range props(plan)["BackupPlan"].(map[string]any)["BackupPlanRule"].([]any) {
		rule := r.(map[string]any)
		for _, c := range asList(rule["CopyActions"]) {
			action := c.(map[string]any)
			dest := compact(action["DestinationBackupVaultArn"])
			if !strings.Contains(dest, ":backup:eu-central-1:") || !strings.Contains(dest, "backup-vault:"+stacks.DRVaultName("prod")) {
				t.Errorf("rule %v copies to %s, want the DR vault", rule["RuleName"], dest)
			}
			got[rule["RuleName"].(string)] = action["Lifecycle"].(map[string]any)["DeleteAfterDays"].(float64)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("copies (rule: days) %v, want %v", got, want)
	}
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// TestOperationsSubscribers: a severity with no subscriber synthesizes
// with a warning naming it (cdk.json commits none: prod's pager comes at
// deploy time); prod deployed with its Slack IDs has both, and its stacks
// are pinned to the account given at deploy time.
func TestOperationsSubscribers(t *testing.T) {
	for env, want := range map[string][]string{"dev": {"page", "ticket"}, "staging": {"page", "ticket"}, "prod": {"page", "ticket"}} {
		t.Run(env, func(t *testing.T) {
			if got := noSubscriber(byEnv[env]); !reflect.DeepEqual(got, want) {
				t.Errorf("no-subscriber warnings for %v, want %v (id %s)", got, want, alarms.NoSubscriberWarning)
			}
		})
	}
	t.Run("prod deployed", func(t *testing.T) {
		if got := noSubscriber(deployed); len(got) > 0 {
			t.Errorf("prod deployed with Slack IDs warns of no subscriber for %v", got)
		}
		check(t, "the pager's HTTPS endpoint subscribes to the page topic", func() {
			deployed.template.HasResourceProperties(jsii.String("AWS::SNS::Subscription"), map[string]any{
				"Protocol": "https", "Endpoint": deployedPager, "TopicArn": ref(logicalID(deployed, deployed.ops.Page.Topic)),
				"RedrivePolicy": map[string]any{"deadLetterTargetArn": getAtt(logicalID(deployed, deployed.ops.SubscriptionsDLQ))},
			})
		})
		for _, s := range []*synthesized{deployed, deployedDR} {
			if got, want := *s.stack.Account(), deployTimeContext[envconfig.AccountKey]; got != want {
				t.Errorf("%s: account %q, want the one given at deploy time, %q", *s.stack.StackName(), got, want)
			}
		}
	})
}

// noSubscriber lists the severities whose topic warns of no subscriber.
func noSubscriber(s *synthesized) []string {
	found := strings.Join(messages(assertions.Annotations_FromStack(s.stack).FindWarning(jsii.String("*"),
		assertions.Match_StringLikeRegexp(jsii.String(".*no subscriber.*")))), " ")
	var out []string
	for _, sev := range []string{"page", "ticket"} {
		if strings.Contains(found, "The "+sev+" topic has no subscriber") {
			out = append(out, sev)
		}
	}
	return out
}

// TestOnDemandMaximumThroughput: the on-demand environments cap reads and
// writes per second on the table and every index (the cost guard); the
// provisioned one has no cap to set.
func TestOnDemandMaximumThroughput(t *testing.T) {
	tests := []struct {
		env         string
		read, write float64 // 0: no cap
	}{{"dev", 200, 100}, {"staging", 0, 0}, {"prod", 4000, 4000}}
	for _, tt := range tests {
		t.Run(tt.env, func(t *testing.T) {
			_, table := dataTable(t, byEnv[tt.env])
			p := props(table)
			replica := p["Replicas"].([]any)[0].(map[string]any)
			wantWrite, wantRead := any(nil), any(nil)
			if tt.write > 0 {
				wantWrite = map[string]any{"MaxWriteRequestUnits": tt.write}
				wantRead = map[string]any{"MaxReadRequestUnits": tt.read}
			}
			scopes := []struct {
				name        string
				write, read any
			}{{"table", p["WriteOnDemandThroughputSettings"], replica["ReadOnDemandThroughputSettings"]}}
			for i, gsi := range asList(p["GlobalSecondaryIndexes"]) {
				var read any
				if rg := asList(replica["GlobalSecondaryIndexes"]); i < len(rg) {
					read = rg[i].(map[string]any)["ReadOnDemandThroughputSettings"]
				}
				scopes = append(scopes, struct {
					name        string
					write, read any
				}{gsi.(map[string]any)["IndexName"].(string), gsi.(map[string]any)["WriteOnDemandThroughputSettings"], read})
			}
			for _, sc := range scopes {
				if !reflect.DeepEqual(sc.write, wantWrite) || !reflect.DeepEqual(sc.read, wantRead) {
					t.Errorf("%s: write %v read %v, want %v and %v", sc.name, sc.write, sc.read, wantWrite, wantRead)
				}
			}
			if len(scopes) != 1+len(indexNames()) {
				t.Errorf("checked %d scopes, want the table and %d indexes", len(scopes), len(indexNames()))
			}
		})
	}
}
