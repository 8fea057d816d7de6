package cdk

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"

	"github.com/oncetable/oncetable/constructs/alarms"
	"github.com/oncetable/oncetable/constructs/oncall"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/stacks/envconfig"
)

// resources returns the template's resources of one type, by logical ID.
func resources(s *synthesized, typ string) map[string]map[string]any {
	out := map[string]map[string]any{}
	for id, r := range s.json["Resources"].(map[string]any) {
		if m := r.(map[string]any); m["Type"] == typ {
			out[id] = m
		}
	}
	return out
}

// only returns the single resource of a type, failing the test otherwise.
func only(t *testing.T, s *synthesized, typ string) (string, map[string]any) {
	t.Helper()
	rs := resources(s, typ)
	if len(rs) != 1 {
		t.Fatalf("got %d %s resources, want 1", len(rs), typ)
	}
	for id, r := range rs {
		return id, r
	}
	panic("unreachable")
}

// dataTable is the stack's money table: its only global table but the
// lease table (constructs/regions) of an environment with regions.
func dataTable(t *testing.T, s *synthesized) (string, map[string]any) {
	t.Helper()
	var ids []string
	for id := range resources(s, "AWS::DynamoDB::GlobalTable") {
		if !strings.HasPrefix(id, "Leases") {
			ids = append(ids, id)
		}
	}
	if len(ids) != 1 {
		t.Fatalf("got %d money tables, want 1: %v", len(ids), ids)
	}
	return ids[0], resources(s, "AWS::DynamoDB::GlobalTable")[ids[0]]
}

// onlyNamed is only among the resources whose logical ID contains part.
func onlyNamed(t *testing.T, s *synthesized, typ, part string) (string, map[string]any) {
	t.Helper()
	var ids []string
	for id := range resources(s, typ) {
		if strings.Contains(id, part) {
			ids = append(ids, id)
		}
	}
	if len(ids) != 1 {
		t.Fatalf("got %d %s resources named like %s, want 1: %v", len(ids), typ, part, ids)
	}
	return ids[0], resources(s, typ)[ids[0]]
}

func props(r map[string]any) map[string]any { return r["Properties"].(map[string]any) }

func ref(id string) map[string]any { return map[string]any{"Ref": id} }

func TestTable(t *testing.T) {
	tests := []struct {
		env            string
		pitrDays       float64
		protected      bool
		deletionPolicy string
		billing        string
		customerKey    bool
	}{
		{"dev", 7, false, "Delete", "PAY_PER_REQUEST", false},
		{"staging", 14, false, "RetainExceptOnCreate", "PROVISIONED", false},
		{"prod", 35, true, "RetainExceptOnCreate", "PAY_PER_REQUEST", true},
		{"defaults", 35, true, "RetainExceptOnCreate", "PAY_PER_REQUEST", false},
	}
	for _, tt := range tests {
		t.Run(tt.env, func(t *testing.T) {
			// GIVEN the synthesized stack of the environment
			s := byEnv[tt.env]
			if tt.env == "defaults" {
				s = defaults
			}
			// WHEN we look at its table
			_, table := dataTable(t, s)
			p := props(table)
			replica := p["Replicas"].([]any)[0].(map[string]any)

			// THEN keys, indexes and TTL come from runtime/schema
			check(t, "keys, indexes and TTL", func() {
				s.template.HasResourceProperties(jsii.String("AWS::DynamoDB::GlobalTable"), map[string]any{
					"KeySchema": []any{
						map[string]any{"AttributeName": schema.PartitionKey, "KeyType": "HASH"},
						map[string]any{"AttributeName": schema.SortKey, "KeyType": "RANGE"},
					},
					"GlobalSecondaryIndexes":  expectedIndexes(),
					"TimeToLiveSpecification": map[string]any{"AttributeName": schema.TTLAttribute, "Enabled": true},
				})
			})
			for _, def := range p["AttributeDefinitions"].([]any) {
				if typ := def.(map[string]any)["AttributeType"]; typ != "S" {
					t.Errorf("attribute %v has type %v, want S (string keys)", def.(map[string]any)["AttributeName"], typ)
				}
			}
			// THEN PITR is on with the environment's recovery period
			wantPITR := map[string]any{"PointInTimeRecoveryEnabled": true, "RecoveryPeriodInDays": tt.pitrDays}
			if got := replica["PointInTimeRecoverySpecification"]; !reflect.DeepEqual(got, wantPITR) {
				t.Errorf("PITR: got %v, want %v", got, wantPITR)
			}
			// THEN deletion protection and the removal policy follow the environment
			if got := replica["DeletionProtectionEnabled"]; got != tt.protected {
				t.Errorf("DeletionProtectionEnabled: got %v, want %v", got, tt.protected)
			}
			// (RetainExceptOnCreate deletes what a failed first create made;
			// a replacement still keeps the old table.)
			wantReplace := strings.TrimSuffix(tt.deletionPolicy, "ExceptOnCreate")
			if table["DeletionPolicy"] != tt.deletionPolicy || table["UpdateReplacePolicy"] != wantReplace {
				t.Errorf("DeletionPolicy/UpdateReplacePolicy: got %v/%v, want %s", table["DeletionPolicy"], table["UpdateReplacePolicy"], tt.deletionPolicy)
			}
			// THEN the capacity mode and encryption follow the environment
			if got := p["BillingMode"]; got != tt.billing {
				t.Errorf("BillingMode: got %v, want %s", got, tt.billing)
			}
			sse, _ := p["SSESpecification"].(map[string]any)
			if got := sse["SSEType"] == "KMS" && sse["SSEEnabled"] == true; got != tt.customerKey {
				t.Errorf("customer-managed encryption: got SSESpecification %v, want KMS %v", sse, tt.customerKey)
			}
			if tt.customerKey {
				if _, ok := replica["SSESpecification"].(map[string]any)["KMSMasterKeyId"]; !ok {
					t.Errorf("replica has no KMSMasterKeyId: %v", replica["SSESpecification"])
				}
			}
		})
	}
}

func expectedIndexes() []any {
	var out []any
	for _, ix := range schema.Indexes() {
		projection := map[string]any{"ProjectionType": string(ix.Projection)}
		if len(ix.NonKeyAttributes) > 0 {
			var attrs []any
			for _, a := range ix.NonKeyAttributes {
				attrs = append(attrs, a)
			}
			projection["NonKeyAttributes"] = attrs
		}
		out = append(out, map[string]any{
			"IndexName": ix.Name,
			"KeySchema": []any{
				map[string]any{"AttributeName": ix.PartitionKey, "KeyType": "HASH"},
				map[string]any{"AttributeName": ix.SortKey, "KeyType": "RANGE"},
			},
			"Projection": projection,
		})
	}
	return out
}

func TestStagingAutoScaling(t *testing.T) {
	// GIVEN staging, configured with provisioned capacity 5..100 reads, 5..200 writes at 70%
	_, table := dataTable(t, byEnv["staging"])
	p := props(table)
	// THEN writes auto scale on the table and reads on the replica
	wantWrite := map[string]any{"WriteCapacityAutoScalingSettings": map[string]any{
		"MinCapacity": 5.0, "MaxCapacity": 200.0,
		"TargetTrackingScalingPolicyConfiguration": map[string]any{"TargetValue": 70.0},
	}}
	if got := p["WriteProvisionedThroughputSettings"]; !reflect.DeepEqual(got, wantWrite) {
		t.Errorf("write capacity: got %v, want %v", got, wantWrite)
	}
	replica := p["Replicas"].([]any)[0].(map[string]any)
	wantRead := map[string]any{"ReadCapacityAutoScalingSettings": map[string]any{
		"MinCapacity": 5.0, "MaxCapacity": 100.0,
		"TargetTrackingScalingPolicyConfiguration": map[string]any{"TargetValue": 70.0},
	}}
	if got := replica["ReadProvisionedThroughputSettings"]; !reflect.DeepEqual(got, wantRead) {
		t.Errorf("read capacity: got %v, want %v", got, wantRead)
	}
}

func TestVaultLockAndBackupPlan(t *testing.T) {
	tests := []struct {
		env       string
		lock      map[string]any
		retention map[string]float64 // rule name to days
	}{
		{"dev", map[string]any{"MinRetentionDays": 1.0, "MaxRetentionDays": 35.0}, map[string]float64{"Daily": 7}},
		{"staging", map[string]any{"MinRetentionDays": 7.0, "MaxRetentionDays": 90.0}, map[string]float64{"Daily": 14, "Weekly": 35}},
		// Compliance mode: ChangeableForDays is the cooling-off period before the lock becomes immutable.
		{"prod", map[string]any{"MinRetentionDays": 7.0, "MaxRetentionDays": 400.0, "ChangeableForDays": 3.0}, map[string]float64{"Daily": 35, "Weekly": 91, "Monthly": 365}},
	}
	for _, tt := range tests {
		t.Run(tt.env, func(t *testing.T) {
			s := byEnv[tt.env]
			// THEN the vault is locked as configured: governance has no ChangeableForDays
			vaultID, vault := only(t, s, "AWS::Backup::BackupVault")
			if got := props(vault)["LockConfiguration"]; !reflect.DeepEqual(got, tt.lock) {
				t.Errorf("LockConfiguration: got %v, want %v", got, tt.lock)
			}
			if _, ok := props(vault)["EncryptionKeyArn"]; !ok {
				t.Error("vault has no EncryptionKeyArn")
			}
			// THEN the plan has one rule per configured schedule, into the
			// vault, no two of them starting in the same hour (AWS Backup
			// runs one job per resource at a time)
			_, plan := only(t, s, "AWS::Backup::BackupPlan")
			got := map[string]float64{}
			hours := map[string]string{}
			for _, r := range props(plan)["BackupPlan"].(map[string]any)["BackupPlanRule"].([]any) {
				rule := r.(map[string]any)
				if f := strings.Fields(strings.Trim(rule["ScheduleExpression"].(string), "cron()")); len(f) != 6 || rule["StartWindowMinutes"] != 60.0 {
					t.Errorf("rule %v: schedule %v, start window %v minutes; want a cron expression, 60", rule["RuleName"], rule["ScheduleExpression"], rule["StartWindowMinutes"])
				} else if other, clash := hours[f[1]]; clash {
					t.Errorf("rules %v and %s both start at hour %s", rule["RuleName"], other, f[1])
				} else {
					hours[f[1]] = rule["RuleName"].(string)
				}
				got[rule["RuleName"].(string)] = rule["Lifecycle"].(map[string]any)["DeleteAfterDays"].(float64)
				wantVault := map[string]any{"Fn::GetAtt": []any{vaultID, "BackupVaultName"}}
				if !reflect.DeepEqual(rule["TargetBackupVault"], wantVault) {
					t.Errorf("rule %v targets %v, want %v", rule["RuleName"], rule["TargetBackupVault"], wantVault)
				}
			}
			if !reflect.DeepEqual(got, tt.retention) {
				t.Errorf("rules: got %v, want %v", got, tt.retention)
			}
			// THEN the selection is the table
			tableID, _ := dataTable(t, s)
			check(t, "backup selection of the table", func() {
				s.template.HasResourceProperties(jsii.String("AWS::Backup::BackupSelection"), map[string]any{
					"BackupSelection": assertions.Match_ObjectLike(&map[string]any{
						"Resources": []any{map[string]any{"Fn::GetAtt": []any{tableID, "Arn"}}},
					}),
				})
			})
			// THEN failed backup, restore and copy jobs reach the ticket topic
			// (their details; the alarm on them pages: TestAlarmRouting)
			topicID := logicalID(s, s.ops.Ticket.Topic)
			// (test/eventrules matches these patterns against AWS's sample
			// events: backup and copy jobs carry detail.state, restore jobs
			// detail.status.)
			for _, rule := range []map[string]any{
				{"detail-type": []any{"Backup Job State Change", "Copy Job State Change"}, "detail": map[string]any{"state": []any{"FAILED", "ABORTED", "EXPIRED"}}},
				{"detail-type": []any{"Restore Job State Change"}, "detail": map[string]any{"status": []any{"FAILED", "ABORTED", "EXPIRED"}}},
			} {
				rule["source"] = []any{"aws.backup"}
				check(t, fmt.Sprintf("failed jobs rule %v", rule["detail-type"]), func() {
					s.template.HasResourceProperties(jsii.String("AWS::Events::Rule"), map[string]any{
						"EventPattern": rule,
						"Targets":      []any{assertions.Match_ObjectLike(&map[string]any{"Arn": ref(topicID)})},
					})
				})
			}
			// THEN an event the rule cannot deliver lands in an encrypted,
			// TLS-only dead-letter queue that alarms on the topic
			dlqID, dlq := onlyNamed(t, s, "AWS::SQS::Queue", "FailedJobsDLQ")
			if p := props(dlq); p["SqsManagedSseEnabled"] != true || p["MessageRetentionPeriod"] != float64(14*24*3600) {
				t.Errorf("dead-letter queue: %v, want SQS-managed encryption and 14 days' retention", p)
			}
			check(t, "failed jobs target's dead-letter queue", func() {
				s.template.HasResourceProperties(jsii.String("AWS::Events::Rule"), map[string]any{
					"Targets": []any{assertions.Match_ObjectLike(&map[string]any{
						"DeadLetterConfig": map[string]any{"Arn": map[string]any{"Fn::GetAtt": []any{dlqID, "Arn"}}},
					})},
				})
			})
			check(t, "TLS-only dead-letter queue that EventBridge may send to", func() {
				s.template.HasResourceProperties(jsii.String("AWS::SQS::QueuePolicy"), map[string]any{
					"PolicyDocument": assertions.Match_ObjectLike(&map[string]any{
						"Statement": assertions.Match_ArrayWith(&[]any{
							assertions.Match_ObjectLike(&map[string]any{"Effect": "Deny", "Condition": map[string]any{"Bool": map[string]any{"aws:SecureTransport": "false"}}}),
							assertions.Match_ObjectLike(&map[string]any{"Effect": "Allow", "Action": "sqs:SendMessage", "Principal": map[string]any{"Service": "events.amazonaws.com"}}),
						}),
					}),
				})
			})
			check(t, "dead-letter queue alarm", func() {
				s.template.HasResourceProperties(jsii.String("AWS::CloudWatch::Alarm"), map[string]any{
					"Namespace":          "AWS/SQS",
					"MetricName":         "ApproximateNumberOfMessagesVisible",
					"Dimensions":         []any{map[string]any{"Name": "QueueName", "Value": map[string]any{"Fn::GetAtt": []any{dlqID, "QueueName"}}}},
					"Threshold":          0,
					"ComparisonOperator": "GreaterThanThreshold",
					"AlarmActions":       []any{ref(topicID)},
					"OKActions":          []any{ref(topicID)},
				})
			})
		})
	}
}

func TestTopicIsEncryptedAndTLSOnly(t *testing.T) {
	for _, env := range envs {
		for _, ch := range []*alarms.Channel{byEnv[env].ops.Page, byEnv[env].ops.Ticket} {
			t.Run(env+"/"+string(ch.Severity), func(t *testing.T) {
				s := byEnv[env]
				topicID := logicalID(s, ch.Topic)
				topic := s.json["Resources"].(map[string]any)[topicID].(map[string]any)
				if got, want := props(topic)["KmsMasterKeyId"], map[string]any{"Fn::GetAtt": []any{logicalID(s, s.ops.Key), "Arn"}}; !reflect.DeepEqual(got, want) {
					t.Errorf("topic KmsMasterKeyId %v, want the topic key %v", got, want)
				}
				check(t, "TLS-only topic policy", func() {
					s.template.HasResourceProperties(jsii.String("AWS::SNS::TopicPolicy"), map[string]any{
						"PolicyDocument": assertions.Match_ObjectLike(&map[string]any{
							"Statement": assertions.Match_ArrayWith(&[]any{assertions.Match_ObjectLike(&map[string]any{
								"Effect":    "Deny",
								"Action":    "sns:Publish",
								"Condition": map[string]any{"Bool": map[string]any{"aws:SecureTransport": "false"}},
								"Resource":  ref(topicID),
							})}),
						}),
					})
				})
			})
		}
	}
}

// alarmKey names an alarm by its metric: name and index ("" for the table).
type alarmKey struct{ metric, index string }

// want is an alarm's threshold, evaluation periods and datapoints to alarm.
type want struct{ threshold, evaluations, datapoints float64 }

func TestAlarms(t *testing.T) {
	// Thresholds come from cdk.json; capacity budgets are units/s times the 300 s period.
	tests := map[string]map[alarmKey]want{
		"dev": {
			{"ConsumedReadCapacityUnits", ""}:  {100 * 300, 3, 3},
			{"ConsumedWriteCapacityUnits", ""}: {50 * 300, 3, 3},
			{"TransactionConflict", ""}:        {50, 3, 2},
			{"SystemErrors", ""}:               {5, 3, 2},
		},
		"staging": {
			{"ConsumedReadCapacityUnits", ""}:  {80 * 300, 3, 3},
			{"ConsumedWriteCapacityUnits", ""}: {40 * 300, 3, 3},
			{"TransactionConflict", ""}:        {50, 3, 2},
			{"SystemErrors", ""}:               {5, 3, 2},
		},
		"prod": {
			{"ConsumedReadCapacityUnits", ""}:  {500 * 300, 3, 3},
			{"ConsumedWriteCapacityUnits", ""}: {200 * 300, 3, 3},
			{"TransactionConflict", ""}:        {25, 3, 2},
			{"SystemErrors", ""}:               {1, 3, 2},
		},
	}
	throttles := map[string]float64{"dev": 10, "staging": 10, "prod": 5}
	// dev and prod are on-demand with a maximum throughput (the cost guard).
	onDemandMaximum := map[string]bool{"dev": true, "staging": false, "prod": true}
	for env, wants := range tests {
		for _, ix := range append([]string{""}, indexNames()...) {
			wants[alarmKey{"ReadThrottleEvents", ix}] = want{throttles[env], 3, 2}
			wants[alarmKey{"WriteThrottleEvents", ix}] = want{throttles[env], 3, 2}
			// Hot partitions, by the reason DynamoDB reports.
			wants[alarmKey{"ReadKeyRangeThroughputThrottleEvents", ix}] = want{throttles[env], 3, 2}
			wants[alarmKey{"WriteKeyRangeThroughputThrottleEvents", ix}] = want{throttles[env], 3, 2}
			if onDemandMaximum[env] {
				wants[alarmKey{"ReadMaxOnDemandThroughputThrottleEvents", ix}] = want{throttles[env], 3, 2}
				wants[alarmKey{"WriteMaxOnDemandThroughputThrottleEvents", ix}] = want{throttles[env], 3, 2}
			}
		}
		t.Run(env, func(t *testing.T) {
			s := byEnv[env]
			topicID := logicalID(s, s.ops.Ticket.Topic)
			tableID, _ := dataTable(t, s)
			got := map[alarmKey]want{}
			for _, a := range s.ops.Alarms {
				if a.Kind.Group != oncall.GroupTable || a.Kind == oncall.ReconcileViolations || a.Kind == oncall.ReconcileStalled ||
					a.Kind == oncall.OutsideOwnerWrites || a.Kind == oncall.LedgerMismatch || a.Kind == oncall.ReplicationLatency {
					continue // the others: TestComputeAlarms, TestVaultLockAndBackupPlan, TestAlarmRouting, TestReconcile, TestReplicatedTable
				}
				id := logicalID(s, a.Alarm)
				p := alarmResource(t, s, a.Alarm)
				key, err := alarmMetric(p, tableID)
				if err != nil {
					t.Errorf("alarm %s: %v", id, err)
					continue
				}
				if _, dup := got[key]; dup {
					t.Errorf("two alarms on %v", key)
				}
				got[key] = want{p["Threshold"].(float64), p["EvaluationPeriods"].(float64), p["DatapointsToAlarm"].(float64)}
				// THEN every table alarm is a ticket, on ALARM and on OK, and
				// missing data (no events) is not a breach
				actions := []any{ref(topicID)}
				if !reflect.DeepEqual(p["AlarmActions"], actions) || !reflect.DeepEqual(p["OKActions"], actions) {
					t.Errorf("alarm %v: actions %v / OK %v, want %v", key, p["AlarmActions"], p["OKActions"], actions)
				}
				if p["TreatMissingData"] != "notBreaching" || p["ComparisonOperator"] != "GreaterThanThreshold" {
					t.Errorf("alarm %v: TreatMissingData %v, ComparisonOperator %v", key, p["TreatMissingData"], p["ComparisonOperator"])
				}
			}
			if !reflect.DeepEqual(got, wants) {
				t.Errorf("alarms:\n got  %v\n want %v", sortedAlarms(got), sortedAlarms(wants))
			}
		})
	}
}

func indexNames() []string {
	var names []string
	for _, ix := range schema.Indexes() {
		names = append(names, ix.Name)
	}
	return names
}

// alarmMetric identifies an alarm's metric, checking it is on the table. The
// SystemErrors alarm is a sum over operations, so a math expression.
func alarmMetric(p map[string]any, tableID string) (alarmKey, error) {
	metrics, _ := p["Metrics"].([]any)
	if len(metrics) == 0 {
		return alarmKey{}, fmt.Errorf("no Metrics")
	}
	var key alarmKey
	for _, m := range metrics {
		stat, ok := m.(map[string]any)["MetricStat"].(map[string]any)
		if !ok {
			continue
		}
		metric := stat["Metric"].(map[string]any)
		if metric["Namespace"] != "AWS/DynamoDB" {
			return key, fmt.Errorf("namespace %v", metric["Namespace"])
		}
		k := alarmKey{metric: metric["MetricName"].(string)}
		table := false
		for _, d := range metric["Dimensions"].([]any) {
			dim := d.(map[string]any)
			switch dim["Name"] {
			case "TableName":
				table = reflect.DeepEqual(dim["Value"], ref(tableID))
			case "GlobalSecondaryIndexName":
				k.index = dim["Value"].(string)
			}
		}
		if !table {
			return key, fmt.Errorf("metric %s is not on the table", k.metric)
		}
		if key.metric != "" && key != k {
			return key, fmt.Errorf("mixes metrics %v and %v", key, k)
		}
		key = k
	}
	if key.metric == "ConditionalCheckFailedRequests" {
		return key, fmt.Errorf("ConditionalCheckFailedRequests is a business outcome and must never page")
	}
	return key, nil
}

func sortedAlarms(m map[alarmKey]want) string {
	var lines []string
	for k, v := range m {
		lines = append(lines, fmt.Sprintf("%s[%s]: > %g, %g of %g", k.metric, k.index, v.threshold, v.datapoints, v.evaluations))
	}
	sort.Strings(lines)
	return strings.Join(lines, "; ")
}

func TestDashboardShowsConditionalChecksWithoutPaging(t *testing.T) {
	for _, env := range envs {
		t.Run(env, func(t *testing.T) {
			_, dash := only(t, byEnv[env], "AWS::CloudWatch::Dashboard")
			body := compact(props(dash)["DashboardBody"])
			for _, metric := range []string{"ConditionalCheckFailedRequests", "ReadThrottleEvents", "WriteThrottleEvents", "TransactionConflict", "ConsumedReadCapacityUnits", "ConsumedWriteCapacityUnits", "SystemErrors",
				"ReadKeyRangeThroughputThrottleEvents", "WriteKeyRangeThroughputThrottleEvents", "ReadMaxOnDemandThroughputThrottleEvents",
				"WriteMaxOnDemandThroughputThrottleEvents", "ReadAccountLimitThrottleEvents", "WriteAccountLimitThrottleEvents"} {
				if !strings.Contains(body, metric) {
					t.Errorf("dashboard does not show %s", metric)
				}
			}
		})
	}
}

// TestChatbotOnlyWhereSlackIsConfigured: cdk.json holds no Slack ID, so no
// environment synthesizes a Chatbot channel from it; prod deployed with
// the IDs given at deploy time routes its topic to that channel.
func TestChatbotOnlyWhereSlackIsConfigured(t *testing.T) {
	for _, env := range envs {
		t.Run(env, func(t *testing.T) {
			check(t, "no Chatbot without Slack IDs", func() {
				byEnv[env].template.ResourceCountIs(jsii.String("AWS::Chatbot::SlackChannelConfiguration"), jsii.Number(0))
			})
		})
	}
	t.Run("prod deployed", func(t *testing.T) {
		s := deployed
		for topic, channel := range map[string]any{
			logicalID(s, s.ops.Page.Topic):   deployTimeContext[envconfig.SlackChannelIDKey],
			logicalID(s, s.ops.Ticket.Topic): deployTimeContext[envconfig.SlackTicketChannelIDKey],
		} {
			check(t, fmt.Sprintf("Chatbot routes %s to the channel %v given at deploy time", topic, channel), func() {
				s.template.HasResourceProperties(jsii.String("AWS::Chatbot::SlackChannelConfiguration"), map[string]any{
					"SlackWorkspaceId": deployTimeContext[envconfig.SlackWorkspaceIDKey],
					"SlackChannelId":   channel,
					"SnsTopicArns":     []any{ref(topic)},
					"GuardrailPolicies": []any{map[string]any{"Fn::Join": []any{"", []any{
						"arn:", ref("AWS::Partition"), ":iam::aws:policy/CloudWatchReadOnlyAccess",
					}}}},
				})
			})
		}
	})
}
