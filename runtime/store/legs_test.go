package store_test

import (
	"slices"
	"testing"

	"github.com/oncetable/oncetable/runtime/store"
)

func TestLegsOfEveryKindSumToZero(t *testing.T) {
	for _, kind := range store.LedgerKinds {
		t.Run(kind, func(t *testing.T) {
			e := store.LedgerEntry{UserID: "u1", Kind: kind, Amount: 700}.WithLegs()
			if len(e.Legs) != 2 {
				t.Fatalf("legs %v, want the user's and a platform account's", e.Legs)
			}
			if e.Net() != 0 {
				t.Fatalf("legs %v sum to %d, want 0", e.Legs, e.Net())
			}
			if got, want := e.Signed(), store.KindSign(kind)*700; got != want {
				t.Fatalf("Signed() = %d, want %d", got, want)
			}
			if e.Legs[1].Account != store.CounterAccount(kind) || !slices.Contains(store.PlatformAccounts, e.Legs[1].Account) {
				t.Fatalf("counter leg on %q, want %q, one of %v", e.Legs[1].Account, store.CounterAccount(kind), store.PlatformAccounts)
			}
		})
	}
}

func TestPostingReadsBothShapes(t *testing.T) {
	legacy := store.LedgerEntry{UserID: "u1", Kind: store.LedgerSettle, Amount: 250}
	want := []store.Leg{{Account: "user:u1", Amount: -250}, {Account: store.AccountRevenue, Amount: 250}}
	if got := legacy.Posting(); !slices.Equal(got, want) {
		t.Fatalf("entry without legs: Posting() = %v, want %v", got, want)
	}
	// Stored legs win over the kind: a mis-signed leg shows in Signed and Net.
	stored := legacy
	stored.Legs = []store.Leg{{Account: "user:u1", Amount: 250}, {Account: store.AccountRevenue, Amount: 250}}
	if got := stored.Signed(); got != 250 {
		t.Fatalf("Signed() = %d, want the stored user leg 250", got)
	}
	if got := stored.Net(); got != 500 {
		t.Fatalf("Net() = %d, want 500", got)
	}
}
