package paymentsapi

import (
	"testing"

	"github.com/oncetable/oncetable/constructs/oncall"
	"github.com/oncetable/oncetable/runtime/obs"
)

// TestOutcomeAlarmsWatchTheCatalogue: every alarm on what the functions say
// names a metric of obs.Catalogue, and the metrics that mean trouble have
// one, with a kind of constructs/oncall.
func TestOutcomeAlarmsWatchTheCatalogue(t *testing.T) {
	alarmed := map[string]oncall.Kind{}
	for _, o := range outcomeAlarms(Props{ServerErrorPercent: 2, MinRequests: 20}) {
		if !obs.Known(obs.BusinessNamespace, o.metric) && !obs.Known(obs.FaultNamespace, o.metric) {
			t.Errorf("alarm %s watches %s, which obs.Catalogue does not list", o.id, o.metric)
		}
		if _, ok := oncall.Lookup(o.kind.Name); !ok {
			t.Errorf("alarm %s: kind %q is not in oncall.Kinds", o.id, o.kind.Name)
		}
		if (o.percent > 0) == (o.count > 0) {
			t.Errorf("alarm %s: percent %d and count %d, want exactly one", o.id, o.percent, o.count)
		}
		alarmed[o.metric] = o.kind
	}
	for metric, want := range map[string]oncall.Kind{
		obs.Unavailable:    oncall.UnavailableAnswers,
		obs.KeyReused:      oncall.KeyReuseSurge,
		obs.Error:          oncall.UnexpectedErrors,
		obs.Frozen:         oncall.MoneyFrozen,
		obs.FenceCancelled: oncall.FenceCancellations,
		obs.LeaseLost:      oncall.LeaseLost,
	} {
		if got := alarmed[metric]; got != want {
			t.Errorf("%s alarms as %q, want %q", metric, got.Name, want.Name)
		}
	}
}
