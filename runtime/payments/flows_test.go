package payments_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/internal/dbtest"
	"github.com/oncetable/oncetable/runtime/money"
	"github.com/oncetable/oncetable/runtime/payments"
	"github.com/oncetable/oncetable/runtime/store"
)

type fixture struct {
	env *dbtest.Env
	st  *store.Store
	svc *payments.Service
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	env := dbtest.New(t)
	st := store.New(env.Client, func(o *store.Options) { o.Table = env.Table; o.Clock = env.Clock.Now })
	return &fixture{env: env, st: st, svc: payments.New(st)}
}

func idem(op, key, route string, body any) payments.Idem {
	raw, _ := json.Marshal(body)
	fp, err := idempotency.Fingerprint(http.MethodPost, route, raw)
	if err != nil {
		panic(err)
	}
	return payments.Idem{Scope: idempotency.Scope{Caller: "test", Operation: op}, Key: key, Fingerprint: fp}
}

func eur(m int64) money.Amount { return money.Amount{Minor: m, Currency: "EUR"} }

func (f *fixture) user(t *testing.T, id string, credit int64) {
	t.Helper()
	ctx := context.Background()
	if _, err := f.st.CreateUser(ctx, store.NewUser{UserID: id, Name: "N " + id, Email: id + "@example.com"}); err != nil {
		t.Fatal(err)
	}
	if credit > 0 {
		if _, err := f.svc.Credit(ctx, idem(payments.FlowCredit, "seed-"+id, "/users/"+id+"/credits", credit), id, eur(credit)); err != nil {
			t.Fatal(err)
		}
	}
}

func (f *fixture) order(t *testing.T, userID, orderID string, unit, qty int64) {
	t.Helper()
	in := payments.NewOrder{OrderID: orderID, Currency: "EUR", Items: []payments.NewItem{{ProductID: "p1", Quantity: qty, UnitPrice: eur(unit)}}}
	if _, err := f.svc.CreateOrder(context.Background(), idem(payments.FlowCreateOrder, "order-"+orderID, "/users/"+userID+"/orders", orderID), userID, in); err != nil {
		t.Fatal(err)
	}
}

func TestFlowsEndToEnd(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.user(t, "u1", 10_000)
	f.order(t, "u1", "o1", 1500, 2)

	// debit, then the balance is exact.
	r, err := f.svc.Debit(ctx, idem(payments.FlowDebit, "d1", "/users/u1/debits", 1000), "u1", eur(1000))
	if err != nil || r.Status != http.StatusCreated || r.Replayed {
		t.Fatalf("Debit = %+v, %v", r, err)
	}
	b, _ := f.st.Balance(ctx, "u1")
	if b.Balance != 9000 || b.Currency != "EUR" {
		t.Fatalf("balance = %+v, want 9000 EUR", b)
	}

	// settle needs the charge, then pays 3000 from the balance.
	r, err = f.svc.Settle(ctx, idem(payments.FlowSettle, "s0", "/orders/o1/settle", nil), "o1", nil)
	if !errors.Is(err, payments.ErrNotCharged) {
		t.Fatalf("Settle before the charge = %+v, %v, want ErrNotCharged", r, err)
	}
	if r, err = f.svc.Charge(ctx, idem(payments.FlowCharge, "c0", "/orders/o1/payments", 3000), "o1", eur(3000)); err != nil {
		t.Fatalf("Charge = %+v, %v", r, err)
	}
	r, err = f.svc.Settle(ctx, idem(payments.FlowSettle, "s1", "/orders/o1/settle", nil), "o1", nil)
	if err != nil || r.Status != http.StatusOK {
		t.Fatalf("Settle = %+v, %v", r, err)
	}
	var paid store.Order
	json.Unmarshal(r.Body, &paid)
	if paid.Status != store.OrderPaid || paid.Total != 3000 {
		t.Errorf("settled order = %+v", paid)
	}
	b, _ = f.st.Balance(ctx, "u1")
	if b.Balance != 6000 {
		t.Errorf("balance after settle = %d, want 6000", b.Balance)
	}
	ov, err := f.st.Order(ctx, "o1")
	if err != nil || ov.Status != store.OrderPaid || len(ov.Items) != 1 {
		t.Errorf("Order = %+v, %v", ov, err)
	}
	uv, err := f.st.UserView(ctx, "u1")
	if err != nil || uv.OrderCount != 1 || len(uv.RecentOrders) != 1 || uv.RecentOrders[0].Status != store.OrderPaid {
		t.Errorf("UserView = %+v, %v", uv, err)
	}
	led, err := f.st.Ledger(ctx, "u1", 10, "")
	if err != nil || len(led.Items) != 3 || led.Items[0].Kind != store.LedgerSettle {
		t.Errorf("Ledger = %+v, %v", led, err)
	}

	// business failures.
	f.order(t, "u1", "o2", 7000, 1)
	_, err = f.svc.Charge(ctx, idem(payments.FlowCharge, "c1", "/orders/o2/payments", 1), "o2", eur(1))
	var ame *payments.AmountMismatchError
	if !errors.As(err, &ame) || ame.Expected.Minor != 7000 {
		t.Errorf("charge wrong amount: %v", err)
	}
	if _, err := f.svc.Charge(ctx, idem(payments.FlowCharge, "c2", "/orders/o2/payments", 7000), "o2", eur(7000)); err != nil {
		t.Fatalf("charge o2: %v", err)
	}
	_, err = f.svc.Settle(ctx, idem(payments.FlowSettle, "s2", "/orders/o2/settle", nil), "o2", nil)
	var ife *payments.InsufficientFundsError
	if !errors.As(err, &ife) || ife.Available.Minor != 6000 || ife.Requested.Minor != 7000 {
		t.Errorf("settle beyond balance: %v", err)
	}
	_, err = f.svc.Settle(ctx, idem(payments.FlowSettle, "s3", "/orders/o1/settle", nil), "o1", nil)
	if !errors.Is(err, payments.ErrAlreadyPaid) {
		t.Errorf("settle paid order: %v, want ErrAlreadyPaid", err)
	}
	_, err = f.svc.Debit(ctx, idem(payments.FlowDebit, "d9", "/users/nobody/debits", 1), "nobody", eur(1))
	if !errors.Is(err, payments.ErrNotFound) {
		t.Errorf("debit unknown user: %v", err)
	}
}

// A request in another currency than the order's is a currency mismatch,
// whatever its amount: amounts of two currencies do not compare.
func TestOrderCurrencyMismatch(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.user(t, "u1", 10_000)
	f.order(t, "u1", "o1", 2500, 1)
	usd := func(m int64) *money.Amount { return &money.Amount{Minor: m, Currency: "USD"} }
	for _, tt := range []struct {
		name string
		run  func() error
		want error
	}{
		{"charge, same number", func() error {
			_, err := f.svc.Charge(ctx, idem(payments.FlowCharge, "c1", "/orders/o1/payments", 1), "o1", *usd(2500))
			return err
		}, payments.ErrCurrencyMismatch},
		{"charge, other number", func() error {
			_, err := f.svc.Charge(ctx, idem(payments.FlowCharge, "c2", "/orders/o1/payments", 2), "o1", *usd(1))
			return err
		}, payments.ErrCurrencyMismatch},
		{"settle with an expected amount", func() error {
			_, err := f.svc.Settle(ctx, idem(payments.FlowSettle, "s1", "/orders/o1/settle", 3), "o1", usd(2500))
			return err
		}, payments.ErrCurrencyMismatch},
		{"charge in the currency, other amount", func() error {
			_, err := f.svc.Charge(ctx, idem(payments.FlowCharge, "c3", "/orders/o1/payments", 4), "o1", eur(1))
			return err
		}, payments.ErrAmountMismatch},
	} {
		if err := tt.run(); !errors.Is(err, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, err, tt.want)
		}
	}
}

// A line that names a catalogue product carries the product's price; the
// check is part of the order's transaction, so a mismatch writes nothing.
func TestOrderPricesFromCatalogue(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.user(t, "u1", 0)
	f.user(t, "u-usd", 0) // orders in USD: the first fixes its currency
	if _, err := f.st.CreateProduct(ctx, store.NewProduct{ProductID: "mug", Name: "Mug", Price: 1250, Currency: "EUR"}); err != nil {
		t.Fatal(err)
	}
	line := func(p string, unit int64) payments.NewItem {
		return payments.NewItem{ProductID: p, Quantity: 1, UnitPrice: eur(unit)}
	}
	for i, tt := range []struct {
		name  string
		items []payments.NewItem
		line  int // 0: accepted
	}{
		{"catalogue price", []payments.NewItem{line("mug", 1250)}, 0},
		{"product outside the catalogue, any price", []payments.NewItem{line("custom", 7)}, 0},
		{"catalogue product, other price", []payments.NewItem{line("custom", 7), line("mug", 1000)}, 2},
		{"two lines of one product, the second differs", []payments.NewItem{line("mug", 1250), line("mug", 1)}, 2},
		{"catalogue product, other currency", []payments.NewItem{{ProductID: "mug", Quantity: 1, UnitPrice: money.Amount{Minor: 1250, Currency: "USD"}}}, 1},
	} {
		cur, user := money.Currency("EUR"), "u1"
		if tt.items[0].UnitPrice.Currency == "USD" {
			cur, user = "USD", "u-usd"
		}
		id := fmt.Sprintf("o%d", i)
		_, err := f.svc.CreateOrder(ctx, idem(payments.FlowCreateOrder, id, "/users/"+user+"/orders", id), user,
			payments.NewOrder{OrderID: id, Currency: cur, Items: tt.items})
		var pme *payments.PriceMismatchError
		switch {
		case tt.line == 0 && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.line != 0 && (!errors.As(err, &pme) || pme.Line != tt.line || pme.Catalogue != eur(1250)):
			t.Errorf("%s: %v, want a price mismatch on line %d", tt.name, err, tt.line)
		case tt.line != 0:
			if _, err := f.st.Order(ctx, id); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("%s: the refused order was written: %v", tt.name, err)
			}
		}
	}
}

// An order's currency is its user's balance's: an order in another
// currency could be charged but never settled. A user without a currency
// yet gets the order's, as from a first credit.
func TestOrderCurrencyIsTheBalances(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.user(t, "eu", 1000)
	usd := payments.NewOrder{OrderID: "o-usd", Currency: "USD", Items: []payments.NewItem{{ProductID: "p1", Quantity: 1, UnitPrice: money.Amount{Minor: 100, Currency: "USD"}}}}
	_, err := f.svc.CreateOrder(ctx, idem(payments.FlowCreateOrder, "c1", "/users/eu/orders", usd), "eu", usd)
	if !errors.Is(err, payments.ErrCurrencyMismatch) {
		t.Fatalf("USD order of a EUR balance: %v, want ErrCurrencyMismatch", err)
	}
	if _, err := f.st.Order(ctx, "o-usd"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the refused order was written: %v", err)
	}
	f.user(t, "fresh", 0)
	if _, err := f.svc.CreateOrder(ctx, idem(payments.FlowCreateOrder, "c2", "/users/fresh/orders", usd), "fresh", usd); err != nil {
		t.Fatalf("USD order of a user without a currency: %v", err)
	}
	if b, err := f.st.Balance(ctx, "fresh"); err != nil || b.Currency != "USD" {
		t.Errorf("balance after the first order: %+v %v, want its currency USD", b, err)
	}
	if _, err := f.svc.Credit(ctx, idem(payments.FlowCredit, "c3", "/users/fresh/credits", 5), "fresh", eur(5)); !errors.Is(err, payments.ErrCurrencyMismatch) {
		t.Errorf("EUR credit after a USD order: %v, want ErrCurrencyMismatch", err)
	}
}
