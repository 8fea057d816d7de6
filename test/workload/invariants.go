package workload

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/store"
)

// Invariants of the money that flows back, checked on the table at every
// check point and at the end (CheckTable).
const (
	InvRefundsWithinPaid = "an order's refunds never exceed what was paid: they sum to at most its total, on a paid order only, and agree with its refunded amount, status and refund entries"
	InvCaptureWithinHold = "a hold is captured at most once and never for more than it held; an open hold is on its user's profile with its amount, a closed one is not"
	InvAvailable         = "the available balance (balance less live holds) is never below zero, at any read, check point or the end"
)

// CheckTable checks the invariants that hold of the table at any moment,
// even while requests run: each is about one item, or about items that
// only ever grow (refunds, capture entries), so a scan that reads them at
// different times still sees them hold; an item the scan had passed when
// it was created (a hold whose capture entry it read) is checked only at
// the end. With final (the table at rest) it
// also checks the equalities that hold only between requests: an order's
// refunded amount is the sum of its refunds, a captured hold has its entry.
func CheckTable(st *State, final bool) []Violation {
	var out []Violation
	fail := func(inv, format string, a ...any) {
		out = append(out, Violation{Invariant: inv, Detail: fmt.Sprintf(format, a...)})
	}
	for _, id := range sortedIDs(st.Users) {
		if u := st.Users[id]; u.Balance < 0 {
			fail(InvAvailable, "user %s: balance %d with %d open holds taken out of it", id, u.Balance, len(u.Holds))
		}
	}
	for _, e := range st.Ledger {
		if err := entryLegs(e); err != "" {
			fail(InvDoubleEntry, "%s", err)
		}
	}
	refunds(st, final, fail)
	captures(st, final, fail)
	return out
}

// entryLegs checks one entry's double entry: legs that sum to zero, one on
// its kind's platform account; "" when they do.
func entryLegs(e store.LedgerEntry) string {
	counter := false
	for _, l := range e.Posting() {
		counter = counter || l.Account == store.CounterAccount(e.Kind)
	}
	if e.Net() == 0 && counter {
		return ""
	}
	return fmt.Sprintf("ledger entry %s (%s of %d) of user %s has legs %v: they sum to %d, want 0 with a leg on %s",
		e.EntryID, e.Kind, e.Amount, e.UserID, e.Posting(), e.Net(), store.CounterAccount(e.Kind))
}

func refunds(st *State, final bool, fail func(inv, format string, a ...any)) {
	items, entries := map[string]int64{}, map[string]int64{}
	for _, r := range st.Refunds {
		items[r.OrderID] += r.Amount
	}
	for _, e := range st.Ledger {
		if e.Kind == store.LedgerRefund {
			entries[e.OrderID] += e.Amount
		}
	}
	for _, id := range sortedIDs(items) {
		o, ok := st.Orders[id]
		switch {
		case !ok:
			fail(InvRefundsWithinPaid, "refunds of %d for order %s, which does not exist", items[id], id)
		case items[id] > o.Total:
			fail(InvRefundsWithinPaid, "order %s (total %d): refunds sum to %d", id, o.Total, items[id])
		case !store.WasPaid(o.Status):
			fail(InvRefundsWithinPaid, "order %s is %s, yet has refunds of %d", id, o.Status, items[id])
		}
	}
	for _, id := range sortedIDs(st.Orders) {
		o := st.Orders[id]
		if o.Refunded > o.Total || o.Refunded < 0 {
			fail(InvRefundsWithinPaid, "order %s (total %d) says it refunded %d", id, o.Total, o.Refunded)
		}
		if !final {
			continue
		}
		want := store.OrderPaid
		switch {
		case o.Refunded == o.Total && o.Total > 0:
			want = store.OrderRefunded
		case o.Refunded > 0:
			want = store.OrderPartiallyRefunded
		}
		moneyStatus := o.Status == store.OrderPaid || o.Status == store.OrderPartiallyRefunded || o.Status == store.OrderRefunded
		if o.Refunded != items[id] || o.Refunded != entries[id] || moneyStatus && o.Status != want { // shipped and delivered keep their status under a partial refund
			fail(InvRefundsWithinPaid, "order %s (total %d, %s): refunded %d, refund items %d, refund entries %d",
				id, o.Total, o.Status, o.Refunded, items[id], entries[id])
		}
	}
}

func captures(st *State, final bool, fail func(inv, format string, a ...any)) {
	entries, sums := map[string]int{}, map[string]int64{}
	for _, e := range st.Ledger {
		if e.Kind == store.LedgerCapture {
			entries[e.HoldID]++
			sums[e.HoldID] += e.Amount
		}
	}
	for _, id := range sortedIDs(entries) {
		h, ok := st.Holds[id]
		switch {
		case !ok && !final:
			// A scan's pages are read at different times, and a user's holds
			// (HOLD#) sort before its ledger (LEDGER#): a hold authorized and
			// captured while the scan was between them is behind its position
			// when its capture entry is read. The final check sees both.
		case !ok:
			fail(InvCaptureWithinHold, "%d capture entries for hold %s, which does not exist", entries[id], id)
		case entries[id] > 1:
			fail(InvCaptureWithinHold, "hold %s of user %s (%d) captured %d times, for %d in all", id, h.UserID, h.Amount, entries[id], sums[id])
		case sums[id] > h.Amount:
			fail(InvCaptureWithinHold, "hold %s of user %s held %d, captured %d", id, h.UserID, h.Amount, sums[id])
		}
	}
	open := map[string]store.OpenHold{}
	for _, u := range st.Users {
		for id, oh := range u.Holds {
			open[id] = oh
		}
	}
	for _, id := range sortedIDs(st.Holds) {
		h := st.Holds[id]
		if h.Captured > h.Amount {
			fail(InvCaptureWithinHold, "hold %s of user %s held %d, says captured %d", id, h.UserID, h.Amount, h.Captured)
		}
		if !final {
			continue
		}
		oh, isOpen := open[id]
		switch {
		case h.Status == store.HoldCaptured && (isOpen || h.Captured > 0 && (entries[id] != 1 || sums[id] != h.Captured)):
			fail(InvCaptureWithinHold, "hold %s captured %d: on the profile %v, %d capture entries for %d", id, h.Captured, isOpen, entries[id], sums[id])
		case h.Status == store.HoldVoided && (isOpen || entries[id] > 0):
			fail(InvCaptureWithinHold, "hold %s voided: on the profile %v, %d capture entries", id, isOpen, entries[id])
		case h.Status == store.HoldAuthorized && (entries[id] > 0 || isOpen && oh.Amount != h.Amount):
			fail(InvCaptureWithinHold, "hold %s authorized for %d: %d capture entries, on the profile for %d", id, h.Amount, entries[id], oh.Amount)
		}
		delete(open, id)
	}
	if final {
		for _, id := range sortedIDs(open) {
			fail(InvCaptureWithinHold, "the profile holds %d for hold %s, which has no hold item", open[id].Amount, id)
		}
	}
}

func sortedIDs[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// checkPoints are the scans of the table during a run: one at the start
// of every fault window after the first, each checked with CheckTable. A
// scan still running when the next window starts makes that window skip
// its own.
type checkPoints struct {
	mu   sync.Mutex
	wg   sync.WaitGroup
	busy bool
	n    int
	seen map[string]bool
	out  []Violation
}

// take starts check point i at offset at, unless one is still running.
func (p *checkPoints) take(ctx context.Context, eng *ddblocal.Engine, i int, at time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.busy {
		return
	}
	p.busy = true
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		st, err := ReadState(ctx, eng.Client(patientReads), Table)
		p.mu.Lock()
		defer p.mu.Unlock()
		p.busy = false
		if err != nil {
			return // the run ended or the faults outlasted the retries: no check point
		}
		p.n++
		if p.seen == nil {
			p.seen = map[string]bool{}
		}
		for _, v := range CheckTable(st, false) {
			if !p.seen[v.Invariant+v.Detail] {
				p.seen[v.Invariant+v.Detail] = true
				v.Detail = fmt.Sprintf("at check point %d (%.1fs): %s", i, at.Seconds(), v.Detail)
				p.out = append(p.out, v)
			}
		}
	}()
}

// patientReads lets a check point's scan outlast the faults it reads
// through: many attempts, no retry quota.
func patientReads(o *dynamodb.Options) {
	o.Retryer = retry.NewStandard(func(so *retry.StandardOptions) {
		so.MaxAttempts, so.RateLimiter, so.MaxBackoff = 40, ratelimit.None, 200*time.Millisecond
	})
}

func (p *checkPoints) wait() { p.wg.Wait() }

func (p *checkPoints) taken() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.n
}

func (p *checkPoints) violations() []Violation {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Violation(nil), p.out...)
}
