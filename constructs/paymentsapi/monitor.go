package paymentsapi

import (
	"fmt"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/jsii-runtime-go"

	"github.com/oncetable/oncetable/constructs/alarms"
	"github.com/oncetable/oncetable/constructs/gofunction"
	"github.com/oncetable/oncetable/constructs/oncall"
	"github.com/oncetable/oncetable/runtime/httpapi"
)

// MoneyRoutes are the routes of the idempotent money flows (credit,
// debit, create order, charge, settle): each has detailed metrics and an
// error-rate alarm of its own, so a failing flow pages even while the
// reads around it keep the stage's rate low.
func MoneyRoutes() []httpapi.RouteSpec {
	var out []httpapi.RouteSpec
	for _, r := range httpapi.Routes() {
		if r.Flow != "" {
			out = append(out, r)
		}
	}
	return out
}

// ThrottledMetricName is the metric the access log's 429 answers become,
// in the namespace "oncetable/<stack name>".
const ThrottledMetricName = "ThrottledRequests"

func (p Props) validateAlarms() error {
	for _, v := range []int{p.ServerErrorPercent, p.ClientErrorPercent, p.ThrottledPercent} {
		if v < 1 || v > 100 {
			return fmt.Errorf("ServerErrorPercent, ClientErrorPercent and ThrottledPercent must be 1..100, got %d/%d/%d",
				p.ServerErrorPercent, p.ClientErrorPercent, p.ThrottledPercent)
		}
	}
	if p.MinRequests < 2 {
		return fmt.Errorf("MinRequests must be at least 2, got %d", p.MinRequests)
	}
	if e := p.SettledPaymentEvery; e < 0 || e%time.Minute != 0 || (e > 0 && e < 5*time.Minute) || e > 24*time.Hour {
		return fmt.Errorf("SettledPaymentEvery %s must be whole minutes, 5m..24h, or 0", e)
	}
	return nil
}

// rateAlarm is an alarm on 100 * part / total per period, at or above
// percent in 2 of 3 periods, counting only periods of min requests or more.
// name prefixes the expression's metric ids (unique on a shared graph).
// Periods without requests have no data and do not breach: an idle API is
// not failing (the heartbeat, where configured, catches silence).
func (a *PaymentsAPI) rateAlarm(name, id, description string, part, total awscloudwatch.IMetric, percent, min int, label string) (awscloudwatch.Alarm, awscloudwatch.IMetric) {
	p, t := name+"Part", name+"Total"
	rate := awscloudwatch.NewMathExpression(&awscloudwatch.MathExpressionProps{
		Expression:   jsii.String(fmt.Sprintf("IF(%s >= %d, 100 * FILL(%s, 0) / %s, 0)", t, min, p, t)),
		UsingMetrics: &map[string]awscloudwatch.IMetric{p: part, t: total},
		Period:       awscdk.Duration_Minutes(jsii.Number(5)),
		Label:        jsii.String(label),
	})
	return awscloudwatch.NewAlarm(a.Construct, jsii.String(id), &awscloudwatch.AlarmProps{
		AlarmDescription: jsii.String(description),
		Metric:           rate, Threshold: jsii.Number(float64(percent)),
		EvaluationPeriods: jsii.Number(3), DatapointsToAlarm: jsii.Number(2),
		ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
		TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
	}), rate
}

// routeMetric is a detailed (per-route) metric of the stage.
func (a *PaymentsAPI) routeMetric(name string, r httpapi.RouteSpec) awscloudwatch.Metric {
	return awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
		Namespace:  jsii.String("AWS/ApiGateway"),
		MetricName: jsii.String(name),
		DimensionsMap: &map[string]*string{
			"ApiId": a.API.ApiId(), "Stage": a.Stage.StageName(), "Route": jsii.String(r.Method + " " + r.Path),
		},
		Statistic: jsii.String("Sum"),
		Period:    awscdk.Duration_Minutes(jsii.Number(5)),
		Label:     jsii.String(r.Name + " " + name),
	})
}

// throttledMetric counts the access log's 429 answers (HTTP APIs publish
// no metric of their own for them), 0 for every other request.
func (a *PaymentsAPI) throttledMetric() awscloudwatch.IMetric {
	namespace := "oncetable/" + *awscdk.Stack_Of(a.Construct).StackName()
	a.AccessLogs.AddMetricFilter(jsii.String("ThrottledRequests"), &awslogs.MetricFilterOptions{
		FilterPattern:   awslogs.FilterPattern_StringValue(jsii.String("$.status"), jsii.String("="), jsii.String("429")),
		MetricNamespace: jsii.String(namespace),
		MetricName:      jsii.String(ThrottledMetricName),
		MetricValue:     jsii.String("1"),
		DefaultValue:    jsii.Number(0),
	})
	return awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
		Namespace: jsii.String(namespace), MetricName: jsii.String(ThrottledMetricName),
		Statistic: jsii.String("Sum"), Period: awscdk.Duration_Minutes(jsii.Number(5)), Label: jsii.String("429"),
	})
}

// monitor adds the API alarms (stage 5xx, 4xx and 429 rates, each money
// route's 5xx rate, p99 latency, the settle heartbeat) and each function's
// alarms, with widgets, to p.Monitor.
func (a *PaymentsAPI) monitor(p Props) {
	period := awscdk.Duration_Minutes(jsii.Number(5))
	sum := &awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("Sum")}
	p99 := &awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("p99")}
	requests := a.Stage.MetricCount(sum)
	serverErrors := a.Stage.MetricServerError(sum)
	clientErrors := a.Stage.MetricClientError(sum)
	throttled := a.throttledMetric()
	latency := a.Stage.MetricLatency(p99)
	latencyMs := float64(p.LatencyP99.Milliseconds())
	type kinded struct {
		kind  oncall.Kind
		alarm awscloudwatch.Alarm
	}
	var alarms []kinded
	add := func(kind oncall.Kind, al awscloudwatch.Alarm) {
		alarms = append(alarms, kinded{kind, al})
		a.Alarms = append(a.Alarms, al)
	}

	al, serverRate := a.rateAlarm("server", "ServerErrorsAlarm",
		fmt.Sprintf("payments API: %d%% or more of the requests answered 5xx in 2 of 3 periods of 5 minutes (periods of %d requests or more).", p.ServerErrorPercent, p.MinRequests),
		serverErrors, requests, p.ServerErrorPercent, p.MinRequests, "5xx rate (%)")
	add(oncall.APIServerErrorRate, al)
	al, clientRate := a.rateAlarm("client", "ClientErrorsAlarm",
		fmt.Sprintf("payments API: %d%% or more of the requests answered 4xx in 2 of 3 periods of 5 minutes: a broken client, an authorizer failing everyone, or an attack.", p.ClientErrorPercent),
		clientErrors, requests, p.ClientErrorPercent, p.MinRequests, "4xx rate (%)")
	add(oncall.APIClientErrorSurge, al)
	al, throttledRate := a.rateAlarm("throttled", "ThrottledAlarm",
		fmt.Sprintf("payments API: %d%% or more of the requests answered 429 (stage or money-route throttling) in 2 of 3 periods of 5 minutes: callers are being turned away.", p.ThrottledPercent),
		throttled, requests, p.ThrottledPercent, p.MinRequests, "429 rate (%)")
	add(oncall.APIThrottledRate, al)

	routeRates := []awscloudwatch.IMetric{}
	for _, r := range MoneyRoutes() {
		al, rate := a.rateAlarm(r.Name, routeID(r)+"ServerErrorsAlarm",
			fmt.Sprintf("payments API %s %s (%s): %d%% or more of its requests answered 5xx in 2 of 3 periods of 5 minutes (periods of %d requests or more).",
				r.Method, r.Path, r.Name, p.ServerErrorPercent, max(2, p.MinRequests/2)),
			a.routeMetric("5xx", r), a.routeMetric("Count", r), p.ServerErrorPercent, max(2, p.MinRequests/2), r.Name+" 5xx rate (%)")
		add(oncall.MoneyRouteErrorRate, al)
		routeRates = append(routeRates, rate)
	}
	add(oncall.APILatency, awscloudwatch.NewAlarm(a.Construct, jsii.String("LatencyAlarm"), &awscloudwatch.AlarmProps{
		AlarmDescription: jsii.String(fmt.Sprintf("payments API: p99 latency at or above %d ms in 2 of 3 periods of 5 minutes.", p.LatencyP99.Milliseconds())),
		Metric:           latency, Threshold: jsii.Number(latencyMs),
		EvaluationPeriods: jsii.Number(3), DatapointsToAlarm: jsii.Number(2),
		ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
		TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
	}))
	if p.SettledPaymentEvery > 0 {
		add(oncall.NoSettledPayment, a.heartbeat(p.SettledPaymentEvery))
	}
	outcomeWidgets := a.outcomes(p, requests, add)

	if p.Monitor != nil {
		for _, k := range alarms {
			p.Monitor.AddAlarm(k.kind, k.alarm)
		}
		p.Monitor.AddWidgets(
			awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
				Title: jsii.String("Payments API: requests, 4xx, 5xx, 429"), Width: jsii.Number(8),
				Left: &[]awscloudwatch.IMetric{requests, clientErrors, serverErrors, throttled},
			}),
			awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
				Title: jsii.String("Payments API: 5xx, 4xx and 429 rates (%)"), Width: jsii.Number(8),
				Left: &[]awscloudwatch.IMetric{serverRate, clientRate, throttledRate},
				LeftAnnotations: &[]*awscloudwatch.HorizontalAnnotation{
					{Label: jsii.String("5xx alarm"), Value: jsii.Number(float64(p.ServerErrorPercent))},
					{Label: jsii.String("4xx alarm"), Value: jsii.Number(float64(p.ClientErrorPercent))},
				},
			}),
			awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
				Title: jsii.String("Payments API: latency p99 and integration latency p99 (ms)"), Width: jsii.Number(8),
				Left:            &[]awscloudwatch.IMetric{latency, a.Stage.MetricIntegrationLatency(p99)},
				LeftAnnotations: &[]*awscloudwatch.HorizontalAnnotation{{Label: jsii.String("alarm"), Value: jsii.Number(latencyMs)}},
			}),
		)
		p.Monitor.AddWidgets(awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
			Title: jsii.String("Money routes: 5xx rate by route (%)"), Width: jsii.Number(24),
			Left:            &routeRates,
			LeftAnnotations: &[]*awscloudwatch.HorizontalAnnotation{{Label: jsii.String("alarm"), Value: jsii.Number(float64(p.ServerErrorPercent))}},
		}))
		p.Monitor.AddWidgets(outcomeWidgets[:2]...)
		p.Monitor.AddWidgets(outcomeWidgets[2:]...)
		p.Monitor.AddWidgets(accountConcurrency())
	}
	for _, name := range Functions() {
		a.Alarms = append(a.Alarms, a.Functions[name].Monitor(p.Monitor, &gofunction.AlarmProps{
			Name: name, ErrorKind: oncall.MoneyFunctionErrors, ErrorRatePercent: p.ServerErrorPercent,
		})...)
	}
	// A failed rotation leaves the secret as it was (cursors keep working),
	// but it must not fail silently month after month.
	a.Alarms = append(a.Alarms, a.RotationFunction.Monitor(p.Monitor, &gofunction.AlarmProps{
		Name: RotationFunctionName, ErrorKind: oncall.SecretRotationFailed, ErrorCount: 1,
	})...)
}

// heartbeat pages when no settle succeeded (a 2xx of the settle route,
// replays included) in every: missing data breaches, since silence is the
// very condition.
func (a *PaymentsAPI) heartbeat(every time.Duration) awscloudwatch.Alarm {
	var settle httpapi.RouteSpec
	for _, r := range httpapi.Routes() {
		if r.Name == httpapi.RouteSettle {
			settle = r
		}
	}
	window := awscdk.Duration_Minutes(jsii.Number(every.Minutes()))
	with := func(name string) awscloudwatch.IMetric {
		return a.routeMetric(name, settle).With(&awscloudwatch.MetricOptions{Period: window})
	}
	settled := awscloudwatch.NewMathExpression(&awscloudwatch.MathExpressionProps{
		Expression:   jsii.String("FILL(requests, 0) - FILL(clientErrors, 0) - FILL(serverErrors, 0)"),
		UsingMetrics: &map[string]awscloudwatch.IMetric{"requests": with("Count"), "clientErrors": with("4xx"), "serverErrors": with("5xx")},
		Period:       window,
		Label:        jsii.String("settled payments"),
	})
	return awscloudwatch.NewAlarm(a.Construct, jsii.String("NoSettledPaymentAlarm"), &awscloudwatch.AlarmProps{
		AlarmDescription: jsii.String(fmt.Sprintf("payments API: no settle succeeded for %s, in an environment that always has traffic: the API, its callers or the settle flow are down.", alarms.Span(every))),
		Metric:           settled, Threshold: jsii.Number(1),
		EvaluationPeriods: jsii.Number(1), DatapointsToAlarm: jsii.Number(1),
		ComparisonOperator: awscloudwatch.ComparisonOperator_LESS_THAN_THRESHOLD,
		TreatMissingData:   awscloudwatch.TreatMissingData_BREACHING,
	})
}

// accountConcurrency graphs the account's concurrent executions next to
// what is left unreserved: the pool every unreserved function shares.
func accountConcurrency() awscloudwatch.IWidget {
	metric := func(name string) awscloudwatch.IMetric {
		return awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
			Namespace: jsii.String("AWS/Lambda"), MetricName: jsii.String(name),
			Statistic: jsii.String("Maximum"), Period: awscdk.Duration_Minutes(jsii.Number(5)),
		})
	}
	return awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
		Title: jsii.String("Lambda concurrency of the account and region (max)"), Width: jsii.Number(24),
		Left: &[]awscloudwatch.IMetric{metric("ConcurrentExecutions"), metric("UnreservedConcurrentExecutions")},
	})
}

// routeID is a construct id prefix for a route: "Charge", "CreateOrder".
func routeID(r httpapi.RouteSpec) string {
	return string(r.Name[0]-'a'+'A') + r.Name[1:]
}
