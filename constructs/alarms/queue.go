package alarms

import (
	"fmt"
	"time"

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

// QueueDepthWidget graphs the visible messages and the age of the oldest
// message of dead-letter queues, the two things their runbook asks first.
func QueueDepthWidget(title string, queues ...awssqs.IQueue) awscloudwatch.IWidget {
	period := awscdk.Duration_Minutes(jsii.Number(5))
	var depth, age []awscloudwatch.IMetric
	for _, q := range queues {
		depth = append(depth, q.MetricApproximateNumberOfMessagesVisible(&awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("Maximum")}))
		age = append(age, q.MetricApproximateAgeOfOldestMessage(&awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("Maximum")}))
	}
	return awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
		Title: jsii.String(title), Width: jsii.Number(12),
		Left: &depth, Right: &age,
		LeftYAxis:  &awscloudwatch.YAxisProps{Label: jsii.String("messages"), ShowUnits: jsii.Bool(false)},
		RightYAxis: &awscloudwatch.YAxisProps{Label: jsii.String("oldest (s)"), ShowUnits: jsii.Bool(false)},
	})
}

// Span writes d for an alarm description: "5 minutes", "1 hour",
// "90 seconds".
func Span(d time.Duration) string {
	unit := func(n int64, name string) string {
		if n == 1 {
			return "1 " + name
		}
		return fmt.Sprintf("%d %ss", n, name)
	}
	switch {
	case d >= time.Hour && d%time.Hour == 0:
		return unit(int64(d/time.Hour), "hour")
	case d >= time.Minute && d%time.Minute == 0:
		return unit(int64(d/time.Minute), "minute")
	default:
		return unit(int64(d/time.Second), "second")
	}
}
