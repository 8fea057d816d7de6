package payments_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/oncetable/oncetable/runtime/payments"
	"github.com/oncetable/oncetable/runtime/store"
)

func (f *fixture) ship(key, orderID string) (payments.Response, error) {
	return f.svc.Ship(context.Background(), idem(payments.FlowShip, key, "/orders/"+orderID+"/ship", nil), orderID)
}

func (f *fixture) deliver(key, orderID string) (payments.Response, error) {
	return f.svc.Deliver(context.Background(), idem(payments.FlowDeliver, key, "/orders/"+orderID+"/deliver", nil), orderID)
}

// mustStep runs a fulfilment step that must succeed.
func mustStep(t *testing.T, step func(string, string) (payments.Response, error), key, orderID string) {
	t.Helper()
	if r, err := step(key, orderID); err != nil {
		t.Fatalf("%s of %s = %d %s, %v", key, orderID, r.Status, r.Body, err)
	}
}

// TestFulfil moves orders in every status one step: paid (or refunded in
// part) -> shipped -> delivered succeed, every other move is a decline that
// writes nothing, a success is replayed under its key and shows in the
// status index and the user's summaries.
func TestFulfil(t *testing.T) {
	type stepFn = func(*fixture) func(string, string) (payments.Response, error)
	ship := func(f *fixture) func(string, string) (payments.Response, error) { return f.ship }
	deliver := func(f *fixture) func(string, string) (payments.Response, error) { return f.deliver }
	created := func(t *testing.T, f *fixture) { f.order(t, "alice", "o1", 300, 1) }
	paid := func(t *testing.T, f *fixture) { f.paidOrder(t, "alice", "o1", 300) }
	refunded := func(amt int64) func(t *testing.T, f *fixture) {
		return func(t *testing.T, f *fixture) {
			paid(t, f)
			if _, err := f.refund("r0", "o1", amount(amt)); err != nil {
				t.Fatal(err)
			}
		}
	}
	shipped := func(t *testing.T, f *fixture) { paid(t, f); mustStep(t, f.ship, "s0", "o1") }
	delivered := func(t *testing.T, f *fixture) { shipped(t, f); mustStep(t, f.deliver, "d0", "o1") }
	cancelled := func(t *testing.T, f *fixture) {
		created(t, f)
		if _, err := f.cancel("x0", "o1"); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name     string
		prepare  func(t *testing.T, f *fixture)
		step     stepFn
		want     error
		status   string // the order's, after
		refunded int64  // the order's, after
	}{
		{"ship a paid order", paid, ship, nil, store.OrderShipped, 0},
		{"ship an order refunded in part", refunded(100), ship, nil, store.OrderShipped, 100},
		{"deliver a shipped order", shipped, deliver, nil, store.OrderDelivered, 0},
		{"ship a created order", created, ship, payments.ErrInvalidTransition, store.OrderCreated, 0},
		{"ship a shipped order under another key", shipped, ship, payments.ErrInvalidTransition, store.OrderShipped, 0},
		{"ship a delivered order", delivered, ship, payments.ErrInvalidTransition, store.OrderDelivered, 0},
		{"ship a refunded order", refunded(300), ship, payments.ErrInvalidTransition, store.OrderRefunded, 300},
		{"ship a cancelled order", cancelled, ship, payments.ErrOrderCancelled, store.OrderCancelled, 0},
		{"deliver a created order", created, deliver, payments.ErrInvalidTransition, store.OrderCreated, 0},
		{"deliver a paid order (a skipped step)", paid, deliver, payments.ErrInvalidTransition, store.OrderPaid, 0},
		{"deliver a delivered order under another key", delivered, deliver, payments.ErrInvalidTransition, store.OrderDelivered, 0},
		{"deliver a cancelled order", cancelled, deliver, payments.ErrOrderCancelled, store.OrderCancelled, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			ctx := context.Background()
			f.user(t, "alice", 1000)
			tt.prepare(t, f)
			before, _ := f.st.Order(ctx, "o1")
			balance := f.ledgerSum(t, "alice")
			r, err := tt.step(f)("k1", "o1")
			if !errors.Is(err, tt.want) {
				t.Fatalf("step = %d %s, %v; want %v", r.Status, r.Body, err, tt.want)
			}
			o, oerr := f.st.Order(ctx, "o1")
			if oerr != nil || o.Status != tt.status || o.Refunded != tt.refunded {
				t.Fatalf("order after = %+v, %v; want status %s, refunded %d", o.Order, oerr, tt.status, tt.refunded)
			}
			f.balanceIs(t, "alice", balance, balance, 0)
			var te *payments.TransitionError
			if errors.As(err, &te) && (te.Status != before.Status || te.To == "") {
				t.Errorf("TransitionError %+v, want the order's status %s", te, before.Status)
			}
			if tt.want != nil {
				if o.UpdatedAt != before.UpdatedAt {
					t.Errorf("a refused step wrote: order %+v, want %+v", o.Order, before.Order)
				}
				again, err := tt.step(f)("k1", "o1")
				if !errors.Is(err, tt.want) && !again.Replayed {
					t.Errorf("the refused step retried with its key: %+v, %v; want the decline again", again, err)
				}
				return
			}
			var got store.Order
			if err := json.Unmarshal(r.Body, &got); err != nil || r.Status != http.StatusOK || got.Status != tt.status {
				t.Fatalf("step = %d %s, %v; want 200 with the order %s", r.Status, r.Body, err, tt.status)
			}
			if at := map[string]string{store.OrderShipped: o.ShippedAt, store.OrderDelivered: o.DeliveredAt}[tt.status]; at == "" || at != o.UpdatedAt {
				t.Errorf("order %+v has no time of becoming %s", o.Order, tt.status)
			}
			again, err := tt.step(f)("k1", "o1")
			if err != nil || !again.Replayed || string(again.Body) != string(r.Body) {
				t.Fatalf("replay = %+v, %v; want the first response replayed", again, err)
			}
			uo, _ := f.st.UserOrders(ctx, "alice", 10, "")
			if len(uo.Items) != 1 || uo.Items[0].Status != tt.status {
				t.Errorf("the user's order summary = %+v, want %s", uo.Items, tt.status)
			}
			byStatus, err := f.st.OrdersByStatus(ctx, tt.status, 10, "")
			if err != nil || len(byStatus.Items) != 1 || byStatus.Items[0].OrderID != "o1" {
				t.Errorf("OrdersByStatus(%s) = %+v, %v", tt.status, byStatus.Items, err)
			}
			if old, err := f.st.OrdersByStatus(ctx, before.Status, 10, ""); err != nil || len(old.Items) != 0 {
				t.Errorf("OrdersByStatus(%s) = %+v, %v; want the order gone from its old status", before.Status, old.Items, err)
			}
		})
	}
	t.Run("no order", func(t *testing.T) {
		f := newFixture(t)
		if _, err := f.ship("k1", "nothing"); !errors.Is(err, payments.ErrNotFound) {
			t.Fatalf("ship of no order: %v, want ErrNotFound", err)
		}
	})
}

// TestFulfilledMoneyBack: a shipped or delivered order is refunded as a
// paid one is (in part: it keeps its fulfilment status; the rest: it is
// refunded), and a cancel of it is refused with refund-required.
func TestFulfilledMoneyBack(t *testing.T) {
	for _, status := range []string{store.OrderShipped, store.OrderDelivered} {
		t.Run(status, func(t *testing.T) {
			f := newFixture(t)
			ctx := context.Background()
			f.user(t, "alice", 1000)
			f.paidOrder(t, "alice", "o1", 300)
			mustStep(t, f.ship, "s1", "o1")
			if status == store.OrderDelivered {
				mustStep(t, f.deliver, "d1", "o1")
			}
			if _, err := f.cancel("x1", "o1"); !errors.Is(err, payments.ErrRefundRequired) {
				t.Fatalf("cancel of a %s order: %v, want ErrRefundRequired", status, err)
			}
			steps := []struct {
				key      string
				amt      int64
				status   string
				refunded int64
			}{{"r1", 100, status, 100}, {"r2", 200, store.OrderRefunded, 300}}
			for _, s := range steps {
				r, err := f.refund(s.key, "o1", amount(s.amt))
				if err != nil {
					t.Fatalf("refund %s: %v", s.key, err)
				}
				var rf store.Refund
				if err := json.Unmarshal(r.Body, &rf); err != nil || rf.OrderStatus != s.status {
					t.Errorf("refund %s = %s, want the order left %s", s.key, r.Body, s.status)
				}
				o, err := f.st.Order(ctx, "o1")
				if err != nil || o.Status != s.status || o.Refunded != s.refunded {
					t.Fatalf("after refund %s: order %+v, %v; want %s with %d refunded", s.key, o.Order, err, s.status, s.refunded)
				}
			}
			f.balanceIs(t, "alice", 1000, 1000, 0)
			if _, err := f.deliver("d2", "o1"); !errors.Is(err, payments.ErrInvalidTransition) {
				t.Errorf("deliver of a refunded order: %v, want ErrInvalidTransition", err)
			}
		})
	}
}

// TestShipRacingMoneyBack races a ship against a full refund, a partial
// refund, and a cancel with a settle, of the same order. Each round ends in
// a state that one order of the two commits explains: never an order
// shipped with all its money back, nor a partial refund undoing a ship,
// nor a cancelled order shipped.
func TestShipRacingMoneyBack(t *testing.T) {
	const rounds = 12
	t.Run("full refund", func(t *testing.T) {
		f := newFixture(t)
		f.user(t, "alice", 100000)
		wins := map[string]int{}
		for i := range rounds {
			id := fmt.Sprint("o", i)
			f.paidOrder(t, "alice", id, 100)
			var serr, rerr error
			race(func() { _, serr = f.ship("s-"+id, id) }, func() { _, rerr = f.refund("r-"+id, id, nil) })
			o := mustOrder(t, f, id)
			switch {
			case rerr != nil:
				t.Fatalf("round %d: the refund failed: %v", i, rerr)
			case serr == nil && o.Status == store.OrderRefunded && o.ShippedAt != "":
				wins["ship, then refund"]++
			case errors.Is(serr, payments.ErrInvalidTransition) && o.Status == store.OrderRefunded && o.ShippedAt == "":
				wins["refund, then ship refused"]++
			default:
				t.Fatalf("round %d: ship %v, refund %v, order %+v", i, serr, rerr, o)
			}
			if o.Refunded != 100 {
				t.Fatalf("round %d: refunded %d, want 100", i, o.Refunded)
			}
		}
		f.balanceIs(t, "alice", 100000, 100000, 0)
		t.Logf("%d rounds: %v", rounds, wins)
	})
	t.Run("partial refund", func(t *testing.T) {
		f := newFixture(t)
		f.user(t, "alice", 100000)
		for i := range rounds {
			id := fmt.Sprint("o", i)
			f.paidOrder(t, "alice", id, 100)
			var serr, rerr error
			race(func() { _, serr = f.ship("s-"+id, id) }, func() { _, rerr = f.refund("r-"+id, id, amount(40)) })
			o := mustOrder(t, f, id)
			if serr != nil || rerr != nil || o.Status != store.OrderShipped || o.Refunded != 40 || o.ShippedAt == "" {
				t.Fatalf("round %d: ship %v, refund %v, order %+v; want both to commit: shipped, 40 refunded", i, serr, rerr, o)
			}
		}
		f.balanceIs(t, "alice", 100000-60*rounds, 100000-60*rounds, 0)
	})
	t.Run("cancel and settle", func(t *testing.T) {
		f := newFixture(t)
		f.user(t, "alice", 100000)
		wins := map[string]int{}
		for i := range rounds {
			id := fmt.Sprint("o", i)
			f.order(t, "alice", id, 100, 1)
			if err := f.charge("c-"+id, id, 100); err != nil {
				t.Fatal(err)
			}
			var serr, cerr, xerr error
			race(func() { serr = f.settle("p-"+id, id); _, xerr = f.ship("s-"+id, id) }, func() { _, cerr = f.cancel("x-"+id, id) })
			o := mustOrder(t, f, id)
			switch {
			case cerr == nil && errors.Is(serr, payments.ErrOrderCancelled) && errors.Is(xerr, payments.ErrOrderCancelled) && o.Status == store.OrderCancelled:
				wins["cancel"]++
			case serr == nil && xerr == nil && errors.Is(cerr, payments.ErrRefundRequired) && o.Status == store.OrderShipped:
				wins["settle and ship"]++
			default:
				t.Fatalf("round %d: settle %v, ship %v, cancel %v, order %s", i, serr, xerr, cerr, o.Status)
			}
		}
		paid := int64(wins["settle and ship"]) * 100
		f.balanceIs(t, "alice", 100000-paid, 100000-paid, 0)
		t.Logf("%d rounds: %v", rounds, wins)
	})
}

// race runs a and b at once and waits for both.
func race(a, b func()) {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); a() }()
	go func() { defer wg.Done(); b() }()
	wg.Wait()
}

func mustOrder(t *testing.T, f *fixture, id string) store.Order {
	t.Helper()
	o, err := f.st.Order(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return o.Order
}
