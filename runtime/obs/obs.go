package obs

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"
)

// Namespaces of the EMF metrics.
const (
	BusinessNamespace = "oncetable/business"
	FaultNamespace    = "oncetable/faults"
	// ReconcileNamespace holds the live reconciliation's metrics
	// (runtime/reconcile), by table (dimension Table).
	ReconcileNamespace = "oncetable/reconcile"
	// TotalsNamespace holds the platform totaller's metrics
	// (runtime/platform), by table (dimension Table).
	TotalsNamespace = "oncetable/totals"
	// RegionsNamespace holds each Region's stream consumer's flags
	// (runtime/regionwatch), by table (dimension Table), in the Region
	// that raised them.
	RegionsNamespace = "oncetable/regions"
	// CanaryNamespace holds the canary's metric (runtime/canary), by
	// canary user (dimension Canary).
	CanaryNamespace = "oncetable/canary"
)

// Region watch metric names: each is one value per batch that found some.
const (
	// OutsideOwnerWrites is the ledger entries written outside the cell's
	// owner at their epoch that reached this Region after it claimed a
	// later one: quarantined late writes.
	OutsideOwnerWrites = "OutsideOwnerWrites"
	// OutsideOwnerAmount is their amounts' sum, in minor units of any
	// currency (the quarantine items name each).
	OutsideOwnerAmount = "OutsideOwnerAmount"
	// LedgerMismatches is the accounts homed here whose ledger does not
	// sum to their balance, or whose balance is negative, after a change.
	LedgerMismatches = "LedgerMismatches"
)

// CanarySuccess is 1 per canary run that moved money and got it back as
// expected, 0 per run that did not.
const CanarySuccess = "Success"

// Business outcome metric names.
const (
	Created           = "Created"
	Replayed          = "Replayed"
	InsufficientFunds = "InsufficientFunds"
	KeyReused         = "KeyReused"
	Rejected          = "Rejected"
	Frozen            = "Frozen"
)

// Fault metric names.
const (
	ConflictRetried = "ConflictRetried"
	Throttled       = "Throttled"
	Unavailable     = "Unavailable"
	Error           = "Error"
	// FenceCancelled is a money transaction the home fence cancelled
	// (runtime/home): the cell's owner or epoch changed while it ran.
	FenceCancelled = "FenceCancelled"
	// LeaseLost is a money request refused because this Region's lease on
	// the cell ran out and could not be renewed (home.ErrLeaseExpired).
	LeaseLost = "LeaseLost"
)

// Reconciliation metric names: each is one value per step or per pass.
const (
	// ReconcileViolations is the violations a finished pass found that a
	// strongly consistent re-read confirmed; any pages.
	ReconcileViolations = "Violations"
	// ReconcileUnconfirmed is the violations a finished pass found that
	// the re-read no longer showed (transactions in flight).
	ReconcileUnconfirmed = "Unconfirmed"
	// ReconcilePassCompleted is 1 per finished pass.
	ReconcilePassCompleted = "PassCompleted"
	// ReconcilePassSeconds is a finished pass's age, from its first scan
	// page to its verdict.
	ReconcilePassSeconds = "PassSeconds"
	// ReconcileItems is the items one step scanned.
	ReconcileItems = "ItemsScanned"
	// ReconcileConsumedRCU is the read capacity one step consumed.
	ReconcileConsumedRCU = "ConsumedRCU"
	// ReconcileSkipped is 1 per invocation that found another holding the
	// checkpoint's lease.
	ReconcileSkipped = "Skipped"
)

// Totaller metric names: each is one value per batch.
const (
	// TotalsEntries is the ledger entries a batch added to the platform
	// totals.
	TotalsEntries = "EntriesTotalled"
	// TotalsRedelivered is the entries of a batch already totalled (a
	// redelivered stream record), left out.
	TotalsRedelivered = "EntriesRedelivered"
	// TotalsConflicts is the totals transactions of a batch cancelled by a
	// conflict on a shard and sent again on the next one.
	TotalsConflicts = "ShardConflicts"
	// TotalsMissing is the entries of a batch no longer in the table,
	// whose legs were not totalled.
	TotalsMissing = "EntriesMissing"
)

// NewLogger returns a JSON slog logger on w (os.Stdout when nil). A line
// logged with a context that holds a span (runtime/tracing) carries its
// traceId, xrayTraceId and spanId.
func NewLogger(w io.Writer) *slog.Logger {
	if w == nil {
		w = os.Stdout
	}
	return slog.New(traceHandler{slog.NewJSONHandler(w, nil)})
}

// KeyHash is what logs show for an idempotency key: the first 16 hex digits
// of its SHA-256.
func KeyHash(key string) string {
	if key == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:8])
}

// Metrics writes EMF lines. The zero value discards; use [NewMetrics].
type Metrics struct {
	mu  sync.Mutex
	w   io.Writer
	now func() time.Time
}

// NewMetrics writes EMF lines to w (os.Stdout when nil).
func NewMetrics(w io.Writer) *Metrics {
	if w == nil {
		w = os.Stdout
	}
	return &Metrics{w: w, now: time.Now}
}

// Business counts one business outcome of flow.
func (m *Metrics) Business(flow, name string) { m.emit(BusinessNamespace, flow, name) }

// Fault counts one fault of flow.
func (m *Metrics) Fault(flow, name string) { m.emit(FaultNamespace, flow, name) }

// Reconcile records value of the reconciliation metric name for table.
func (m *Metrics) Reconcile(table, name string, value float64) {
	unit := "Count"
	if name == ReconcilePassSeconds {
		unit = "Seconds"
	}
	m.value(ReconcileNamespace, "Table", table, name, unit, value)
}

// Totals records value of the totaller's metric name for table.
func (m *Metrics) Totals(table, name string, value float64) {
	m.value(TotalsNamespace, "Table", table, name, "Count", value)
}

// Regions records value of the region watch's metric name for table.
func (m *Metrics) Regions(table, name string, value float64) {
	m.value(RegionsNamespace, "Table", table, name, "Count", value)
}

// Canary records value of the canary's metric name for the canary user.
func (m *Metrics) Canary(user, name string, value float64) {
	m.value(CanaryNamespace, "Canary", user, name, "Count", value)
}

// value writes one value of a metric with one dimension.
func (m *Metrics) value(namespace, dimension, dimValue, name, unit string, value float64) {
	if m == nil || m.w == nil {
		return
	}
	m.write(map[string]any{
		"_aws": map[string]any{
			"Timestamp": m.now().UnixMilli(),
			"CloudWatchMetrics": []any{map[string]any{
				"Namespace":  namespace,
				"Dimensions": [][]string{{dimension}},
				"Metrics":    []any{map[string]string{"Name": name, "Unit": unit}},
			}},
		},
		dimension: dimValue,
		name:      value,
	})
}

func (m *Metrics) write(line map[string]any) {
	b, err := json.Marshal(line)
	if err != nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.w.Write(append(b, '\n'))
}

func (m *Metrics) emit(namespace, flow, name string) {
	if m == nil || m.w == nil {
		return
	}
	line := map[string]any{
		"_aws": map[string]any{
			"Timestamp": m.now().UnixMilli(),
			"CloudWatchMetrics": []any{map[string]any{
				"Namespace": namespace,
				// Per flow, and across flows (an empty dimension set) for the
				// alarms, which cannot sum an open set of flows.
				"Dimensions": [][]string{{"Flow"}, {}},
				"Metrics":    []any{map[string]string{"Name": name, "Unit": "Count"}},
			}},
		},
		"Flow": flow,
		name:   1,
	}
	b, err := json.Marshal(line)
	if err != nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.w.Write(append(b, '\n'))
}

// syncWriter serialises writes from the logger and the metrics, which may
// share one writer.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// Sync returns w made safe for concurrent writers (os.Stdout when nil).
func Sync(w io.Writer) io.Writer {
	if w == nil {
		w = os.Stdout
	}
	if s, ok := w.(*syncWriter); ok {
		return s
	}
	return &syncWriter{w: w}
}
