// Package emitters is a fixture of TestCatalogueScanCatchesUnknownMetrics.
package emitters

import "github.com/oncetable/oncetable/runtime/obs"

func emit(m *obs.Metrics) {
	m.Business("charge", obs.Created)            // known
	m.Fault("charge", obs.KeyReused)             // a business name emitted as a fault
	m.Business("charge", "SomethingNew")         // a literal
	m.Reconcile("t", obs.ReconcileViolations, 1) // known
	_ = map[string]any{"CloudWatchMetrics": nil} // EMF by hand
}
