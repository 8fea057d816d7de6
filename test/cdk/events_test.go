package cdk

import (
	"reflect"
	"strings"
	"testing"

	"github.com/aws/jsii-runtime-go"

	"github.com/oncetable/oncetable/runtime/config"
)

// TestPaymentEvents: every environment's table streams new and old images
// into the events function through a filtered mapping with cdk.json's
// batching, bisect, retries, record age and partial failures, and an
// encrypted TLS-only failure queue; the function may PutEvents on its own
// bus only and read that stream only; the bus archives for replays; the
// iterator age, the function's errors and the queue's depth page the topic.
func TestPaymentEvents(t *testing.T) {
	tests := []struct {
		env             string
		archiveDays     float64
		retries, ageSec float64
		deletionPolicy  string // of the bus, its archive and the failure queue
	}{{"dev", 7, 10, 86400, "Delete"}, {"staging", 30, 10, 86400, "RetainExceptOnCreate"}, {"prod", 365, 10, 86400, "RetainExceptOnCreate"}}
	for _, tt := range tests {
		t.Run(tt.env, func(t *testing.T) {
			s := byEnv[tt.env]
			tableID := logicalID(s, s.table.Table)
			_, table := dataTable(t, s)
			if got := props(table)["StreamSpecification"]; !reflect.DeepEqual(got, map[string]any{"StreamViewType": "NEW_AND_OLD_IMAGES"}) {
				t.Errorf("StreamSpecification %v, want NEW_AND_OLD_IMAGES", got)
			}
			streamArn := map[string]any{"Fn::GetAtt": []any{tableID, "StreamArn"}}
			fnID := logicalID(s, s.events.Function.Function)
			queueID := logicalID(s, s.events.FailureQueue)
			// Ledger entries, holds and refunds inserted; orders
			// (PaymentCreated, OrderPaid, OrderRefunded, OrderCancelled,
			// OrderShipped, OrderDelivered),
			// payments (PaymentProcessed) and holds (HoldCaptured,
			// HoldVoided) modified. A payment's INSERT carries no event and
			// does not invoke the function.
			pattern := func(eventName string, entityTypes ...any) any {
				return map[string]any{"Pattern": compact(map[string]any{
					"eventName": []any{eventName},
					"dynamodb":  map[string]any{"NewImage": map[string]any{"EntityType": map[string]any{"S": entityTypes}}},
				})}
			}
			check(t, "the stream mapping", func() {
				s.template.HasResourceProperties(jsii.String("AWS::Lambda::EventSourceMapping"), map[string]any{
					"FunctionName": ref(fnID), "EventSourceArn": streamArn, "StartingPosition": "TRIM_HORIZON",
					"BatchSize": 100, "MaximumBatchingWindowInSeconds": 1, "BisectBatchOnFunctionError": true,
					"MaximumRetryAttempts": tt.retries, "MaximumRecordAgeInSeconds": tt.ageSec,
					"FunctionResponseTypes": []any{"ReportBatchItemFailures"},
					"DestinationConfig":     map[string]any{"OnFailure": map[string]any{"Destination": getAtt(queueID)}},
					"FilterCriteria": map[string]any{"Filters": []any{
						pattern("INSERT", "LedgerEntry", "Hold", "Refund"),
						pattern("MODIFY", "Order", "Payment", "Hold"),
					}},
				})
			})
			if p := props(s.json["Resources"].(map[string]any)[queueID].(map[string]any)); p["SqsManagedSseEnabled"] != true {
				t.Errorf("failure queue %v, want SQS-managed encryption", p)
			}
			busID := logicalID(s, s.events.Bus)
			check(t, "an archive of the bus with cdk.json's retention", func() {
				s.template.HasResourceProperties(jsii.String("AWS::Events::Archive"), map[string]any{
					"SourceArn": getAtt(busID), "RetentionDays": tt.archiveDays,
				})
			})
			wantReplace := map[string]string{"Delete": "Delete", "RetainExceptOnCreate": "Retain"}[tt.deletionPolicy]
			for _, id := range []string{busID, logicalID(s, s.events.Archive), queueID} {
				r := s.json["Resources"].(map[string]any)[id].(map[string]any)
				if r["DeletionPolicy"] != tt.deletionPolicy || r["UpdateReplacePolicy"] != wantReplace {
					t.Errorf("%s: DeletionPolicy %v, UpdateReplacePolicy %v; want %s, the event history kept as the environment's data is", id, r["DeletionPolicy"], r["UpdateReplacePolicy"], tt.deletionPolicy)
				}
			}
			env := props(s.json["Resources"].(map[string]any)[fnID].(map[string]any))["Environment"].(map[string]any)["Variables"].(map[string]any)
			if !reflect.DeepEqual(env[config.EventBusNameEnv], ref(busID)) {
				t.Errorf("%s = %v, want the bus", config.EventBusNameEnv, env[config.EventBusNameEnv])
			}
			roleID := logicalID(s, s.events.Function.Role)
			var stmts []any
			for _, r := range resources(s, "AWS::IAM::Policy") {
				if p := props(r); reflect.DeepEqual(p["Roles"], []any{ref(roleID)}) {
					stmts = append(stmts, p["PolicyDocument"].(map[string]any)["Statement"].([]any)...)
				}
			}
			want := []any{
				map[string]any{"Sid": "WriteOwnLogs", "Effect": "Allow", "Action": []any{"logs:CreateLogStream", "logs:PutLogEvents"}, "Resource": getAtt(logicalID(s, s.events.Function.LogGroup))},
				map[string]any{"Effect": "Allow", "Action": []any{"xray:PutTraceSegments", "xray:PutTelemetryRecords"}, "Resource": "*"},
				map[string]any{"Sid": "PutPaymentEvents", "Effect": "Allow", "Action": "events:PutEvents", "Resource": getAtt(busID)},
				map[string]any{"Sid": "ReadTableStream", "Effect": "Allow", "Action": []any{"dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator"}, "Resource": streamArn},
				// The fourth action of AWSLambdaDynamoDBExecutionRole; it has
				// no resource-level permission.
				map[string]any{"Sid": "ListTableStreams", "Effect": "Allow", "Action": "dynamodb:ListStreams", "Resource": "*"},
				map[string]any{"Effect": "Allow", "Action": []any{"sqs:GetQueueAttributes", "sqs:GetQueueUrl", "sqs:SendMessage"}, "Resource": getAtt(queueID)},
			}
			if s.table.Key != nil {
				want = append(want, map[string]any{"Sid": "TableKeyViaDynamoDB", "Effect": "Allow", "Action": "kms:Decrypt",
					"Resource":  getAtt(logicalID(s, s.table.Key)),
					"Condition": map[string]any{"StringEquals": map[string]any{"kms:ViaService": "dynamodb.eu-west-1.amazonaws.com"}}})
			}
			if !reflect.DeepEqual(canonical(stmts), canonical(want)) {
				t.Errorf("events role statements\n got  %v\n want %v", canonical(stmts), canonical(want))
			}
			topic := []any{ref(logicalID(s, s.ops.Page.Topic))}
			check(t, "failure queue depth pages", func() {
				s.template.HasResourceProperties(jsii.String("AWS::CloudWatch::Alarm"), map[string]any{
					"Namespace": "AWS/SQS", "MetricName": "ApproximateNumberOfMessagesVisible",
					"Dimensions":   []any{map[string]any{"Name": "QueueName", "Value": map[string]any{"Fn::GetAtt": []any{queueID, "QueueName"}}}},
					"AlarmActions": topic, "OKActions": topic,
				})
			})
			// THEN the function's error rate is a ticket (the mapping retries;
			// lag and dead letters page), over its own Errors and Invocations
			errorsAlarm := alarmResource(t, s, s.events.Function.Construct.Node().FindChild(jsii.String("ErrorsAlarm")))
			if got := compact(errorsAlarm["Metrics"]); !strings.Contains(got, `"Value":{"Ref":"`+fnID+`"}`) || !strings.Contains(got, `"MetricName":"Errors"`) {
				t.Errorf("events ErrorsAlarm metrics %s, want the events function's Errors", got)
			}
			if ticket := []any{ref(logicalID(s, s.ops.Ticket.Topic))}; !reflect.DeepEqual(errorsAlarm["AlarmActions"], ticket) {
				t.Errorf("events ErrorsAlarm actions %v, want the ticket topic %v", errorsAlarm["AlarmActions"], ticket)
			}
		})
	}
}
