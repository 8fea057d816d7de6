package slo

import (
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"

	"github.com/oncetable/oncetable/constructs/alarms"
)

// fakeLogs and fakeMonitor stand for what validate only checks is set.
type fakeLogs struct{ awslogs.ILogGroup }
type fakeMonitor struct{ alarms.Monitor }

func TestPropsValidate(t *testing.T) {
	logs, mon := fakeLogs{}, fakeMonitor{}
	for _, c := range []struct {
		name    string
		props   Props
		wantErr string
	}{
		{"defaults", Props{AccessLogs: logs, Monitor: mon}, ""},
		{"no access logs", Props{Monitor: mon}, "required"},
		{"no monitor", Props{AccessLogs: logs}, "required"},
		{"availability of 100", Props{AccessLogs: logs, Monitor: mon, Availability: 100}, "90..99.99"},
		{"latency under 90", Props{AccessLogs: logs, Monitor: mon, Latency: 80}, "90..99.99"},
		{"threshold under 100 ms", Props{AccessLogs: logs, Monitor: mon, LatencyThreshold: 50 * time.Millisecond}, "100ms..29s"},
		{"threshold not whole ms", Props{AccessLogs: logs, Monitor: mon, LatencyThreshold: 1500 * time.Microsecond}, "whole milliseconds"},
		{"negative minimum", Props{AccessLogs: logs, Monitor: mon, MinRequests: -1}, "at least 1"},
		{"four nines, 300 ms", Props{AccessLogs: logs, Monitor: mon, Availability: 99.99, Latency: 99.5, LatencyThreshold: 300 * time.Millisecond}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.props.withDefaults().validate()
			if (c.wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.wantErr)) {
				t.Errorf("validate() = %v, want %q", err, c.wantErr)
			}
		})
	}
}

// TestAlertsAreTheWorkbooks: the windows and burn rates of the SRE
// workbook's multiwindow, multi-burn-rate alerts, each short window a
// twelfth of its long one.
func TestAlertsAreTheWorkbooks(t *testing.T) {
	want := []struct {
		long, short time.Duration
		burn        float64
		budgetSpent float64 // share of the 30-day budget the long window takes at that burn
	}{
		{time.Hour, 5 * time.Minute, 14.4, 0.02},
		{6 * time.Hour, 30 * time.Minute, 6, 0.05},
		{72 * time.Hour, 6 * time.Hour, 1, 0.10},
	}
	if len(Alerts) != len(want) {
		t.Fatalf("%d alerts, want %d", len(Alerts), len(want))
	}
	for i, w := range want {
		a := Alerts[i]
		spent := a.Burn * float64(a.Long) / float64(BudgetPeriod)
		if a.Long != w.long || a.Short != w.short || a.Burn != w.burn || a.Short*12 != a.Long || spent < w.budgetSpent-1e-9 || spent > w.budgetSpent+1e-9 {
			t.Errorf("alert %d = %+v (spends %.3f of the budget), want %+v", i, a, spent, w)
		}
	}
}
