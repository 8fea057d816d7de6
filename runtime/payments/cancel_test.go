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

func (f *fixture) cancel(key, orderID string) (payments.Response, error) {
	return f.svc.Cancel(context.Background(), idem(payments.FlowCancel, key, "/orders/"+orderID+"/cancel", nil), orderID)
}

func (f *fixture) charge(key, orderID string, total int64) error {
	_, err := f.svc.Charge(context.Background(), idem(payments.FlowCharge, key, "/orders/"+orderID+"/payments", total), orderID, eur(total))
	return err
}

func (f *fixture) settle(key, orderID string) error {
	_, err := f.svc.Settle(context.Background(), idem(payments.FlowSettle, key, "/orders/"+orderID+"/settle", nil), orderID, nil)
	return err
}

func TestCancel(t *testing.T) {
	tests := []struct {
		name    string
		prepare func(t *testing.T, f *fixture)
		want    error
		status  string // the order's, after
		balance int64  // alice's, after (1000 credited)
	}{
		{"created", func(t *testing.T, f *fixture) { f.order(t, "alice", "o1", 300, 1) }, nil, store.OrderCancelled, 1000},
		{"charged", func(t *testing.T, f *fixture) {
			f.order(t, "alice", "o1", 300, 1)
			if err := f.charge("c1", "o1", 300); err != nil {
				t.Fatal(err)
			}
		}, nil, store.OrderCancelled, 1000},
		{"paid", func(t *testing.T, f *fixture) { f.paidOrder(t, "alice", "o1", 300) }, payments.ErrRefundRequired, store.OrderPaid, 700},
		{"refunded", func(t *testing.T, f *fixture) {
			f.paidOrder(t, "alice", "o1", 300)
			if _, err := f.refund("r1", "o1", nil); err != nil {
				t.Fatal(err)
			}
		}, payments.ErrRefundRequired, store.OrderRefunded, 1000},
		{"cancelled under another key", func(t *testing.T, f *fixture) {
			f.order(t, "alice", "o1", 300, 1)
			if _, err := f.cancel("x0", "o1"); err != nil {
				t.Fatal(err)
			}
		}, payments.ErrOrderCancelled, store.OrderCancelled, 1000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			ctx := context.Background()
			f.user(t, "alice", 1000)
			tt.prepare(t, f)
			before, _ := f.st.Order(ctx, "o1")
			r, err := f.cancel("x1", "o1")
			if !errors.Is(err, tt.want) {
				t.Fatalf("Cancel = %d %s, %v; want %v", r.Status, r.Body, err, tt.want)
			}
			o, oerr := f.st.Order(ctx, "o1")
			if oerr != nil || o.Status != tt.status {
				t.Fatalf("order after = %+v, %v; want status %s", o.Order, oerr, tt.status)
			}
			f.balanceIs(t, "alice", tt.balance, tt.balance, 0)
			if tt.want != nil {
				if o.UpdatedAt != before.UpdatedAt || fmt.Sprint(o.Payments) != fmt.Sprint(before.Payments) {
					t.Errorf("a refused cancel wrote: order %+v, want %+v", o, before)
				}
				return
			}
			var got store.Order
			if err := json.Unmarshal(r.Body, &got); err != nil || r.Status != http.StatusOK || got.Status != store.OrderCancelled || got.CancelledAt == "" {
				t.Fatalf("Cancel = %d %s, %v; want 200 with the cancelled order", r.Status, r.Body, err)
			}
			for _, p := range o.Payments {
				if p.Status != store.PaymentVoided || p.VoidedAt != got.CancelledAt {
					t.Errorf("payment of the cancelled order = %+v, want voided at %s", p, got.CancelledAt)
				}
			}
			if un, err := f.st.UnprocessedPayments(ctx, 10, ""); err != nil || len(un.Items) != 0 {
				t.Errorf("unprocessed payments after the cancel = %+v, %v; want none", un.Items, err)
			}
			for _, p := range o.Payments {
				if _, err := f.st.ProcessPayment(ctx, "o1", p.PaymentID); !errors.Is(err, store.ErrPaymentVoided) {
					t.Errorf("processing the voided payment: %v, want ErrPaymentVoided", err)
				}
			}
			uo, _ := f.st.UserOrders(ctx, "alice", 10, "")
			if len(uo.Items) != 1 || uo.Items[0].Status != store.OrderCancelled {
				t.Errorf("the user's order summary = %+v, want cancelled", uo.Items)
			}
			byStatus, err := f.st.OrdersByStatus(ctx, store.OrderCancelled, 10, "")
			if err != nil || len(byStatus.Items) != 1 || byStatus.Items[0].OrderID != "o1" {
				t.Errorf("OrdersByStatus(cancelled) = %+v, %v", byStatus.Items, err)
			}
			again, err := f.cancel("x1", "o1")
			if err != nil || !again.Replayed || string(again.Body) != string(r.Body) {
				t.Fatalf("replay = %+v, %v; want the first response replayed", again, err)
			}
			if err := f.charge("c2", "o1", 300); !errors.Is(err, payments.ErrOrderCancelled) {
				t.Errorf("charge of a cancelled order: %v, want ErrOrderCancelled", err)
			}
			if err := f.settle("s1", "o1"); !errors.Is(err, payments.ErrOrderCancelled) {
				t.Errorf("settle of a cancelled order: %v, want ErrOrderCancelled", err)
			}
			f.balanceIs(t, "alice", 1000, 1000, 0)
			if n := len(mustLedger(t, f, "alice")); n != 1 {
				t.Errorf("ledger has %d entries, want the credit only", n)
			}
		})
	}
	t.Run("no order", func(t *testing.T) {
		f := newFixture(t)
		if _, err := f.cancel("x1", "nothing"); !errors.Is(err, payments.ErrNotFound) {
			t.Fatalf("cancel of no order: %v, want ErrNotFound", err)
		}
	})
}

// A cancel racing a settle of the same charged order: exactly one wins,
// and the other is declined; never both, and money moves only with the
// settle.
func TestCancelRacingSettle(t *testing.T) {
	f := newFixture(t)
	f.user(t, "alice", 100000)
	const rounds = 24
	cancels, settles := 0, 0
	for i := range rounds {
		id := fmt.Sprint("o", i)
		f.order(t, "alice", id, 100, 1)
		if err := f.charge("c-"+id, id, 100); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var cerr, serr error
		wg.Add(2)
		go func() { defer wg.Done(); _, cerr = f.cancel("x-"+id, id) }()
		go func() { defer wg.Done(); serr = f.settle("s-"+id, id) }()
		wg.Wait()
		o, err := f.st.Order(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case cerr == nil && errors.Is(serr, payments.ErrOrderCancelled) && o.Status == store.OrderCancelled:
			cancels++
		case serr == nil && errors.Is(cerr, payments.ErrRefundRequired) && o.Status == store.OrderPaid:
			settles++
		default:
			t.Fatalf("round %d: cancel %v, settle %v, order %s; want exactly one to win", i, cerr, serr, o.Status)
		}
	}
	f.balanceIs(t, "alice", 100000-100*int64(settles), 100000-100*int64(settles), 0)
	if got := f.ledgerSum(t, "alice"); got != 100000-100*int64(settles) {
		t.Errorf("ledger sums to %d after %d settles", got, settles)
	}
	t.Logf("%d rounds: %d cancels won, %d settles won", rounds, cancels, settles)
}
