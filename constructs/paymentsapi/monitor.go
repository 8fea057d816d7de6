package paymentsapi

import (
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/jsii-runtime-go"

	"github.com/oncetable/oncetable/constructs/gofunction"
)

// monitor adds the API alarms (5xx, p99 latency) and each function's
// Errors, Throttles and Duration alarms, with widgets, to p.Monitor.
func (a *PaymentsAPI) monitor(p Props) {
	period := awscdk.Duration_Minutes(jsii.Number(5))
	sum := &awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("Sum")}
	p99 := &awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("p99")}
	serverErrors := a.Stage.MetricServerError(sum)
	latency := a.Stage.MetricLatency(p99)
	latencyMs := float64(p.LatencyP99.Milliseconds())
	a.Alarms = append(a.Alarms,
		awscloudwatch.NewAlarm(a.Construct, jsii.String("ServerErrorsAlarm"), &awscloudwatch.AlarmProps{
			AlarmDescription: jsii.String(fmt.Sprintf("payments API: %d or more 5xx answers in 5 minutes", p.ServerErrors)),
			Metric:           serverErrors, Threshold: jsii.Number(float64(p.ServerErrors)), EvaluationPeriods: jsii.Number(1),
			ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
			TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
		}),
		awscloudwatch.NewAlarm(a.Construct, jsii.String("LatencyAlarm"), &awscloudwatch.AlarmProps{
			AlarmDescription: jsii.String(fmt.Sprintf("payments API: p99 latency at or above %s in 2 of 3 periods of 5 minutes", p.LatencyP99)),
			Metric:           latency, Threshold: jsii.Number(latencyMs),
			EvaluationPeriods: jsii.Number(3), DatapointsToAlarm: jsii.Number(2),
			ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
			TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
		}),
	)
	if p.Monitor != nil {
		for _, al := range a.Alarms {
			p.Monitor.AddAlarm(al)
		}
		p.Monitor.AddWidgets(
			awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
				Title: jsii.String("Payments API: requests, 4xx, 5xx"), Width: jsii.Number(12),
				Left: &[]awscloudwatch.IMetric{a.Stage.MetricCount(sum), a.Stage.MetricClientError(sum), serverErrors},
			}),
			awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
				Title: jsii.String("Payments API: latency p99 and integration latency p99 (ms)"), Width: jsii.Number(12),
				Left:            &[]awscloudwatch.IMetric{latency, a.Stage.MetricIntegrationLatency(p99)},
				LeftAnnotations: &[]*awscloudwatch.HorizontalAnnotation{{Label: jsii.String("alarm"), Value: jsii.Number(latencyMs)}},
			}),
		)
	}
	for _, name := range Functions() {
		a.Alarms = append(a.Alarms, a.Functions[name].Monitor(p.Monitor, &gofunction.AlarmProps{Name: name})...)
	}
	// A failed rotation leaves the secret as it was (cursors keep working),
	// but it must not fail silently month after month.
	a.Alarms = append(a.Alarms, a.RotationFunction.Monitor(p.Monitor, &gofunction.AlarmProps{Name: RotationFunctionName})...)
}
