package obs

// Metric is one EMF metric the runtime emits. Business and fault metrics
// are counted per flow (dimension Flow) and across flows (no dimension);
// reconciliation's are values per table (dimension Table).
type Metric struct {
	Namespace string
	Name      string
	// Meaning is what one count says, for the dashboard's graphs.
	Meaning string
}

// Catalogue is every metric the runtime emits. The constructs graph each
// one and alarm on those that mean trouble; a test fails when the runtime
// emits a name that is not here, so a new metric is never watched by
// nobody.
func Catalogue() []Metric {
	return []Metric{
		{BusinessNamespace, Created, "a money flow applied a request (2xx)"},
		{BusinessNamespace, Replayed, "a retry answered with the stored answer of its Idempotency-Key"},
		{BusinessNamespace, InsufficientFunds, "a debit or charge declined: not enough balance (402)"},
		{BusinessNamespace, KeyReused, "an Idempotency-Key reused with another request (422)"},
		{BusinessNamespace, Frozen, "a money flow refused by the kill switch (503, runtime/freeze)"},
		{BusinessNamespace, Rejected, "any other refused request (4xx: validation, not found, conflict)"},
		{FaultNamespace, ConflictRetried, "a transaction conflict retried inside the request"},
		{FaultNamespace, Throttled, "a DynamoDB throttle retried inside the request"},
		{FaultNamespace, Unavailable, "a request answered 503: DynamoDB unavailable or its retries spent"},
		{FaultNamespace, Error, "a request answered 500: an unexpected error"},
		{FaultNamespace, FenceCancelled, "a money transaction the home fence cancelled: the cell moved to another Region or epoch while it ran"},
		{FaultNamespace, LeaseLost, "a money request refused: this Region's lease on the cell ran out and the lease store did not renew it"},
		{ReconcileNamespace, ReconcileViolations, "violations of a finished reconciliation pass, confirmed by a consistent re-read (runtime/reconcile)"},
		{ReconcileNamespace, ReconcileUnconfirmed, "violations a pass saw that the re-read no longer shows: transactions in flight"},
		{ReconcileNamespace, ReconcilePassCompleted, "a reconciliation pass over the whole table finished"},
		{ReconcileNamespace, ReconcilePassSeconds, "a finished pass's age, from its first page to its verdict"},
		{ReconcileNamespace, ReconcileItems, "items one reconciliation step scanned"},
		{ReconcileNamespace, ReconcileConsumedRCU, "read capacity one reconciliation step consumed"},
		{ReconcileNamespace, ReconcileSkipped, "an invocation that found the checkpoint's lease held by another"},
		{CanaryNamespace, CanarySuccess, "a canary run: 1 when it moved money through the API and got it back, 0 when a step failed (runtime/canary)"},
		{TotalsNamespace, TotalsEntries, "ledger entries whose platform legs a batch added to the platform totals (runtime/platform)"},
		{TotalsNamespace, TotalsRedelivered, "entries of a batch already totalled, left out: a redelivered stream record"},
		{TotalsNamespace, TotalsConflicts, "totals transactions cancelled by a conflict on a shard and sent again on the next shard"},
		{RegionsNamespace, OutsideOwnerWrites, "ledger entries an old home wrote at an epoch that reached this Region after it claimed a later one, quarantined (runtime/regionwatch)"},
		{RegionsNamespace, OutsideOwnerAmount, "the amounts of those entries, in minor units"},
		{RegionsNamespace, LedgerMismatches, "accounts homed in this Region whose ledger does not sum to the balance, or whose balance is negative, after a change"},
		{TotalsNamespace, TotalsMissing, "entries of a batch not in the table: their legs are not in the totals (runbook)"},
	}
}

// Known reports whether name is a metric of the catalogue in namespace.
func Known(namespace, name string) bool {
	for _, m := range Catalogue() {
		if m.Namespace == namespace && m.Name == name {
			return true
		}
	}
	return false
}
