package workload_test

import (
	"bytes"
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/store"
	"github.com/oncetable/oncetable/test/workload"
)

// TestShortSoak is the seeded short run of `make test`: every fault window
// once or more, and not one violation.
func TestShortSoak(t *testing.T) {
	d := 21 * time.Second
	if testing.Short() {
		d = 7 * time.Second
	}
	res, err := workload.Run(context.Background(), workload.Config{Duration: d, Clients: 8, Users: 12, Seed: 42, Phase: time.Second, HoldExpiry: true})
	if err != nil {
		t.Fatal(err)
	}
	var sum bytes.Buffer
	res.WriteSummary(&sum)
	t.Logf("summary:\n%s", sum.String())
	if len(res.Violations) > 0 {
		var v bytes.Buffer
		res.WriteViolations(&v)
		t.Fatalf("%d violations, want 0:\n%s", len(res.Violations), v.String())
	}

	c := res.Counts()
	f := res.Faults
	for _, x := range []struct {
		what string
		got  int64
	}{
		{"throttled requests", f.Throttled},
		{"transaction conflicts", f.TransactionConflicts},
		{"lost responses", f.LostResponses},
		{"delayed GSI writes", f.DelayedIndexWrites},
		{"latency", int64(f.Latency)},
		{"retries", int64(c.Retries)},
		{"replayed responses", int64(c.ReplayedResponses)},
		{"resubmitted keys", int64(c.Resubmits)},
		{"reused keys", int64(c.Reuses)},
		{"refused intruders", int64(c.IntrusionsRefused)},
		{"ledger entries", int64(len(res.State.Ledger))},
		{"paid orders", int64(paid(res.State))},
		{"refunds", int64(len(res.State.Refunds))},
		{"orders refunded in full", int64(status(res.State, store.OrderRefunded))},
		{"orders cancelled", int64(status(res.State, store.OrderCancelled))},
		{"holds captured", int64(holds(res.State, store.HoldCaptured))},
		{"holds voided", int64(holds(res.State, store.HoldVoided))},
		{"holds expired", int64(res.HoldsExpired())},
		{"transfers", int64(entries(res.State, store.LedgerTransferOut))},
		{"check points", int64(res.CheckPoints)},
		{"events delivered", int64(res.EventStats.Delivered)},
		{"events redelivered", int64(res.EventStats.Redeliveries)},
		{"PutEvents entries refused", int64(res.EventStats.Refused)},
		{"consumer invocations failed mid-batch", int64(res.EventStats.Crashes)},
		{"consumer processes restarted from the checkpoint", int64(res.EventStats.Restarts)},
	} {
		if x.got == 0 {
			t.Errorf("%s = 0: the run did not exercise what it claims to", x.what)
		}
	}
	var svg bytes.Buffer
	if err := res.WriteSVG(&svg); err != nil || !strings.Contains(svg.String(), "<polyline") {
		t.Errorf("WriteSVG: err %v, %d bytes without a polyline", err, svg.Len())
	}

	// The checker itself: plant each kind of damage into the state it read
	// and ask it again. A checker that cannot see planted violations proves
	// nothing when it reports none.
	t.Run("checker finds planted violations", func(t *testing.T) {
		for _, tc := range []struct {
			name  string
			plant func(st *workload.State)
			want  []string
		}{
			{"credit applied twice", func(st *workload.State) {
				e := firstEntry(st, store.LedgerCredit)
				e.SK += "-copy"
				st.Ledger = append(st.Ledger, e)
				u := st.Users[e.UserID]
				u.Balance += e.Amount
				st.Users[e.UserID] = u
			}, []string{workload.InvKeyOnce}},
			{"balance drifted from ledger", func(st *workload.State) {
				for id, u := range st.Users {
					u.Balance++
					st.Users[id] = u
					return
				}
			}, []string{workload.InvLedgerSum, workload.InvConservation}},
			{"negative balance", func(st *workload.State) {
				for id, u := range st.Users {
					st.Ledger = append(st.Ledger, store.LedgerEntry{EntryID: "planted", UserID: id, Kind: store.LedgerDebit, Amount: u.Balance + 1})
					u.Balance = -1
					st.Users[id] = u
					return
				}
			}, []string{workload.InvNegativeRead}},
			{"stored response changed", func(st *workload.State) {
				// Only a record some attempt was answered from can be seen to
				// change: a credit whose every attempt was lost or timed out
				// has a record nobody received, so the plant skips those.
				answered := map[string]bool{}
				for _, a := range res.History.Attempts {
					if a.Status >= 200 && a.Status < 300 {
						answered[strings.TrimSuffix(a.Body, "\n")] = true
					}
				}
				for k, r := range st.Records {
					if r.Operation == "credit" && answered[string(r.Body)] && strings.Contains(string(r.Body), `"currency"`) {
						r.Body = []byte(strings.Replace(string(r.Body), `"currency"`, `"currency" `, 1))
						st.Records[k] = r
						return
					}
				}
			}, []string{workload.InvReplayIdent}},
			{"order paid without a settle entry", func(st *workload.State) {
				for id, o := range st.Orders {
					if o.Status == store.OrderCreated {
						o.Status = store.OrderPaid
						st.Orders[id] = o
						return
					}
				}
			}, []string{workload.InvPaidOnce}},
			{"record of a refused request", func(st *workload.State) {
				for k, r := range st.Records {
					delete(st.Records, k)
					r.SK = keys.IdemPrefix + "0000"
					st.Records[keys.Key{PK: r.PK, SK: r.SK}] = r
					return
				}
			}, []string{workload.InvKeyOnce}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				st := clone(res.State)
				tc.plant(st)
				got := map[string]bool{}
				for _, v := range workload.Check(res.History, nil, st) {
					got[v.Invariant] = true
				}
				for _, w := range tc.want {
					if !got[w] {
						t.Errorf("planted %q: violations %v, want one of %q", tc.name, got, w)
					}
				}
			})
		}
	})
}

// count counts the items that pick chooses.
func count[T any](items []T, pick func(T) bool) int {
	n := 0
	for _, x := range items {
		if pick(x) {
			n++
		}
	}
	return n
}

func paid(st *workload.State) int {
	return count(slices.Collect(maps.Values(st.Orders)), func(o store.Order) bool { return store.WasPaid(o.Status) })
}

func status(st *workload.State, s string) int {
	return count(slices.Collect(maps.Values(st.Orders)), func(o store.Order) bool { return o.Status == s })
}

func holds(st *workload.State, s string) int {
	return count(slices.Collect(maps.Values(st.Holds)), func(h store.Hold) bool { return h.Status == s })
}

func entries(st *workload.State, kind string) int {
	return count(st.Ledger, func(e store.LedgerEntry) bool { return e.Kind == kind })
}

func firstEntry(st *workload.State, kind string) store.LedgerEntry {
	for _, e := range st.Ledger {
		if e.Kind == kind {
			return e
		}
	}
	return store.LedgerEntry{}
}

func clone(st *workload.State) *workload.State {
	c := *st
	c.Users = map[string]store.User{}
	for k, v := range st.Users {
		c.Users[k] = v
	}
	c.Orders = map[string]store.Order{}
	for k, v := range st.Orders {
		c.Orders[k] = v
	}
	c.Ledger = append([]store.LedgerEntry(nil), st.Ledger...)
	c.Records = make(map[keys.Key]idempotency.Record, len(st.Records))
	for k, v := range st.Records {
		c.Records[k] = v
	}
	return &c
}
