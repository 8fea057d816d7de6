package cdk

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"

	"github.com/oncetable/oncetable/constructs/oncall"
	"github.com/oncetable/oncetable/constructs/slo"
)

// TestSLOBurnRateAlerts reads each environment's template: every
// objective has the workbook's three alerts, each a composite of its long
// and short windows' alarms; each window's alarm is the bad ratio over one
// period as long as the window, against burn × budget, guarded by the
// minimum of requests, notifying no one; the access log's two metric
// filters feed them.
func TestSLOBurnRateAlerts(t *testing.T) {
	for _, env := range envs {
		s := byEnv[env]
		t.Run(env, func(t *testing.T) {
			if s.slo == nil {
				t.Fatal("the stack has no SLO")
			}
			filters := resources(s, "AWS::Logs::MetricFilter")
			var names []string
			for _, f := range filters {
				for _, m := range props(f)["MetricTransformations"].([]any) {
					names = append(names, m.(map[string]any)["MetricName"].(string))
				}
			}
			for _, want := range []string{slo.LatencyMetricName, slo.ServerErrorsMetricName} {
				if !contains(names, want) {
					t.Errorf("no metric filter publishes %s (filters publish %v)", want, names)
				}
			}
			for _, o := range []*slo.Objective{s.slo.Availability, s.slo.Latency} {
				if len(o.Alerts) != len(slo.Alerts) || len(o.Inputs) != 2*len(slo.Alerts) {
					t.Fatalf("%s: %d alerts of %d inputs, want %d of %d", o.Name, len(o.Alerts), len(o.Inputs), len(slo.Alerts), 2*len(slo.Alerts))
				}
				budget := 1 - o.Target/100
				for i, a := range slo.Alerts {
					checkAlert(t, s, o, a, budget, o.Alerts[i], o.Inputs[2*i], o.Inputs[2*i+1])
				}
			}
		})
	}
}

func checkAlert(t *testing.T, s *synthesized, o *slo.Objective, a slo.Alert, budget float64, alert awscloudwatch.CompositeAlarm, long, short awscloudwatch.Alarm) {
	t.Helper()
	name := fmt.Sprintf("%s %v× over %s/%s", o.Name, a.Burn, a.Long, a.Short)
	rule := compact(alarmResource(t, s, alert)["AlarmRule"])
	for _, in := range []awscloudwatch.Alarm{long, short} {
		if !strings.Contains(rule, compact(getAtt(logicalID(s, in)))) {
			t.Errorf("%s: rule %s does not name %s", name, rule, *in.Node().Path())
		}
	}
	if !strings.Contains(rule, ") AND ALARM(") {
		t.Errorf("%s: rule %s is not both windows at once", name, rule)
	}
	kind := map[string]map[oncall.Severity]oncall.Kind{
		"availability": {oncall.Page: oncall.SLOAvailabilityFastBurn, oncall.Ticket: oncall.SLOAvailabilitySlowBurn},
		"latency":      {oncall.Page: oncall.SLOLatencyFastBurn, oncall.Ticket: oncall.SLOLatencySlowBurn},
	}[o.Name][a.Severity]
	found := false
	for _, al := range s.ops.Alarms {
		found = found || (al.Alarm == alert && al.Kind == kind)
	}
	if !found {
		t.Errorf("%s: not routed as %s", name, kind.Name)
	}
	for _, w := range []struct {
		alarm  awscloudwatch.Alarm
		window time.Duration
	}{{long, a.Long}, {short, a.Short}} {
		p := alarmResource(t, s, w.alarm)
		if got := p["Threshold"].(float64); math.Abs(got-a.Burn*budget) > 1e-12 || p["ComparisonOperator"] != "GreaterThanThreshold" ||
			p["EvaluationPeriods"] != 1.0 || p["TreatMissingData"] != "notBreaching" {
			t.Errorf("%s %s window: threshold %v %v over %v periods, missing %v; want > %v over 1, notBreaching", name, w.window, got, p["ComparisonOperator"], p["EvaluationPeriods"], p["TreatMissingData"], a.Burn*budget)
		}
		metrics := compact(p["Metrics"])
		period := fmt.Sprintf(`"Period":%d`, int(w.window.Seconds()))
		if strings.Count(metrics, period) < 2 || !regexp.MustCompile(`IF\(requests[0-9]+ \\u003e= [0-9]+,`).MatchString(metrics) {
			t.Errorf("%s %s window: metrics %s, want every period %s and the minimum-requests guard", name, w.window, metrics, period)
		}
	}
}
