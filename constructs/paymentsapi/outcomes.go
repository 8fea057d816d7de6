package paymentsapi

import (
	"fmt"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/jsii-runtime-go"

	"github.com/oncetable/oncetable/constructs/oncall"
	"github.com/oncetable/oncetable/runtime/obs"
)

// KeyReusedPercent is the share of the stage's requests answered 422 for
// a reused Idempotency-Key at which key-reuse-surge opens a ticket: a
// correct client never reuses a key for another request, so 1% is a
// client's bug (keys derived from too little, or a counter reset).
const KeyReusedPercent = 1

// outcomeAlarm is an alarm on one metric of obs.Catalogue, summed across
// flows: a guarded rate of the stage's requests when percent is set, else
// count or more in one period (in 2 of 3 when lasting).
type outcomeAlarm struct {
	metric  string
	kind    oncall.Kind
	id      string
	percent int
	count   int
	lasting bool
	what    string
}

// outcomeAlarms are the alarms on what the functions say: the metrics of
// obs.Catalogue that mean trouble. The others are graphed only: Created,
// Replayed and the declines are business, and the retried conflicts and
// throttles have the table's alarms. Frozen is a ticket, so that a freeze
// is not forgotten. The home fence's faults count only where cells are
// homed (multi-Region): a fence cancellation is a ticket (a planned
// failover cancels what was in flight), a lost lease that lasts pages.
func outcomeAlarms(p Props) []outcomeAlarm {
	return []outcomeAlarm{
		{metric: obs.Unavailable, kind: oncall.UnavailableAnswers, id: "UnavailableAnswersAlarm", percent: p.ServerErrorPercent,
			what: fmt.Sprintf("the functions answered 503 (DynamoDB unavailable, or the retries of throttles and conflicts spent) for %d%% or more of the requests in 2 of 3 periods of 5 minutes (periods of %d requests or more).", p.ServerErrorPercent, p.MinRequests)},
		{metric: obs.KeyReused, kind: oncall.KeyReuseSurge, id: "KeyReuseSurgeAlarm", percent: KeyReusedPercent,
			what: fmt.Sprintf("%d%% or more of the requests reused an Idempotency-Key for another request (422) in 2 of 3 periods of 5 minutes: a client derives its keys wrongly.", KeyReusedPercent)},
		{metric: obs.Frozen, kind: oncall.MoneyFrozen, id: "MoneyFrozenAlarm", count: 1,
			what: "the kill switch refused money requests (503 frozen): a freeze is on; make frozen ENV=... shows who froze what, when and why."},
		{metric: obs.Error, kind: oncall.UnexpectedErrors, id: "UnexpectedErrorsAlarm", count: 1,
			what: "a function answered 500 for an unexpected error (not DynamoDB's unavailability): a bug or a broken dependency; the log line has the error."},
		{metric: obs.FenceCancelled, kind: oncall.FenceCancellations, id: "FenceCancellationsAlarm", count: 1,
			what: "the home fence cancelled money transactions: the cell's owner or epoch changed while they ran (a failover's stop, or two Regions claiming one cell)."},
		{metric: obs.LeaseLost, kind: oncall.LeaseLost, id: "LeaseLostAlarm", count: 1, lasting: true,
			what: "money requests were refused in 2 of 3 periods of 5 minutes because this Region's lease on their cell ran out and the lease store did not renew it: those users' money is stopped here."},
	}
}

// catalogueMetric is the metric m of obs.Catalogue summed across flows.
func catalogueMetric(m obs.Metric) awscloudwatch.Metric {
	return awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
		Namespace: jsii.String(m.Namespace), MetricName: jsii.String(m.Name),
		Statistic: jsii.String("Sum"), Period: awscdk.Duration_Minutes(jsii.Number(5)), Label: jsii.String(m.Name),
	})
}

// outcomes adds the alarms of outcomeAlarms and graphs every metric of
// obs.Catalogue: summed across flows, and by flow. It panics on an alarm
// whose metric the catalogue lacks.
func (a *PaymentsAPI) outcomes(p Props, requests awscloudwatch.IMetric, add func(oncall.Kind, awscloudwatch.Alarm)) []awscloudwatch.IWidget {
	byName := map[string]obs.Metric{}
	for _, m := range obs.Catalogue() {
		byName[m.Name] = m
	}
	for _, o := range outcomeAlarms(p) {
		m, ok := byName[o.metric]
		if !ok {
			panic("paymentsapi: alarm on " + o.metric + ", which obs.Catalogue does not list")
		}
		if o.percent > 0 {
			al, _ := a.rateAlarm(strings.ToLower(o.metric[:1])+o.metric[1:], o.id, "payments functions: "+o.what, catalogueMetric(m), requests, o.percent, p.MinRequests, o.metric+" rate (%)")
			add(o.kind, al)
			continue
		}
		evaluations, datapoints := 1, 1
		if o.lasting {
			evaluations, datapoints = 3, 2
		}
		add(o.kind, awscloudwatch.NewAlarm(a.Construct, jsii.String(o.id), &awscloudwatch.AlarmProps{
			AlarmDescription: jsii.String("payments functions: " + o.what),
			Metric:           catalogueMetric(m), Threshold: jsii.Number(float64(o.count)),
			EvaluationPeriods: jsii.Number(float64(evaluations)), DatapointsToAlarm: jsii.Number(float64(datapoints)),
			ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
			TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
		}))
	}
	var widgets []awscloudwatch.IWidget
	for _, ns := range []struct{ namespace, title string }{
		{obs.BusinessNamespace, "Business outcomes"},
		{obs.FaultNamespace, "Faults"},
	} {
		var total []awscloudwatch.IMetric
		for _, m := range obs.Catalogue() {
			if m.Namespace == ns.namespace {
				total = append(total, catalogueMetric(m))
			}
		}
		widgets = append(widgets,
			awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
				Title: jsii.String(fmt.Sprintf("%s (%s, all flows, per 5 minutes)", ns.title, ns.namespace)), Width: jsii.Number(12),
				Left: &total,
			}),
			awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
				Title: jsii.String(fmt.Sprintf("%s by flow (%s)", ns.title, ns.namespace)), Width: jsii.Number(12),
				Left: &[]awscloudwatch.IMetric{awscloudwatch.NewMathExpression(&awscloudwatch.MathExpressionProps{
					Expression: jsii.String(fmt.Sprintf("SEARCH('{%s,Flow}', 'Sum', 300)", ns.namespace)),
					Label:      jsii.String(""),
					Period:     awscdk.Duration_Minutes(jsii.Number(5)),
				})},
			}))
	}
	return widgets
}
