package workload

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/oncetable/oncetable/runtime/outbox"
	"github.com/oncetable/oncetable/runtime/store"
)

// EventInvariants lists the event invariants in report order.
var EventInvariants = []string{InvEventDelivered, InvEventCommitted, InvEventRedeliver, InvEventOrder, InvEventUserOrder}

// Event invariants, as named in violation reports.
const (
	InvEventDelivered = "every committed ledger entry, payment, refund, hold and change of an order's or a hold's status yields exactly one event id, delivered at least once"
	InvEventCommitted = "no event appears for anything that was not committed"
	InvEventRedeliver = "a redelivery carries the same id and the same detail"
	InvEventOrder     = "per item, events arrive in commit order"
	InvEventUserOrder = "per user, events arrive in commit order"
)

// expectedEvent is an event the final table says must have been
// published, with the user it belongs to and its amount.
type expectedEvent struct {
	user   string
	amount int64
	object string // "ledger:<id>", "payment:<id>" or "order:<id>"
}

// expectedEvents derives, from the table alone, the id of every event the
// outbox owes.
func expectedEvents(st *State) map[string]expectedEvent {
	want := map[string]expectedEvent{}
	for _, e := range st.Ledger {
		typ := outbox.DebitPosted
		if store.KindSign(e.Kind) > 0 {
			typ = outbox.CreditPosted
		}
		want[string(typ)+":"+e.EntryID] = expectedEvent{user: e.UserID, amount: e.Amount, object: "ledger:" + e.EntryID}
	}
	for _, p := range st.Payments {
		user := st.Orders[p.OrderID].UserID
		want[string(outbox.PaymentCreated)+":"+p.PaymentID] = expectedEvent{user: user, amount: p.Amount, object: "payment:" + p.PaymentID}
		if p.Status == store.PaymentProcessed || p.ProcessedAt != "" { // processed, then voided by a cancel
			want[string(outbox.PaymentProcessed)+":"+p.PaymentID] = expectedEvent{user: user, amount: p.Amount, object: "payment-processed:" + p.PaymentID}
		}
	}
	for id, o := range st.Orders {
		if store.WasPaid(o.Status) {
			want[string(outbox.OrderPaid)+":"+id] = expectedEvent{user: o.UserID, amount: o.Total, object: "order:" + id}
		}
		switch o.Status {
		case store.OrderRefunded:
			want[string(outbox.OrderRefunded)+":"+id] = expectedEvent{user: o.UserID, amount: o.Refunded, object: "order-refunded:" + id}
		case store.OrderCancelled:
			want[string(outbox.OrderCancelled)+":"+id] = expectedEvent{user: o.UserID, amount: o.Total, object: "order-cancelled:" + id}
		}
	}
	for _, r := range st.Refunds {
		want[string(outbox.RefundIssued)+":"+r.RefundID] = expectedEvent{user: r.UserID, amount: r.Amount, object: "refund:" + r.RefundID}
	}
	for id, h := range st.Holds {
		want[string(outbox.HoldAuthorized)+":"+id] = expectedEvent{user: h.UserID, amount: h.Amount, object: "hold:" + id}
		switch h.Status {
		case store.HoldCaptured:
			want[string(outbox.HoldCaptured)+":"+id] = expectedEvent{user: h.UserID, amount: h.Captured, object: "hold-captured:" + id}
		case store.HoldVoided:
			want[string(outbox.HoldVoided)+":"+id] = expectedEvent{user: h.UserID, amount: h.Amount, object: "hold-voided:" + id}
		}
	}
	return want
}

// objectOf names what an event is about, from its detail.
func objectOf(ev outbox.Event) string {
	switch ev.Type {
	case outbox.CreditPosted, outbox.DebitPosted:
		return "ledger:" + ev.EntryID
	case outbox.PaymentCreated:
		return "payment:" + ev.PaymentID
	case outbox.PaymentProcessed:
		return "payment-processed:" + ev.PaymentID
	case outbox.OrderPaid:
		return "order:" + ev.OrderID
	case outbox.OrderRefunded:
		return "order-refunded:" + ev.OrderID
	case outbox.OrderCancelled:
		return "order-cancelled:" + ev.OrderID
	case outbox.RefundIssued:
		return "refund:" + ev.RefundID
	case outbox.HoldAuthorized:
		return "hold:" + ev.HoldID
	case outbox.HoldCaptured:
		return "hold-captured:" + ev.HoldID
	case outbox.HoldVoided:
		return "hold-voided:" + ev.HoldID
	}
	return "unknown:" + ev.ID
}

// CheckEvents compares the events delivered with the final table.
func CheckEvents(st *State, log *EventLog) []Violation {
	var out []Violation
	var in FaultKind // the window of the arrival being checked
	fail := func(inv, format string, a ...any) {
		out = append(out, Violation{Invariant: inv, Detail: fmt.Sprintf(format, a...), Window: in})
	}
	want := expectedEvents(st)
	first := map[string]Arrival{}
	idsOf := map[string]map[string]bool{} // object -> event ids delivered for it
	perUser := map[string][]string{}      // user -> event ids in first-arrival order
	for _, a := range log.Arrivals {
		in = a.Window
		var ev outbox.Event
		if err := json.Unmarshal([]byte(a.Detail), &ev); err != nil || ev.ID != a.ID || string(ev.Type) != a.Type {
			fail(InvEventCommitted, "delivered entry %s (%s) has an unreadable or inconsistent detail %s", a.ID, a.Type, a.Detail)
			continue
		}
		obj := objectOf(ev)
		if idsOf[obj] == nil {
			idsOf[obj] = map[string]bool{}
		}
		idsOf[obj][ev.ID] = true
		if f, again := first[a.ID]; again {
			if f.Detail != a.Detail {
				fail(InvEventRedeliver, "event %s delivered as %s, redelivered as %s", a.ID, f.Detail, a.Detail)
			}
			continue
		}
		first[a.ID] = a
		w, ok := want[a.ID]
		switch {
		case !ok:
			fail(InvEventCommitted, "event %s delivered, but the table holds no such committed change: %s", a.ID, a.Detail)
			continue
		case ev.Amount != w.amount || ev.UserID != w.user:
			fail(InvEventCommitted, "event %s says user %q amount %d, the table says user %q amount %d", a.ID, ev.UserID, ev.Amount, w.user, w.amount)
		}
		perUser[w.user] = append(perUser[w.user], a.ID)
	}
	ids := make([]string, 0, len(want))
	for id := range want {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	in = ""
	for _, id := range ids {
		w := want[id]
		if _, ok := first[id]; !ok {
			fail(InvEventDelivered, "event %s of %s (user %s) was never delivered", id, w.object, w.user)
		}
		if n := len(idsOf[w.object]); n > 1 {
			fail(InvEventDelivered, "%s was delivered under %d event ids %v", w.object, n, sortedKeys(idsOf[w.object]))
		}
	}
	out = append(out, checkOrder(log, first, perUser)...)
	return out
}

// checkOrder checks the order docs/events.md promises at the bus: a
// user's events, by first arrival, arrive in stream order (the commit
// order; the engine's stream has one shard), and so do the events of one
// item. The publisher makes the per-user order hold by construction
// (runtime/outbox: PutEvents calls with at most one entry per user, one
// after another); per item is checked on its own so a report says which
// broke.
func checkOrder(log *EventLog, first map[string]Arrival, perUser map[string][]string) []Violation {
	var out []Violation
	lastOfItem := map[string]string{}
	for _, u := range sortedUsers(perUser) {
		last := ""
		for _, id := range perUser[u] {
			if last != "" && log.Commit[last] > log.Commit[id] {
				out = append(out, Violation{Invariant: InvEventUserOrder, Window: first[id].Window, Detail: fmt.Sprintf("user %s: %s (stream record %d) arrived before %s (stream record %d)",
					u, last, log.Commit[last], id, log.Commit[id])})
			}
			if last == "" || log.Commit[id] > log.Commit[last] {
				last = id
			}
			item := itemOf(detailOf(first[id]))
			if prev, ok := lastOfItem[item]; ok && log.Commit[prev] > log.Commit[id] {
				out = append(out, Violation{Invariant: InvEventOrder, Window: first[id].Window, Detail: fmt.Sprintf("item %s: %s (stream record %d) arrived before %s (stream record %d)",
					item, prev, log.Commit[prev], id, log.Commit[id])})
			}
			lastOfItem[item] = id
		}
	}
	return out
}

// CommittedAtInversions counts pairs of events of one user, adjacent in
// commit (stream) order, whose committedAt says the opposite: a consumer
// sorting a user's events by committedAt gets those wrong. The items'
// timestamps are taken before the transaction commits, so concurrent
// requests of one user can commit in the other order.
func CommittedAtInversions(log *EventLog) int {
	first := map[string]outbox.Event{}
	byUser := map[string][]string{}
	for _, a := range log.Arrivals {
		if _, ok := first[a.ID]; ok {
			continue
		}
		ev := detailOf(a)
		first[a.ID] = ev
		if ev.UserID != "" {
			byUser[ev.UserID] = append(byUser[ev.UserID], a.ID)
		}
	}
	n := 0
	for _, ids := range byUser {
		sort.Slice(ids, func(i, j int) bool { return log.Commit[ids[i]] < log.Commit[ids[j]] })
		for i := 1; i < len(ids); i++ {
			if first[ids[i-1]].CommittedAt.After(first[ids[i]].CommittedAt) {
				n++
			}
		}
	}
	return n
}

func detailOf(a Arrival) outbox.Event {
	var ev outbox.Event
	_ = json.Unmarshal([]byte(a.Detail), &ev)
	return ev
}

// itemOf names the table item an event comes from: PaymentCreated is the
// order's (runtime/outbox reads it from the order's MODIFY that gains
// paymentId), PaymentProcessed the payment's.
func itemOf(ev outbox.Event) string {
	switch ev.Type {
	case outbox.PaymentCreated, outbox.OrderRefunded, outbox.OrderCancelled:
		return "order:" + ev.OrderID
	case outbox.PaymentProcessed:
		return "payment:" + ev.PaymentID
	case outbox.HoldCaptured, outbox.HoldVoided:
		return "hold:" + ev.HoldID
	}
	return objectOf(ev)
}

func sortedUsers(m map[string][]string) []string {
	out := make([]string, 0, len(m))
	for u := range m {
		out = append(out, u)
	}
	sort.Strings(out)
	return out
}
