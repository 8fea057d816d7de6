package slo

import (
	"cmp"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/oncetable/oncetable/constructs/alarms"
	"github.com/oncetable/oncetable/constructs/oncall"
	"github.com/oncetable/oncetable/runtime/httpapi"
)

// Defaults of Props.
const (
	DefaultAvailability     = 99.9
	DefaultLatency          = 99.0
	DefaultLatencyThreshold = time.Second
	DefaultMinRequests      = 10
)

// BudgetPeriod is the period each error budget is spent over; the burn
// rates are relative to it.
const BudgetPeriod = 30 * 24 * time.Hour

// The metrics the access log's filters publish, in "oncetable/<stack>".
const (
	LatencyMetricName      = "MoneyLatency"
	ServerErrorsMetricName = "MoneyServerErrors"
)

// Props configures the objectives. AccessLogs and Monitor are required;
// the zero value of every other field is its default.
type Props struct {
	// AccessLogs is the payments API's access log group
	// (paymentsapi.PaymentsAPI.AccessLogs), in its JSON format. Required.
	AccessLogs awslogs.ILogGroup
	// Monitor receives the alerts and the dashboard row. Required.
	Monitor alarms.Monitor
	// Availability is the percentage of money requests not answered 5xx,
	// over BudgetPeriod: 90 to 99.99. Default: DefaultAvailability.
	Availability float64
	// Latency is the percentage of money requests answered within
	// LatencyThreshold, over BudgetPeriod: 90 to 99.99. Default:
	// DefaultLatency.
	Latency float64
	// LatencyThreshold is the answer time a money request is fast within,
	// whole milliseconds from 100 ms to 29 s (API Gateway's limit is 30 s).
	// Default: DefaultLatencyThreshold.
	LatencyThreshold time.Duration
	// MinRequests is the money requests a window needs before its ratio
	// counts (below it the ratio reads 0): a quiet 5 minutes with one
	// failure of two requests must not page. Default: DefaultMinRequests.
	MinRequests int
}

func (p Props) withDefaults() Props {
	p.Availability = cmp.Or(p.Availability, DefaultAvailability)
	p.Latency = cmp.Or(p.Latency, DefaultLatency)
	p.LatencyThreshold = cmp.Or(p.LatencyThreshold, DefaultLatencyThreshold)
	p.MinRequests = cmp.Or(p.MinRequests, DefaultMinRequests)
	return p
}

func (p Props) validate() error {
	switch {
	case p.AccessLogs == nil || p.Monitor == nil:
		return fmt.Errorf("props.AccessLogs and props.Monitor are required")
	case p.Availability < 90 || p.Availability > 99.99 || p.Latency < 90 || p.Latency > 99.99:
		return fmt.Errorf("props.Availability %v and Latency %v must be 90..99.99 (percent)", p.Availability, p.Latency)
	case p.LatencyThreshold%time.Millisecond != 0 || p.LatencyThreshold < 100*time.Millisecond || p.LatencyThreshold > 29*time.Second:
		return fmt.Errorf("props.LatencyThreshold %s must be whole milliseconds, 100ms..29s", p.LatencyThreshold)
	case p.MinRequests < 1:
		return fmt.Errorf("props.MinRequests %d must be at least 1", p.MinRequests)
	}
	return nil
}

// Alert is one multi-window burn-rate alert: ALARM when the error ratio
// over both Long and Short exceeds Burn times the budget's.
type Alert struct {
	Long, Short time.Duration
	Burn        float64
	Severity    oncall.Severity
}

// Alerts are the SRE workbook's: 2% of the budget in an hour and 5% in six
// hours page, 10% in three days opens a ticket.
var Alerts = []Alert{
	{Long: time.Hour, Short: 5 * time.Minute, Burn: 14.4, Severity: oncall.Page},
	{Long: 6 * time.Hour, Short: 30 * time.Minute, Burn: 6, Severity: oncall.Page},
	{Long: 3 * 24 * time.Hour, Short: 6 * time.Hour, Burn: 1, Severity: oncall.Ticket},
}

// Objective is one deployed objective.
type Objective struct {
	// Name is "availability" or "latency"; Target its percentage.
	Name   string
	Target float64
	// Alerts are the composite alarms, in the order of the package's
	// Alerts; Inputs their window alarms, long then short for each.
	Alerts []awscloudwatch.CompositeAlarm
	Inputs []awscloudwatch.Alarm
}

// SLO is the objectives of the money routes and what they own.
type SLO struct {
	Construct constructs.Construct
	// Requests is each money request's latency in ms (SampleCount counts
	// them), ServerErrors each one answered 5xx, from the access log.
	Requests, ServerErrors awscloudwatch.Metric
	Availability, Latency  *Objective
}

// New sets the objectives of the money routes in scope. It panics on
// invalid props.
func New(scope constructs.Construct, id string, props *Props) *SLO {
	if props == nil {
		props = &Props{}
	}
	p := props.withDefaults()
	if err := p.validate(); err != nil {
		panic("slo: " + err.Error())
	}
	pattern, err := moneyRequests(httpapi.Routes(), append(httpapi.Routes(), httpapi.LegacyRoutes()...))
	if err != nil {
		panic(err.Error())
	}
	c := constructs.NewConstruct(scope, jsii.String(id))
	s := &SLO{Construct: c}
	namespace := "oncetable/" + *awscdk.Stack_Of(c).StackName()
	inner := strings.TrimSuffix(strings.TrimPrefix(pattern, "{ "), " }")
	filter := func(fid, name, value, pattern string) awscloudwatch.Metric {
		awslogs.NewMetricFilter(c, jsii.String(fid), &awslogs.MetricFilterProps{
			LogGroup: p.AccessLogs, FilterPattern: awslogs.FilterPattern_Literal(jsii.String(pattern)),
			MetricNamespace: jsii.String(namespace), MetricName: jsii.String(name), MetricValue: jsii.String(value),
		})
		return awscloudwatch.NewMetric(&awscloudwatch.MetricProps{Namespace: jsii.String(namespace), MetricName: jsii.String(name)})
	}
	s.Requests = filter("MoneyRequests", LatencyMetricName, "$.latencyMs", pattern)
	s.ServerErrors = filter("MoneyServerErrors", ServerErrorsMetricName, "1", `{ $.status = "5*" && (`+inner+`) }`)

	ms := p.LatencyThreshold.Milliseconds()
	availability := indicator{
		name: "availability", target: p.Availability, fast: oncall.SLOAvailabilityFastBurn, slow: oncall.SLOAvailabilitySlowBurn,
		bad:  fmt.Sprintf("IF(requests >= %d, FILL(errors, 0) / requests, 0)", p.MinRequests),
		what: "of the money requests answered 5xx",
		metrics: func(period awscdk.Duration) map[string]awscloudwatch.IMetric {
			return map[string]awscloudwatch.IMetric{
				"requests": s.Requests.With(&awscloudwatch.MetricOptions{Statistic: jsii.String("SampleCount"), Period: period}),
				"errors":   s.ServerErrors.With(&awscloudwatch.MetricOptions{Statistic: jsii.String("Sum"), Period: period}),
			}
		},
	}
	latency := indicator{
		name: "latency", target: p.Latency, fast: oncall.SLOLatencyFastBurn, slow: oncall.SLOLatencySlowBurn,
		bad:  fmt.Sprintf("IF(requests >= %d, 1 - FILL(fast, 100) / 100, 0)", p.MinRequests),
		what: fmt.Sprintf("of the money requests answered in more than %d ms", ms),
		metrics: func(period awscdk.Duration) map[string]awscloudwatch.IMetric {
			return map[string]awscloudwatch.IMetric{
				"requests": s.Requests.With(&awscloudwatch.MetricOptions{Statistic: jsii.String("SampleCount"), Period: period}),
				// PR: the percentage of the period's values within the threshold.
				"fast": s.Requests.With(&awscloudwatch.MetricOptions{Statistic: jsii.String(fmt.Sprintf("PR(:%d)", ms)), Period: period}),
			}
		},
	}
	s.Availability, s.Latency = s.objective(p, availability), s.objective(p, latency)
	p.Monitor.AddWidgets(availability.graph(), latency.graph())
	return s
}

// indicator is how an objective's bad ratio is computed.
type indicator struct {
	name       string
	target     float64
	fast, slow oncall.Kind
	bad        string // metric math of the bad ratio, 0..1
	what       string
	metrics    func(period awscdk.Duration) map[string]awscloudwatch.IMetric
}

// ratio is the bad ratio over window. Its metric ids end with the
// window's minutes, since a graph may not give one id to two metrics.
func (in indicator) ratio(window time.Duration) awscloudwatch.MathExpression {
	period := awscdk.Duration_Minutes(jsii.Number(window.Minutes()))
	suffix := fmt.Sprintf("%.0f", window.Minutes())
	metrics := map[string]awscloudwatch.IMetric{}
	expr := in.bad
	for id, m := range in.metrics(period) {
		metrics[id+suffix] = m
		expr = regexp.MustCompile(`\b`+id+`\b`).ReplaceAllString(expr, id+suffix)
	}
	return awscloudwatch.NewMathExpression(&awscloudwatch.MathExpressionProps{
		Expression: jsii.String(expr), UsingMetrics: &metrics, Period: period,
		Label: jsii.String(fmt.Sprintf("%s: bad ratio over %s", in.name, alarms.Span(window))),
	})
}

func (s *SLO) objective(p Props, in indicator) *Objective {
	o := &Objective{Name: in.name, Target: in.target}
	budget := 1 - in.target/100
	for _, a := range Alerts {
		threshold := a.Burn * budget
		id := fmt.Sprintf("%s%s%s", strings.ToUpper(in.name[:1])+in.name[1:], "Burn", strings.ReplaceAll(fmt.Sprint(a.Burn), ".", "_"))
		window := func(role string, w time.Duration) awscloudwatch.Alarm {
			al := awscloudwatch.NewAlarm(s.Construct, jsii.String(id+role), &awscloudwatch.AlarmProps{
				AlarmDescription: jsii.String(fmt.Sprintf("money routes, %s objective %v%%: over the last %s more than %.4g%% %s (%v times the budget's rate); one window of a burn-rate alert, which notifies on its own.",
					in.name, in.target, alarms.Span(w), 100*threshold, in.what, a.Burn)),
				Metric: in.ratio(w), Threshold: jsii.Number(threshold),
				EvaluationPeriods: jsii.Number(1), DatapointsToAlarm: jsii.Number(1),
				ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_THRESHOLD,
				TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
			})
			o.Inputs = append(o.Inputs, al)
			return al
		}
		long, short := window("Long", a.Long), window("Short", a.Short)
		spent := float64(BudgetPeriod) / a.Burn
		composite := awscloudwatch.NewCompositeAlarm(s.Construct, jsii.String(id), &awscloudwatch.CompositeAlarmProps{
			AlarmDescription: jsii.String(fmt.Sprintf("money routes, %s objective %v%% over 30 days: the error budget burns at %v times its rate over the last %s and the last %s; at this rate the whole budget goes in %s.",
				in.name, in.target, a.Burn, alarms.Span(a.Long), alarms.Span(a.Short), alarms.Span(time.Duration(spent).Round(time.Hour)))),
			AlarmRule: awscloudwatch.AlarmRule_AllOf(
				awscloudwatch.AlarmRule_FromAlarm(long, awscloudwatch.AlarmState_ALARM),
				awscloudwatch.AlarmRule_FromAlarm(short, awscloudwatch.AlarmState_ALARM)),
		})
		o.Alerts = append(o.Alerts, composite)
		kind := in.slow
		if a.Severity == oncall.Page {
			kind = in.fast
		}
		p.Monitor.AddAlarmInputs(kind, long, short)
		p.Monitor.AddAlarm(kind, composite)
	}
	return o
}

// graph is the bad ratio over 5 minutes and over an hour, against the
// budget's rate and the fast alert's threshold.
func (in indicator) graph() awscloudwatch.IWidget {
	budget := 1 - in.target/100
	return awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
		Title: jsii.String(fmt.Sprintf("Money routes SLO: %s %v%%, bad ratio", in.name, in.target)), Width: jsii.Number(12),
		Left: &[]awscloudwatch.IMetric{in.ratio(5 * time.Minute), in.ratio(time.Hour)},
		LeftAnnotations: &[]*awscloudwatch.HorizontalAnnotation{
			{Label: jsii.String("budget rate"), Value: jsii.Number(budget)},
			{Label: jsii.String(fmt.Sprintf("%v× (page over %s)", Alerts[0].Burn, alarms.Span(Alerts[0].Long))), Value: jsii.Number(Alerts[0].Burn * budget)},
		},
	})
}
