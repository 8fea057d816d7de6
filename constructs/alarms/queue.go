package alarms

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"
)

// DeadLetterQueue is a queue that keeps what another resource could not
// deliver or process, 14 days, encrypted with the SQS-managed key and
// reachable over TLS only. It has no dead-letter queue of its own: people
// read it after its alarm (see [QueueNotEmpty]); reason says so to cdk-nag,
// naming whose dead letters it holds.
func DeadLetterQueue(c constructs.Construct, id, reason string) awssqs.Queue {
	q := awssqs.NewQueue(c, jsii.String(id), &awssqs.QueueProps{
		Encryption:      awssqs.QueueEncryption_SQS_MANAGED,
		EnforceSSL:      jsii.Bool(true),
		RetentionPeriod: awscdk.Duration_Days(jsii.Number(14)),
	})
	cdknag.NagSuppressions_AddResourceSuppressions(q, &[]*cdknag.NagPackSuppression{
		{Id: jsii.String("AwsSolutions-SQS3"), Reason: jsii.String(reason)},
		{Id: jsii.String("Serverless-SQSRedrivePolicy"), Reason: jsii.String(reason)},
	}, jsii.Bool(false))
	return q
}

// QueueNotEmpty alarms as soon as q holds a message: the maximum of
// ApproximateNumberOfMessagesVisible over 5 minutes above 0 in one period,
// missing data not breaching. It wires no action.
func QueueNotEmpty(c constructs.Construct, id string, q awssqs.IQueue, description string) awscloudwatch.Alarm {
	return q.MetricApproximateNumberOfMessagesVisible(&awscloudwatch.MetricOptions{
		Period:    awscdk.Duration_Minutes(jsii.Number(5)),
		Statistic: jsii.String("Maximum"),
	}).CreateAlarm(c, jsii.String(id), &awscloudwatch.CreateAlarmOptions{
		AlarmDescription:   jsii.String(description),
		Threshold:          jsii.Number(0),
		EvaluationPeriods:  jsii.Number(1),
		ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_THRESHOLD,
		TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
	})
}
