package ddblocal

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// Faults describes failures the engine injects, so that a client's
// retries and idempotency can be tested against what production sees.
// Rates are probabilities between 0 and 1, drawn from a random source
// seeded by Seed, so that a run is reproducible when requests arrive in the
// same order. The zero value injects nothing.
type Faults struct {
	// Seed seeds the random source. SetFaults reseeds it.
	Seed uint64

	// Latency is added to every request before it runs.
	Latency time.Duration

	// ThrottleRate is the share of data-plane requests (item reads and
	// writes, queries, scans, transactions) rejected before they run. In a
	// batch, each item is drawn separately and a throttled item is returned
	// unprocessed; the batch fails only when every item is throttled.
	ThrottleRate float64

	// ThrottleCode is the error a throttled request gets:
	// ProvisionedThroughputExceededException (the default) or
	// ThrottlingException.
	ThrottleCode string

	// UnprocessedRate is the share of BatchWriteItem and BatchGetItem items
	// returned in UnprocessedItems or UnprocessedKeys without an error.
	UnprocessedRate float64

	// TransactionConflictRate is the share of TransactWriteItems and
	// TransactGetItems cancelled with a TransactionConflict reason on one
	// of their items, before anything is applied.
	TransactionConflictRate float64

	// WriteConflictRate is the share of PutItem, UpdateItem and DeleteItem
	// requests rejected with TransactionConflictException, as when the item
	// is part of an ongoing transaction.
	WriteConflictRate float64

	// LoseResponseRate is the share of successful writes (PutItem,
	// UpdateItem, DeleteItem, BatchWriteItem, TransactWriteItems) that are
	// committed but whose response is lost as LoseResponseMode says.
	LoseResponseRate float64

	// LoseResponseMode says how a response is lost. Default: LoseAs500.
	LoseResponseMode LoseMode

	// GSIDelay holds back writes to global secondary indexes for this long,
	// as DynamoDB's eventually consistent indexes do. Local indexes are
	// never delayed.
	GSIDelay time.Duration

	// StreamDelay holds back stream records from GetRecords until they
	// are this old, the lag a stream consumer sees in production. Their
	// sequence numbers and creation times are those of the commit.
	StreamDelay time.Duration

	// TornBackups makes CreateBackup and RestoreTableToPointInTime of the
	// table capture only part of its most recent transaction (the one
	// before the restore time), as DynamoDB warns a backup taken while a
	// transaction propagates may: the first half of the transaction's
	// items (at least one) as it wrote them, the rest as they were before.
	// CreateBackup tears the last transaction of a table with PITR or a
	// data directory (others keep no record of their transactions).
	TornBackups bool

	// Operations limits every fault but GSIDelay and StreamDelay to the
	// named operations ("TransactWriteItems", "PutItem", ...). Default: all
	// operations.
	Operations []string
}

// applies reports whether the faults cover an operation.
func (f Faults) applies(op string) bool {
	if len(f.Operations) == 0 {
		return true
	}
	for _, o := range f.Operations {
		if o == op {
			return true
		}
	}
	return false
}

// LoseMode says how a lost response reaches the client.
type LoseMode int

const (
	// LoseAs500 answers with HTTP 500 InternalServerError.
	LoseAs500 LoseMode = iota
	// LoseAsReset closes the connection without an answer (in process, the
	// round tripper returns a connection-reset error).
	LoseAsReset
)

func (m LoseMode) String() string {
	if m == LoseAsReset {
		return "reset"
	}
	return "500"
}

// FaultCounts counts the faults injected so far.
type FaultCounts struct {
	Throttled            int64 // requests rejected as throttled
	ThrottledItems       int64 // batch items returned unprocessed because of throttling
	Unprocessed          int64 // batch items returned unprocessed by UnprocessedRate
	TransactionConflicts int64 // transactions cancelled with TransactionConflict
	WriteConflicts       int64 // single-item writes rejected with TransactionConflictException
	LostResponses        int64 // committed writes whose response was lost
	DelayedIndexWrites   int64 // GSI writes held back by GSIDelay
	Latency              time.Duration
}

func (c *FaultCounts) add(o FaultCounts) {
	c.Throttled += o.Throttled
	c.ThrottledItems += o.ThrottledItems
	c.Unprocessed += o.Unprocessed
	c.TransactionConflicts += o.TransactionConflicts
	c.WriteConflicts += o.WriteConflicts
	c.LostResponses += o.LostResponses
	c.DelayedIndexWrites += o.DelayedIndexWrites
	c.Latency += o.Latency
}

type faultKind int

const (
	faultControl faultKind = iota
	faultRead
	faultWrite
	faultBatch
	faultTransact
	faultTransactRead
)

type loseKind int

const (
	loseNone loseKind = iota
	loseAs500
	loseAsReset
)

type faultInjector struct {
	// active is set while any faults are configured, so that requests on
	// a fault-free engine skip the mutex.
	active atomic.Bool

	mu       sync.Mutex
	engine   Faults
	perTable map[string]Faults
	rng      *rand.Rand
	counts   map[string]*FaultCounts
}

func newFaultInjector(f Faults) *faultInjector {
	fi := &faultInjector{
		engine:   f,
		perTable: map[string]Faults{},
		rng:      rand.New(rand.NewPCG(f.Seed, f.Seed^0x9E3779B97F4A7C15)),
		counts:   map[string]*FaultCounts{},
	}
	fi.refresh()
	return fi
}

// refresh recomputes active; the caller holds mu (or owns fi).
func (fi *faultInjector) refresh() {
	on := !fi.engine.none()
	for _, f := range fi.perTable {
		on = on || !f.none()
	}
	fi.active.Store(on)
}

// none reports whether f injects nothing.
func (f Faults) none() bool {
	return f.Latency == 0 && f.ThrottleRate <= 0 && f.UnprocessedRate <= 0 && f.TransactionConflictRate <= 0 &&
		f.WriteConflictRate <= 0 && f.LoseResponseRate <= 0 && f.GSIDelay == 0 && f.StreamDelay == 0 &&
		!f.TornBackups
}

// SetFaults sets the faults of one table, or of the whole engine when
// table is "". A table's own faults replace the engine's for that table.
// It reseeds the random source with f.Seed.
func (e *Engine) SetFaults(table string, f Faults) {
	fi := e.faults
	fi.mu.Lock()
	defer fi.mu.Unlock()
	if table == "" {
		fi.engine = f
	} else {
		fi.perTable[table] = f
	}
	fi.rng = rand.New(rand.NewPCG(f.Seed, f.Seed^0x9E3779B97F4A7C15))
	fi.refresh()
}

// ClearFaults removes a table's own faults (or the engine's, for "").
func (e *Engine) ClearFaults(table string) {
	fi := e.faults
	fi.mu.Lock()
	defer fi.mu.Unlock()
	if table == "" {
		fi.engine = Faults{}
	} else {
		delete(fi.perTable, table)
	}
	fi.refresh()
}

// FaultCounts returns the faults injected so far, over all tables.
func (e *Engine) FaultCounts() FaultCounts {
	fi := e.faults
	fi.mu.Lock()
	defer fi.mu.Unlock()
	var total FaultCounts
	for _, c := range fi.counts {
		total.add(*c)
	}
	e.mu.RLock()
	for _, t := range e.tables {
		total.DelayedIndexWrites += t.delayedWrites.Load()
	}
	e.mu.RUnlock()
	return total
}

// TableFaultCounts returns the faults injected so far on one table.
func (e *Engine) TableFaultCounts(table string) FaultCounts {
	fi := e.faults
	fi.mu.Lock()
	defer fi.mu.Unlock()
	var out FaultCounts
	if c := fi.counts[table]; c != nil {
		out = *c
	}
	if t, err := e.table(table); err == nil {
		out.DelayedIndexWrites = t.delayedWrites.Load()
	}
	return out
}

// forTable returns the faults in force for a table; the caller holds mu.
func (fi *faultInjector) forTable(table string) Faults {
	if f, ok := fi.perTable[table]; ok {
		return f
	}
	return fi.engine
}

func (fi *faultInjector) count(table string) *FaultCounts {
	c := fi.counts[table]
	if c == nil {
		c = &FaultCounts{}
		fi.counts[table] = c
	}
	return c
}

// draw reports whether an event of probability p happens.
func (fi *faultInjector) draw(p float64) bool {
	if p <= 0 {
		return false
	}
	return p >= 1 || fi.rng.Float64() < p
}

// before applies latency, throttling and write conflicts to a request on
// tables.
func (fi *faultInjector) before(ctx context.Context, kind faultKind, opName string, tables []string) error {
	if len(tables) == 0 || !fi.active.Load() {
		return nil
	}
	fi.mu.Lock()
	var latency time.Duration
	for _, t := range tables {
		if f := fi.forTable(t); f.applies(opName) {
			latency = max(latency, f.Latency)
		}
	}
	first := tables[0]
	f := fi.forTable(first)
	if !f.applies(opName) {
		f = Faults{}
	}
	var err error
	switch kind {
	case faultRead, faultWrite, faultTransact, faultTransactRead:
		if fi.draw(f.ThrottleRate) {
			fi.count(first).Throttled++
			err = throttleError(f)
		} else if kind == faultWrite && fi.draw(f.WriteConflictRate) {
			fi.count(first).WriteConflicts++
			err = newError(CodeTransactionConflict, "Transaction is ongoing for the item")
		}
	}
	if latency > 0 {
		fi.count(first).Latency += latency
	}
	fi.mu.Unlock()
	if latency > 0 {
		t := time.NewTimer(latency)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
	return err
}

func throttleError(f Faults) *APIError {
	if f.ThrottleCode == CodeThrottling {
		return newError(CodeThrottling, "Rate of requests exceeds the allowed throughput.")
	}
	return newError(CodeProvisionedThroughputExceeded, "The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.")
}

// batchItem decides whether one batch item on table is left unprocessed.
func (fi *faultInjector) batchItem(opName, table string) (unprocessed, throttled bool) {
	if !fi.active.Load() {
		return false, false
	}
	fi.mu.Lock()
	defer fi.mu.Unlock()
	f := fi.forTable(table)
	if !f.applies(opName) {
		return false, false
	}
	if fi.draw(f.ThrottleRate) {
		fi.count(table).ThrottledItems++
		return true, true
	}
	if fi.draw(f.UnprocessedRate) {
		fi.count(table).Unprocessed++
		return true, false
	}
	return false, false
}

// throttleErrorFor returns the throttling error of a table.
func (fi *faultInjector) throttleErrorFor(table string) *APIError {
	fi.mu.Lock()
	defer fi.mu.Unlock()
	return throttleError(fi.forTable(table))
}

// transactionConflict returns the index of the item (out of n) a conflict
// cancels the transaction on, or -1.
func (fi *faultInjector) transactionConflict(opName string, tables []string, n int) int {
	if len(tables) == 0 || n == 0 || !fi.active.Load() {
		return -1
	}
	fi.mu.Lock()
	defer fi.mu.Unlock()
	f := fi.forTable(tables[0])
	if !f.applies(opName) || !fi.draw(f.TransactionConflictRate) {
		return -1
	}
	fi.count(tables[0]).TransactionConflicts++
	return fi.rng.IntN(n)
}

// loseResponse decides whether the response to a committed write is lost.
func (fi *faultInjector) loseResponse(opName string, tables []string) loseKind {
	if len(tables) == 0 || !fi.active.Load() {
		return loseNone
	}
	fi.mu.Lock()
	defer fi.mu.Unlock()
	f := fi.forTable(tables[0])
	if !f.applies(opName) || !fi.draw(f.LoseResponseRate) {
		return loseNone
	}
	fi.count(tables[0]).LostResponses++
	if f.LoseResponseMode == LoseAsReset {
		return loseAsReset
	}
	return loseAs500
}

// gsiDelay returns the GSI propagation delay of a table.
func (fi *faultInjector) gsiDelay(table string) time.Duration {
	if !fi.active.Load() {
		return 0
	}
	fi.mu.Lock()
	defer fi.mu.Unlock()
	return fi.forTable(table).GSIDelay
}

// streamDelay returns the stream record delay of a table.
func (fi *faultInjector) streamDelay(table string) time.Duration {
	if !fi.active.Load() {
		return 0
	}
	fi.mu.Lock()
	defer fi.mu.Unlock()
	return fi.forTable(table).StreamDelay
}

// torn reports whether backups and restores of a table tear its last
// transaction (Faults.TornBackups).
func (fi *faultInjector) torn(table string) bool {
	if !fi.active.Load() {
		return false
	}
	fi.mu.Lock()
	defer fi.mu.Unlock()
	return fi.forTable(table).TornBackups
}
