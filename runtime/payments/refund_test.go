package payments_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"sync"
	"testing"

	"github.com/oncetable/oncetable/runtime/money"
	"github.com/oncetable/oncetable/runtime/payments"
	"github.com/oncetable/oncetable/runtime/store"
)

// paidOrder creates, charges and settles an order of total for user.
func (f *fixture) paidOrder(t *testing.T, user, orderID string, total int64) {
	t.Helper()
	ctx := context.Background()
	f.order(t, user, orderID, total, 1)
	if _, err := f.svc.Charge(ctx, idem(payments.FlowCharge, "ch-"+orderID, "/orders/"+orderID+"/payments", total), orderID, eur(total)); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Settle(ctx, idem(payments.FlowSettle, "st-"+orderID, "/orders/"+orderID+"/settle", nil), orderID, nil); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) refund(key, orderID string, amt *money.Amount) (payments.Response, error) {
	return f.svc.Refund(context.Background(), idem(payments.FlowRefund, key, "/orders/"+orderID+"/refunds", amt), orderID, amt)
}

func amount(m int64) *money.Amount { a := eur(m); return &a }

func TestRefund(t *testing.T) {
	usd := money.Amount{Minor: 10, Currency: "USD"}
	tests := []struct {
		name    string
		before  []int64 // refunds made first
		amt     *money.Amount
		want    error
		status  string
		balance int64 // after, from 1000 - 600 paid
	}{
		{"part", nil, amount(100), nil, store.OrderPartiallyRefunded, 500},
		{"all of it", nil, amount(600), nil, store.OrderRefunded, 1000},
		{"the rest, by naming no amount", []int64{250}, nil, nil, store.OrderRefunded, 1000},
		{"the rest, by naming it", []int64{250, 50}, amount(300), nil, store.OrderRefunded, 1000},
		{"a part after a part", []int64{250}, amount(50), nil, store.OrderPartiallyRefunded, 700},
		{"more than was paid", nil, amount(601), payments.ErrExceedsRefundable, store.OrderPaid, 400},
		{"more than is left", []int64{500}, amount(101), payments.ErrExceedsRefundable, store.OrderPartiallyRefunded, 900},
		{"a refunded order", []int64{600}, nil, payments.ErrExceedsRefundable, store.OrderRefunded, 1000},
		{"another currency", nil, &usd, payments.ErrCurrencyMismatch, store.OrderPaid, 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			ctx := context.Background()
			f.user(t, "alice", 1000)
			f.paidOrder(t, "alice", "o1", 600)
			for i, m := range tt.before {
				if _, err := f.refund(fmt.Sprint("before-", i), "o1", amount(m)); err != nil {
					t.Fatal(err)
				}
			}
			entries := len(mustLedger(t, f, "alice"))
			r, err := f.refund("r1", "o1", tt.amt)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Refund = %d %s, %v; want %v", r.Status, r.Body, err, tt.want)
			}
			o, oerr := f.st.Order(ctx, "o1")
			if oerr != nil || o.Status != tt.status {
				t.Fatalf("order after = %+v, %v; want status %s", o.Order, oerr, tt.status)
			}
			f.balanceIs(t, "alice", tt.balance, tt.balance, 0)
			if got := f.ledgerSum(t, "alice"); got != tt.balance {
				t.Errorf("ledger sums to %d, balance %d", got, tt.balance)
			}
			if o.Refunded > o.Total {
				t.Errorf("refunded %d of a total of %d", o.Refunded, o.Total)
			}
			if tt.want != nil {
				if n := len(mustLedger(t, f, "alice")); n != entries {
					t.Errorf("a refused refund wrote ledger entries: %d, want %d", n, entries)
				}
				if len(o.Refunds) != len(tt.before) {
					t.Errorf("a refused refund wrote a refund: %d refunds, want %d", len(o.Refunds), len(tt.before))
				}
				return
			}
			var got store.Refund
			if err := json.Unmarshal(r.Body, &got); err != nil || r.Status != http.StatusCreated || got.OrderStatus != tt.status || got.UserID != "alice" {
				t.Fatalf("Refund = %d %s, %v", r.Status, r.Body, err)
			}
			read, err := f.st.Refund(ctx, "o1", got.RefundID)
			read.PK, read.SK, read.EntityType = "", "", ""
			if err != nil || !reflect.DeepEqual(read, got) {
				t.Errorf("Refund by id = %+v, %v; want %+v", read, err, got)
			}
			page, err := f.st.Refunds(ctx, "o1", 10, "")
			if err != nil || len(page.Items) != len(tt.before)+1 || page.Items[len(page.Items)-1].RefundID != got.RefundID {
				t.Errorf("Refunds = %+v, %v; want %d, the last %+v", page, err, len(tt.before)+1, got)
			}
			var e store.LedgerEntry
			for _, x := range mustLedger(t, f, "alice") {
				if x.EntryID == got.EntryID {
					e = x
				}
			}
			if e.Kind != store.LedgerRefund || e.RefundID != got.RefundID || e.OrderID != "o1" || e.Amount != got.Amount || e.EntryID != got.EntryID {
				t.Errorf("the refund's ledger entry = %+v, want kind refund of the refund", e)
			}
			uo, _ := f.st.UserOrders(ctx, "alice", 10, "")
			if len(uo.Items) != 1 || uo.Items[0].Status != tt.status {
				t.Errorf("the user's order summary = %+v, want status %s", uo.Items, tt.status)
			}
			byStatus, err := f.st.OrdersByStatus(ctx, tt.status, 10, "")
			if err != nil || len(byStatus.Items) != 1 || byStatus.Items[0].OrderID != "o1" {
				t.Errorf("OrdersByStatus(%s) = %+v, %v", tt.status, byStatus.Items, err)
			}
			again, err := f.refund("r1", "o1", tt.amt)
			if err != nil || !again.Replayed || string(again.Body) != string(r.Body) {
				t.Fatalf("replay = %+v, %v; want the first response replayed", again, err)
			}
			f.balanceIs(t, "alice", tt.balance, tt.balance, 0)
		})
	}
}

func mustLedger(t *testing.T, f *fixture, user string) []store.LedgerEntry {
	t.Helper()
	p, err := f.st.Ledger(context.Background(), user, 100, "")
	if err != nil {
		t.Fatal(err)
	}
	return p.Items
}

func TestRefundOfAnUnpaidOrder(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.user(t, "alice", 1000)
	f.order(t, "alice", "o1", 300, 1)
	_, err := f.refund("r1", "o1", nil)
	if !errors.Is(err, payments.ErrNotPaid) {
		t.Fatalf("refund of a created order: %v, want ErrNotPaid", err)
	}
	if _, err := f.svc.Charge(ctx, idem(payments.FlowCharge, "c1", "/orders/o1/payments", 300), "o1", eur(300)); err != nil {
		t.Fatal(err)
	}
	if _, err := f.refund("r2", "o1", amount(100)); !errors.Is(err, payments.ErrNotPaid) {
		t.Fatalf("refund of a charged order: %v, want ErrNotPaid", err)
	}
	if _, err := f.refund("r3", "nothing", nil); !errors.Is(err, payments.ErrNotFound) {
		t.Fatalf("refund of no order: %v, want ErrNotFound", err)
	}
	f.balanceIs(t, "alice", 1000, 1000, 0)
	if o, _ := f.st.Order(ctx, "o1"); o.Refunded != 0 || len(o.Refunds) != 0 {
		t.Errorf("order after refused refunds = %+v", o)
	}
}

// Concurrent partial refunds of one order never sum past what was paid,
// and the last one to fit leaves it refunded.
func TestConcurrentRefundsNeverExceedPaid(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.user(t, "alice", 1000)
	f.paidOrder(t, "alice", "o1", 1000)
	const n = 16
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok, exceeded := 0, 0
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := f.refund(fmt.Sprint("r", i), "o1", amount(150))
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				ok++
			case errors.Is(err, payments.ErrExceedsRefundable):
				exceeded++
			default:
				t.Errorf("refund %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	if ok != 6 || exceeded != n-6 {
		t.Errorf("%d refunds of 150 from 1000 succeeded and %d exceeded, want 6 and %d", ok, exceeded, n-6)
	}
	o, err := f.st.Order(ctx, "o1")
	if err != nil || o.Refunded != 900 || len(o.Refunds) != 6 || o.Status != store.OrderPartiallyRefunded {
		t.Fatalf("order = %+v (%d refunds), %v; want 900 refunded, partially_refunded", o.Order, len(o.Refunds), err)
	}
	// the rest, raced by a part: one gets 100, together never more.
	var rest, part error
	wg.Add(2)
	go func() { defer wg.Done(); _, rest = f.refund("rest", "o1", nil) }()
	go func() { defer wg.Done(); _, part = f.refund("part", "o1", amount(60)) }()
	wg.Wait()
	o, _ = f.st.Order(ctx, "o1")
	if rest != nil || o.Refunded != 1000 || o.Status != store.OrderRefunded {
		t.Errorf("rest %v, part %v: order %+v; want the rest refunded and the order refunded", rest, part, o.Order)
	}
	f.balanceIs(t, "alice", 1000, 1000, 0)
	if got := f.ledgerSum(t, "alice"); got != 1000 {
		t.Errorf("ledger sums to %d, want 1000", got)
	}
}
