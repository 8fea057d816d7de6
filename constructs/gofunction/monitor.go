package gofunction

import (
	"cmp"
	"fmt"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/jsii-runtime-go"

	"github.com/oncetable/oncetable/constructs/alarms"
	"github.com/oncetable/oncetable/constructs/oncall"
)

// Monitor receives alarms and dashboard widgets; *alarms.Operations
// satisfies it, so alarms reach the page or ticket topic of their kind.
type Monitor = alarms.Monitor

// AlarmProps sets the alarms of Function.Monitor. Zero values are the
// defaults.
type AlarmProps struct {
	// Name labels the alarms and widgets. Default: the construct id.
	Name string
	// ErrorKind is the kind of the error alarm: oncall.MoneyFunctionErrors
	// (a page) for a function that moves money. Default:
	// oncall.FunctionErrors, a ticket.
	ErrorKind oncall.Kind
	// ErrorRatePercent is the share of failed invocations (panics,
	// timeouts, crashes; problem+json answers are not errors) in a period
	// at or above which the period breaches; 2 breaching periods of 3 fire
	// the alarm. Default: 5.
	ErrorRatePercent int
	// MinInvocations is the traffic guard of the rates: a period with
	// fewer invocations never breaches, so one failure of a quiet function
	// pages nobody. Default: 10.
	MinInvocations int
	// ErrorCount, when above 0, replaces the rate with a count: that many
	// failed invocations in one period fire at once. For a function
	// invoked too rarely for a rate (the monthly secret rotation).
	ErrorCount int
	// ThrottleRatePercent is the share of throttled invocation attempts in
	// a period at or above which it breaches, 2 of 3 (a ticket: callers see
	// the throttles as API errors, which page). Default: 1.
	ThrottleRatePercent int
	// DurationPercentOfTimeout alarms (a ticket) when p99 duration reaches
	// this share of the function timeout in 2 of 3 periods. Default: 80.
	DurationPercentOfTimeout int
	// ConcurrencyPercent alarms (a ticket) when the function's maximum
	// concurrent executions reach this share of its reserved concurrency in
	// 2 of 3 periods; only for a function with reserved concurrency.
	// Default: 80.
	ConcurrencyPercent int
	// Period of every alarm. Default: 5 minutes.
	Period time.Duration
}

func (p AlarmProps) withDefaults(f *Function) AlarmProps {
	p.Name = cmp.Or(p.Name, *f.Construct.Node().Id())
	if p.ErrorKind == (oncall.Kind{}) {
		p.ErrorKind = oncall.FunctionErrors
	}
	p.ErrorRatePercent = cmp.Or(p.ErrorRatePercent, 5)
	p.MinInvocations = cmp.Or(p.MinInvocations, 10)
	p.ThrottleRatePercent = cmp.Or(p.ThrottleRatePercent, 1)
	p.DurationPercentOfTimeout = cmp.Or(p.DurationPercentOfTimeout, 80)
	p.ConcurrencyPercent = cmp.Or(p.ConcurrencyPercent, 80)
	p.Period = cmp.Or(p.Period, 5*time.Minute)
	percent := func(v int) bool { return v >= 1 && v <= 100 }
	if !percent(p.ErrorRatePercent) || !percent(p.ThrottleRatePercent) || !percent(p.DurationPercentOfTimeout) ||
		!percent(p.ConcurrencyPercent) || p.MinInvocations < 1 || p.ErrorCount < 0 || p.Period < time.Minute {
		panic(fmt.Sprintf("gofunction: invalid AlarmProps %+v", p))
	}
	return p
}

// Monitor adds to m alarms on the function's error rate (or count), throttle
// rate, p99 duration against the timeout and, with reserved concurrency,
// concurrent executions, with their widgets as one dashboard row, and
// returns them. Periods with no invocations have no data and never breach:
// a function nobody calls is not failing, and silence of a whole flow is
// the heartbeat's to catch.
func (f *Function) Monitor(m Monitor, props *AlarmProps) []awscloudwatch.Alarm {
	p := AlarmProps{}
	if props != nil {
		p = *props
	}
	p = p.withDefaults(f)
	period := awscdk.Duration_Seconds(jsii.Number(p.Period.Seconds()))
	sum := &awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("Sum")}
	errs := f.Function.MetricErrors(sum)
	invocations := f.Function.MetricInvocations(sum)
	throttles := f.Function.MetricThrottles(sum)
	duration := f.Function.MetricDuration(&awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("p99")})
	concurrency := f.Function.Metric(jsii.String("ConcurrentExecutions"), &awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("Maximum")})
	limitMs := float64(f.Timeout.Milliseconds()) * float64(p.DurationPercentOfTimeout) / 100

	errorRate := awscloudwatch.NewMathExpression(&awscloudwatch.MathExpressionProps{
		Expression:   jsii.String(fmt.Sprintf("IF(invocations >= %d, 100 * FILL(errors, 0) / invocations, 0)", p.MinInvocations)),
		UsingMetrics: &map[string]awscloudwatch.IMetric{"errors": errs, "invocations": invocations},
		Period:       period,
		Label:        jsii.String(p.Name + " error rate (%)"),
	})
	// Invocations counts only the invocations that ran, so the attempts
	// are invocations plus throttles.
	throttleRate := awscloudwatch.NewMathExpression(&awscloudwatch.MathExpressionProps{
		Expression:   jsii.String(fmt.Sprintf("IF(FILL(invocations, 0) + throttles >= %d, 100 * throttles / (FILL(invocations, 0) + throttles), 0)", p.MinInvocations)),
		UsingMetrics: &map[string]awscloudwatch.IMetric{"throttles": throttles, "invocations": invocations},
		Period:       period,
		Label:        jsii.String(p.Name + " throttle rate (%)"),
	})
	type spec struct {
		kind                    oncall.Kind
		id, description         string
		metric                  awscloudwatch.IMetric
		threshold               float64
		evaluations, datapoints int
	}
	specs := []spec{{
		kind: p.ErrorKind, id: "ErrorsAlarm", metric: errorRate, threshold: float64(p.ErrorRatePercent), evaluations: 3, datapoints: 2,
		description: fmt.Sprintf("%s: %d%% or more of the invocations failed (crashes or timeouts, not business errors) in 2 of 3 periods of %s, counting periods of %d invocations or more.",
			p.Name, p.ErrorRatePercent, alarms.Span(p.Period), p.MinInvocations),
	}, {
		kind: oncall.FunctionThrottles, id: "ThrottlesAlarm", metric: throttleRate, threshold: float64(p.ThrottleRatePercent), evaluations: 3, datapoints: 2,
		description: fmt.Sprintf("%s: %d%% or more of the invocation attempts were throttled (concurrency exhausted) in 2 of 3 periods of %s.", p.Name, p.ThrottleRatePercent, alarms.Span(p.Period)),
	}, {
		kind: oncall.FunctionDuration, id: "DurationAlarm", metric: duration, threshold: limitMs, evaluations: 3, datapoints: 2,
		description: fmt.Sprintf("%s: p99 duration at or above %d%% of the %s timeout in 2 of 3 periods of %s.", p.Name, p.DurationPercentOfTimeout, alarms.Span(f.Timeout), alarms.Span(p.Period)),
	}}
	if p.ErrorCount > 0 {
		specs[0] = spec{kind: p.ErrorKind, id: "ErrorsAlarm", metric: errs, threshold: float64(p.ErrorCount), evaluations: 1, datapoints: 1,
			description: fmt.Sprintf("%s: %d or more failed invocations in %s (crashes or timeouts); it runs too rarely for a rate.", p.Name, p.ErrorCount, alarms.Span(p.Period))}
	}
	concurrencyLimit := float64(f.ReservedConcurrency) * float64(p.ConcurrencyPercent) / 100
	if f.ReservedConcurrency > 0 {
		specs = append(specs, spec{kind: oncall.FunctionConcurrency, id: "ConcurrencyAlarm", metric: concurrency, threshold: concurrencyLimit, evaluations: 3, datapoints: 2,
			description: fmt.Sprintf("%s: concurrent executions at or above %d%% of its reserved %d in 2 of 3 periods of %s: raise the reservation before it throttles.",
				p.Name, p.ConcurrencyPercent, f.ReservedConcurrency, alarms.Span(p.Period))})
	}
	var out []awscloudwatch.Alarm
	for _, s := range specs {
		a := awscloudwatch.NewAlarm(f.Construct, jsii.String(s.id), &awscloudwatch.AlarmProps{
			AlarmDescription: jsii.String(s.description),
			Metric:           s.metric, Threshold: jsii.Number(s.threshold),
			EvaluationPeriods: jsii.Number(float64(s.evaluations)), DatapointsToAlarm: jsii.Number(float64(s.datapoints)),
			ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
			// Lambda publishes nothing for a period without invocations.
			TreatMissingData: awscloudwatch.TreatMissingData_NOT_BREACHING,
		})
		out = append(out, a)
		if m != nil {
			m.AddAlarm(s.kind, a)
		}
	}
	if m == nil {
		return out
	}
	concurrencyAnnotations := []*awscloudwatch.HorizontalAnnotation{}
	if f.ReservedConcurrency > 0 {
		concurrencyAnnotations = append(concurrencyAnnotations,
			&awscloudwatch.HorizontalAnnotation{Label: jsii.String("reserved"), Value: jsii.Number(float64(f.ReservedConcurrency))},
			&awscloudwatch.HorizontalAnnotation{Label: jsii.String("alarm"), Value: jsii.Number(concurrencyLimit)})
	}
	m.AddWidgets(
		awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
			Title: jsii.String(p.Name + " Lambda: invocations, errors, throttles"), Width: jsii.Number(8),
			Left:  &[]awscloudwatch.IMetric{invocations, errs, throttles},
			Right: &[]awscloudwatch.IMetric{errorRate},
			RightAnnotations: &[]*awscloudwatch.HorizontalAnnotation{{
				Label: jsii.String("error rate alarm (%)"), Value: jsii.Number(float64(p.ErrorRatePercent)),
			}},
		}),
		awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
			Title: jsii.String(p.Name + " Lambda: duration p50 / p99 (ms)"), Width: jsii.Number(8),
			Left: &[]awscloudwatch.IMetric{f.Function.MetricDuration(&awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("p50")}), duration},
			LeftAnnotations: &[]*awscloudwatch.HorizontalAnnotation{{
				Label: jsii.String("alarm"), Value: jsii.Number(limitMs),
			}},
		}),
		awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
			Title: jsii.String(p.Name + " Lambda: concurrent executions (max)"), Width: jsii.Number(8),
			Left:            &[]awscloudwatch.IMetric{concurrency},
			LeftAnnotations: &concurrencyAnnotations,
		}),
	)
	return out
}
