package payments_test

import (
	"context"
	"sync"
	"testing"

	"github.com/oncetable/oncetable/runtime/payments"
	"github.com/oncetable/oncetable/runtime/store"
)

// countingOrders is an order writer that records which flows wrote through
// it, around the store's own.
type countingOrders struct {
	store.OrderWriter
	mu     sync.Mutex
	writes int
}

func (c *countingOrders) Write(ctx context.Context, do func(store.OrderShape) error) error {
	c.mu.Lock()
	c.writes++
	c.mu.Unlock()
	return c.OrderWriter.Write(ctx, do)
}

// backendWith is a store whose flows write orders through w.
type backendWith struct {
	*store.Store
	w store.OrderWriter
}

func (b backendWith) Orders() store.OrderWriter { return b.w }

// TestOrderWritesGoThroughTheWriter: the flows take the order writer from
// their Backend, and exactly the flows that write an order (create order
// and settle) go through it, once per call; credit, debit and charge never
// do.
func TestOrderWritesGoThroughTheWriter(t *testing.T) {
	f := newFixture(t)
	w := &countingOrders{OrderWriter: f.st.Orders()}
	f.svc = payments.New(backendWith{Store: f.st, w: w})
	ctx := context.Background()
	steps := []struct {
		name  string
		run   func() error
		wants int
	}{
		{"credit", func() error { f.user(t, "u1", 1000); return nil }, 0},
		{"create order", func() error { f.order(t, "u1", "o-1", 100, 2); return nil }, 1},
		{"charge", func() error {
			_, err := f.svc.Charge(ctx, idem(payments.FlowCharge, "ch-1", "/orders/o-1/payments", 200), "o-1", eur(200))
			return err
		}, 1},
		{"debit", func() error {
			_, err := f.svc.Debit(ctx, idem(payments.FlowDebit, "db-1", "/users/u1/debits", 10), "u1", eur(10))
			return err
		}, 1},
		{"settle", func() error {
			_, err := f.svc.Settle(ctx, idem(payments.FlowSettle, "st-1", "/orders/o-1/settle", nil), "o-1", nil)
			return err
		}, 2},
	}
	for _, s := range steps {
		if err := s.run(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if w.writes != s.wants {
			t.Errorf("after %s: %d writes through the order writer, want %d", s.name, w.writes, s.wants)
		}
	}
}
