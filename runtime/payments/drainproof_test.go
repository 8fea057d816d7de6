package payments_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/oncetable/oncetable/runtime/home"
	"github.com/oncetable/oncetable/runtime/payments"
)

// TestDrainProofComparesTheCellsUsers: the production table keys items by
// user, order and idempotency record, not by cell, so a planned failover's
// drain proof compares every partition the cell's transactions listed in
// its trail. With the old home's writes not yet replicated, the proof
// names the user's, the order's and the records' items (not only the
// cell's ownership item) and the cell stays stopped; once they arrive it
// proves them all and the new home takes over without losing or doubling
// a movement.
func TestDrainProofComparesTheCellsUsers(t *testing.T) {
	w := newTwoRegions(t)
	ctx := context.Background()
	w.home("carol", east)
	svc := w.svc[east]
	steps := []struct {
		name string
		run  func() (payments.Response, error)
	}{
		{"credit", func() (payments.Response, error) {
			return svc.Credit(ctx, idem(payments.FlowCredit, "c1", "/users/carol/credits", 1000), "carol", eur(1000))
		}},
		{"order", func() (payments.Response, error) {
			return svc.CreateOrder(ctx, idem(payments.FlowCreateOrder, "o1", "/users/carol/orders", "o-1"), "carol",
				payments.NewOrder{OrderID: "o-1", Currency: "EUR", Items: []payments.NewItem{{ProductID: "mug", Quantity: 1, UnitPrice: eur(400)}}})
		}},
		{"charge", func() (payments.Response, error) {
			return svc.Charge(ctx, idem(payments.FlowCharge, "p1", "/orders/o-1/payments", 400), "o-1", eur(400))
		}},
		{"settle", func() (payments.Response, error) {
			return svc.Settle(ctx, idem(payments.FlowSettle, "s1", "/orders/o-1/settle", nil), "o-1", nil)
		}},
	}
	for _, s := range steps {
		if _, err := s.run(); err != nil {
			t.Fatalf("%s in %s: %v", s.name, east, err)
		}
	}
	cell := w.fence[east].Cell("carol")

	// Nothing of the money has replicated: the proof fails, naming them.
	fo := &home.Failover{Table: w.table, Leases: w.leases, Regions: map[string]home.DB{east: w.db[east], west: w.db[west]}, Attempts: 1}
	if _, err := fo.Planned(ctx, cell, west); !errors.Is(err, home.ErrNotDrained) {
		t.Fatalf("planned failover before replication: got %v, want ErrNotDrained", err)
	}
	p, err := home.DrainProof(ctx, w.db[east], w.db[west], w.table, cell)
	if err != nil {
		t.Fatal(err)
	}
	// The cell's partition (ownership and 4 trail items), carol's, o-1's
	// and the records of the order, the credit, the charge and the settle.
	if len(p.Differing) != 7 {
		t.Errorf("drain proof before replication: partitions %v differ, want 7", p.Differing)
	}
	for _, prefix := range []string{"CELL#" + cell, "IDEM#", "ORDER#o-1", "USER#carol"} {
		if !containsPrefix(p.Differing, prefix) {
			t.Errorf("drain proof before replication: partitions %v differ, none of them %s", p.Differing, prefix)
		}
	}
	// The new home refuses the money writes: its replica of the ownership
	// item still names the old home.
	notOwner(t, errOf(w.svc[west].Debit(ctx, idem(payments.FlowDebit, "d1", "/users/carol/debits", 100), "carol", eur(100))), west, east)

	w.replicate()
	rep, err := fo.Resume(ctx, cell, east)
	if err != nil {
		t.Fatal(err)
	}
	// the cell's partition, carol's, o-1's and the four requests' records.
	if rep.Partitions != 7 || rep.Items < 12 {
		t.Errorf("resumed failover: %+v, want 7 partitions proven (cell, user, order, 4 records) and at least 12 items", rep)
	}
	again, err := w.svc[west].Credit(ctx, idem(payments.FlowCredit, "c1", "/users/carol/credits", 1000), "carol", eur(1000))
	if err != nil || !again.Replayed {
		t.Fatalf("retry of the credit in the new home: %+v, %v; want a replay", again, err)
	}
	if _, err := w.svc[west].Debit(ctx, idem(payments.FlowDebit, "d1", "/users/carol/debits", 100), "carol", eur(100)); err != nil {
		t.Fatal(err)
	}
	w.replicate()
	for _, r := range []string{east, west} {
		if got := w.balance(r, "carol"); got != 500 {
			t.Errorf("balance in %s: got %d, want 500 (1000 - 400 - 100)", r, got)
		}
	}
}

func containsPrefix(keys []string, prefix string) bool {
	for _, k := range keys {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}
