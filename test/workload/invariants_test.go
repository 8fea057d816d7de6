package workload_test

import (
	"testing"

	"github.com/oncetable/oncetable/runtime/store"
	"github.com/oncetable/oncetable/test/workload"
)

// TestCheckTableMidRunAndAtRest: what a scan during the run may see
// without a violation, and what it may not; the final check (the table at
// rest) sees the rest.
func TestCheckTableMidRunAndAtRest(t *testing.T) {
	capture := func(hold string, amount int64) store.LedgerEntry {
		return store.LedgerEntry{EntryID: "e-" + hold, UserID: "u1", Kind: store.LedgerCapture, HoldID: hold, Amount: amount,
			Legs: []store.Leg{{Account: "USER#u1", Amount: -amount}, {Account: store.CounterAccount(store.LedgerCapture), Amount: amount}}}
	}
	hold := func(id string, amount, captured int64) store.Hold {
		return store.Hold{HoldID: id, UserID: "u1", Amount: amount, Captured: captured, Status: store.HoldCaptured}
	}
	for _, tc := range []struct {
		name         string
		st           workload.State
		midRun, rest int
	}{
		{"a capture entry whose hold the scan had passed", workload.State{Ledger: []store.LedgerEntry{capture("h1", 50)}}, 0, 1},
		{"a hold captured once within its amount", workload.State{Ledger: []store.LedgerEntry{capture("h1", 50)},
			Holds: map[string]store.Hold{"h1": hold("h1", 80, 50)}}, 0, 0},
		{"a hold captured twice", workload.State{Ledger: []store.LedgerEntry{capture("h1", 50), capture("h1", 10)},
			Holds: map[string]store.Hold{"h1": hold("h1", 80, 50)}}, 1, 2},
		{"a capture over the hold", workload.State{Ledger: []store.LedgerEntry{capture("h1", 90)},
			Holds: map[string]store.Hold{"h1": hold("h1", 80, 90)}}, 2, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := workload.CheckTable(&tc.st, false); len(got) != tc.midRun {
				t.Errorf("mid-run: %d violations %v, want %d", len(got), got, tc.midRun)
			}
			if got := workload.CheckTable(&tc.st, true); len(got) != tc.rest {
				t.Errorf("at rest: %d violations %v, want %d", len(got), got, tc.rest)
			}
		})
	}
}
