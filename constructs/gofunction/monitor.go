package gofunction

import (
	"cmp"
	"fmt"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/jsii-runtime-go"
)

// Monitor receives alarms and dashboard widgets; *alarms.Operations of
// constructs/alarms satisfies it, so alarms page the operations topic.
type Monitor interface {
	AddAlarm(alarms ...awscloudwatch.AlarmBase)
	AddWidgets(widgets ...awscloudwatch.IWidget)
}

// AlarmProps sets the thresholds of Function.Monitor. Zero values are the
// defaults.
type AlarmProps struct {
	// Name labels the alarms and widgets. Default: the construct id.
	Name string
	// Errors is the number of failed invocations (panics, timeouts,
	// crashes; problem+json answers are not errors) in Period that alarms.
	// Default: 1: a payment handler should never fail this way.
	Errors int
	// Throttles is the number of throttled invocations in Period that
	// alarms. Default: 1.
	Throttles int
	// DurationPercentOfTimeout alarms when p99 duration reaches this share
	// of the function timeout in 2 of 3 periods. Default: 80.
	DurationPercentOfTimeout int
	// Period of every alarm. Default: 5 minutes.
	Period time.Duration
}

// Monitor adds alarms on Errors, Throttles and p99 Duration (against the
// timeout) to m, with their widgets as one dashboard row, and returns them.
func (f *Function) Monitor(m Monitor, props *AlarmProps) []awscloudwatch.Alarm {
	p := AlarmProps{}
	if props != nil {
		p = *props
	}
	p.Name = cmp.Or(p.Name, *f.Construct.Node().Id())
	p.Errors = cmp.Or(p.Errors, 1)
	p.Throttles = cmp.Or(p.Throttles, 1)
	p.DurationPercentOfTimeout = cmp.Or(p.DurationPercentOfTimeout, 80)
	p.Period = cmp.Or(p.Period, 5*time.Minute)
	if p.Errors < 0 || p.Throttles < 0 || p.DurationPercentOfTimeout < 1 || p.DurationPercentOfTimeout > 100 || p.Period < time.Minute {
		panic(fmt.Sprintf("gofunction: invalid AlarmProps %+v", p))
	}
	period := awscdk.Duration_Seconds(jsii.Number(p.Period.Seconds()))
	sum := &awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("Sum")}
	p99 := &awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("p99")}
	limitMs := float64(f.Timeout.Milliseconds()) * float64(p.DurationPercentOfTimeout) / 100

	errs := f.Function.MetricErrors(sum)
	throttles := f.Function.MetricThrottles(sum)
	duration := f.Function.MetricDuration(p99)
	alarms := []awscloudwatch.Alarm{
		awscloudwatch.NewAlarm(f.Construct, jsii.String("ErrorsAlarm"), &awscloudwatch.AlarmProps{
			AlarmDescription: jsii.String(fmt.Sprintf("%s: %d or more failed invocations in %s (crashes or timeouts, not business errors)", p.Name, p.Errors, p.Period)),
			Metric:           errs, Threshold: jsii.Number(float64(p.Errors)), EvaluationPeriods: jsii.Number(1),
			ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
			TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
		}),
		awscloudwatch.NewAlarm(f.Construct, jsii.String("ThrottlesAlarm"), &awscloudwatch.AlarmProps{
			AlarmDescription: jsii.String(fmt.Sprintf("%s: %d or more throttled invocations in %s (concurrency exhausted)", p.Name, p.Throttles, p.Period)),
			Metric:           throttles, Threshold: jsii.Number(float64(p.Throttles)), EvaluationPeriods: jsii.Number(1),
			ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
			TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
		}),
		awscloudwatch.NewAlarm(f.Construct, jsii.String("DurationAlarm"), &awscloudwatch.AlarmProps{
			AlarmDescription: jsii.String(fmt.Sprintf("%s: p99 duration at or above %d%% of the %s timeout in 2 of 3 periods", p.Name, p.DurationPercentOfTimeout, f.Timeout)),
			Metric:           duration, Threshold: jsii.Number(limitMs),
			EvaluationPeriods: jsii.Number(3), DatapointsToAlarm: jsii.Number(2),
			ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
			TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
		}),
	}
	if m == nil {
		return alarms
	}
	for _, a := range alarms {
		m.AddAlarm(a)
	}
	m.AddWidgets(
		awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
			Title: jsii.String(p.Name + " Lambda: invocations, errors, throttles"), Width: jsii.Number(12),
			Left: &[]awscloudwatch.IMetric{f.Function.MetricInvocations(sum), errs, throttles},
		}),
		awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
			Title: jsii.String(p.Name + " Lambda: duration p50 / p99 (ms)"), Width: jsii.Number(12),
			Left: &[]awscloudwatch.IMetric{f.Function.MetricDuration(&awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("p50")}), duration},
			LeftAnnotations: &[]*awscloudwatch.HorizontalAnnotation{{
				Label: jsii.String("alarm"), Value: jsii.Number(limitMs),
			}},
		}),
	)
	return alarms
}
