package oncall

import (
	"fmt"
	"sort"
	"strings"
)

// Severity says who learns of an alarm and how fast.
type Severity string

// Severities.
const (
	// Page wakes the on-call engineer: money is failing or about to be lost.
	Page Severity = "page"
	// Ticket is work for office hours: budgets, conflicts, capacity, causes
	// whose symptoms page on their own.
	Ticket Severity = "ticket"
)

// Valid reports whether s is Page or Ticket.
func (s Severity) Valid() bool { return s == Page || s == Ticket }

// Group is the part of the system an alarm watches; the dashboard shows
// the alarm status of each group.
type Group string

// Groups, in the order the dashboard shows them.
const (
	GroupOperations Group = "operations"
	GroupAPI        Group = "api"
	GroupFunctions  Group = "functions"
	GroupEvents     Group = "events"
	GroupTable      Group = "table"
	GroupBackup     Group = "backup"
)

// Kind is a class of alarms that share a runbook section and a route.
type Kind struct {
	// Name is the anchor of the kind's section in docs/runbook.md and its
	// key in cdk.json alarms.routing.
	Name string
	// Severity is where the kind goes unless routed elsewhere.
	Severity Severity
	// Group is the dashboard group of its alarms.
	Group Group
}

// The kinds. Rates and lasting conditions page; causes whose user-visible
// symptom already pages (throttles, system errors, duration) are tickets.
var (
	AlarmDeliveryFailed = Kind{"alarm-delivery-failed", Page, GroupOperations}
	MoneyFrozen         = Kind{"money-frozen", Ticket, GroupOperations}

	APIServerErrorRate  = Kind{"api-5xx-rate", Page, GroupAPI}
	MoneyRouteErrorRate = Kind{"money-route-5xx-rate", Page, GroupAPI}
	APIClientErrorSurge = Kind{"api-4xx-surge", Page, GroupAPI}
	APIThrottledRate    = Kind{"api-429-rate", Page, GroupAPI}
	APILatency          = Kind{"api-latency", Ticket, GroupAPI}
	NoSettledPayment    = Kind{"no-settled-payment", Page, GroupAPI}
	// The money routes' objectives (constructs/slo): a fast burn of the
	// error budget pages, a slow one opens a ticket.
	SLOAvailabilityFastBurn = Kind{"slo-availability-fast-burn", Page, GroupAPI}
	SLOAvailabilitySlowBurn = Kind{"slo-availability-slow-burn", Ticket, GroupAPI}
	SLOLatencyFastBurn      = Kind{"slo-latency-fast-burn", Page, GroupAPI}
	SLOLatencySlowBurn      = Kind{"slo-latency-slow-burn", Ticket, GroupAPI}
	// CanaryFailed: the synthetic probe (constructs/canary) failed or
	// stopped reporting.
	CanaryFailed         = Kind{"canary-failed", Page, GroupAPI}
	MoneyFunctionErrors  = Kind{"money-function-errors", Page, GroupFunctions}
	FunctionErrors       = Kind{"function-errors", Ticket, GroupFunctions}
	FunctionThrottles    = Kind{"function-throttles", Ticket, GroupFunctions}
	FunctionDuration     = Kind{"function-duration", Ticket, GroupFunctions}
	FunctionConcurrency  = Kind{"function-concurrency", Ticket, GroupFunctions}
	SecretRotationFailed = Kind{"secret-rotation-failed", Ticket, GroupFunctions}
	UnavailableAnswers   = Kind{"unavailable-answers", Page, GroupFunctions}
	UnexpectedErrors     = Kind{"unexpected-errors", Ticket, GroupFunctions}
	KeyReuseSurge        = Kind{"key-reuse-surge", Ticket, GroupAPI}
	FenceCancellations   = Kind{"fence-cancellations", Ticket, GroupFunctions}
	LeaseLost            = Kind{"lease-lost", Page, GroupFunctions}

	StreamConsumerLag   = Kind{"stream-consumer-lag", Page, GroupEvents}
	StreamConsumerStuck = Kind{"stream-consumer-stuck", Page, GroupEvents}
	EventsDeadLetters   = Kind{"events-dead-letters", Page, GroupEvents}
	TotalsLag           = Kind{"totals-lag", Ticket, GroupEvents}
	TotalsDeadLetters   = Kind{"totals-dead-letters", Ticket, GroupEvents}

	TableThrottles        = Kind{"table-throttles", Ticket, GroupTable}
	TableHotPartition     = Kind{"table-hot-partition", Ticket, GroupTable}
	TableOnDemandMaximum  = Kind{"table-on-demand-maximum", Ticket, GroupTable}
	TableSystemErrors     = Kind{"table-system-errors", Ticket, GroupTable}
	TransactionConflicts  = Kind{"transaction-conflicts", Ticket, GroupTable}
	ReconcileViolations   = Kind{"reconcile-violations", Page, GroupTable}
	ReconcileStalled      = Kind{"reconcile-stalled", Ticket, GroupTable}
	OutsideOwnerWrites    = Kind{"outside-owner-writes", Page, GroupTable}
	LedgerMismatch        = Kind{"ledger-mismatch", Page, GroupTable}
	ReplicationLatency    = Kind{"replication-latency", Ticket, GroupTable}
	TableCapacityBudget   = Kind{"table-capacity-budget", Ticket, GroupTable}
	BackupJobFailed       = Kind{"backup-job-failed", Page, GroupBackup}
	BackupMissing         = Kind{"backup-missing", Page, GroupBackup}
	BackupEventsUndeliver = Kind{"backup-events-undelivered", Ticket, GroupBackup}
	RestoreValidation     = Kind{"restore-validation-failed", Page, GroupBackup}
	RestoreValidationLost = Kind{"restore-validation-lost", Ticket, GroupBackup}
)

// Kinds lists every kind, sorted by name.
func Kinds() []Kind {
	k := []Kind{
		AlarmDeliveryFailed, MoneyFrozen,
		APIServerErrorRate, MoneyRouteErrorRate, APIClientErrorSurge, APIThrottledRate, APILatency, NoSettledPayment,
		SLOAvailabilityFastBurn, SLOAvailabilitySlowBurn, SLOLatencyFastBurn, SLOLatencySlowBurn, CanaryFailed,
		MoneyFunctionErrors, FunctionErrors, FunctionThrottles, FunctionDuration, FunctionConcurrency, SecretRotationFailed,
		UnavailableAnswers, UnexpectedErrors, KeyReuseSurge, FenceCancellations, LeaseLost,
		StreamConsumerLag, StreamConsumerStuck, EventsDeadLetters, TotalsLag, TotalsDeadLetters,
		TableThrottles, TableHotPartition, TableOnDemandMaximum, TableSystemErrors, TransactionConflicts, TableCapacityBudget,
		ReconcileViolations, ReconcileStalled, OutsideOwnerWrites, LedgerMismatch, ReplicationLatency,
		BackupJobFailed, BackupMissing, BackupEventsUndeliver, RestoreValidation, RestoreValidationLost,
	}
	sort.Slice(k, func(i, j int) bool { return k[i].Name < k[j].Name })
	return k
}

// Lookup finds a kind by name.
func Lookup(name string) (Kind, bool) {
	for _, k := range Kinds() {
		if k.Name == name {
			return k, true
		}
	}
	return Kind{}, false
}

// Groups lists the groups in dashboard order.
func Groups() []Group {
	return []Group{GroupOperations, GroupAPI, GroupFunctions, GroupEvents, GroupTable, GroupBackup}
}

// Routing moves kinds, by name, away from their default severity. nil
// routes every kind to its default.
type Routing map[string]Severity

// RoutingError names a routing entry that is not a kind or a severity.
type RoutingError struct {
	Kind     string
	Severity Severity
}

func (e *RoutingError) Error() string {
	if _, ok := Lookup(e.Kind); !ok {
		names := make([]string, 0, len(Kinds()))
		for _, k := range Kinds() {
			names = append(names, k.Name)
		}
		return fmt.Sprintf("%q is not an alarm kind (%s)", e.Kind, strings.Join(names, ", "))
	}
	return fmt.Sprintf("%q: severity %q is not %q or %q", e.Kind, e.Severity, Page, Ticket)
}

// Validate reports the first entry, in name order, that names no kind or
// no severity, as a *RoutingError.
func (r Routing) Validate() error {
	names := make([]string, 0, len(r))
	for n := range r {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if _, ok := Lookup(n); !ok || !r[n].Valid() {
			return &RoutingError{Kind: n, Severity: r[n]}
		}
	}
	return nil
}

// SeverityOf is k's severity under r.
func (r Routing) SeverityOf(k Kind) Severity {
	if s, ok := r[k.Name]; ok {
		return s
	}
	return k.Severity
}

// DefaultRunbookURL is the runbook the alarm descriptions link to unless an
// environment sets its own (cdk.json alarms.runbookUrl).
const DefaultRunbookURL = "https://github.com/oncetable/oncetable/blob/main/docs/runbook.md"

// Link is the address of k's section in the runbook at base.
func (k Kind) Link(base string) string { return base + "#" + k.Name }
