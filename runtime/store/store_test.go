package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/oncetable/oncetable/runtime/internal/dbtest"
	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/store"
)

func newStore(t *testing.T) (*store.Store, *dbtest.Env) {
	t.Helper()
	env := dbtest.New(t)
	return store.New(env.Client, func(o *store.Options) {
		o.Table, o.Clock, o.CursorSecret = env.Table, env.Clock.Now, []byte("0123456789abcdef0123456789abcdef")
	}), env
}

func TestUsersAndAddresses(t *testing.T) {
	st, _ := newStore(t)
	ctx := context.Background()
	if _, err := st.CreateUser(ctx, store.NewUser{UserID: "u1", Name: "U", Email: "u@example.com"}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateUser(ctx, store.NewUser{UserID: "u1", Name: "U", Email: "u@example.com"}); !errors.Is(err, store.ErrAlreadyExists) {
		t.Errorf("second CreateUser = %v, want ErrAlreadyExists", err)
	}
	for i := range store.MaxAddresses {
		if _, err := st.AddAddress(ctx, "u1", store.NewAddress{AddressID: fmt.Sprintf("a%02d", i), Line1: "l", City: "c", PostalCode: "p", Country: "DE"}); err != nil {
			t.Fatalf("address %d: %v", i, err)
		}
	}
	tests := []struct {
		name string
		user string
		addr string
		want error
	}{
		{"over the limit", "u1", "a99", store.ErrLimitReached},
		{"existing id", "u1", "a00", store.ErrAlreadyExists},
		{"unknown user", "nobody", "a00", store.ErrNotFound},
		{"bad id", "u1", "a#1", keys.ErrInvalidID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := st.AddAddress(ctx, tt.user, store.NewAddress{AddressID: tt.addr, Line1: "l", City: "c", PostalCode: "p", Country: "DE"})
			if !errors.Is(err, tt.want) {
				t.Errorf("AddAddress = %v, want %v", err, tt.want)
			}
		})
	}
	v, err := st.UserView(ctx, "u1")
	if err != nil || len(v.Addresses) != store.MaxAddresses || v.UserID != "u1" || v.AddressCount != store.MaxAddresses {
		t.Errorf("UserView = %d addresses, %v", len(v.Addresses), err)
	}
	if _, err := st.UserView(ctx, "nobody"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("UserView(nobody) = %v", err)
	}
}

// The cursor pages through a partition exactly once, newest first, and is
// refused on another partition's query.
func TestLedgerPagination(t *testing.T) {
	st, env := newStore(t)
	ctx := context.Background()
	for _, u := range []string{"u1", "u2"} {
		if _, err := st.CreateUser(ctx, store.NewUser{UserID: u, Name: "U", Email: "u@example.com"}); err != nil {
			t.Fatal(err)
		}
	}
	// Ledger entries are normally written by the money flows; write them
	// directly so the test controls their times.
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const n = 23
	var ids []string
	for i := range n {
		ids = append(ids, keys.NewIDAt("cr", base.Add(time.Duration(i)*time.Minute)))
		k, _ := keys.Ledger("u1", ids[i])
		e := store.LedgerEntry{PK: k.PK, SK: k.SK, EntityType: store.TypeLedgerEntry, EntryID: ids[i], UserID: "u1",
			Kind: store.LedgerCredit, Amount: 1, Currency: "EUR", CreatedAt: keys.Timestamp(base)}
		if err := putRaw(ctx, env, e); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	cur := ""
	pages := 0
	for {
		p, err := st.Ledger(ctx, "u1", 10, cur)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, e := range p.Items {
			got = append(got, e.EntryID)
		}
		if p.NextCursor == "" {
			break
		}
		if _, err := st.Ledger(ctx, "u2", 10, p.NextCursor); !errors.Is(err, store.ErrInvalidCursor) {
			t.Errorf("cursor of u1 on u2's ledger = %v, want ErrInvalidCursor", err)
		}
		if _, err := st.UserOrders(ctx, "u1", 10, p.NextCursor); !errors.Is(err, store.ErrInvalidCursor) {
			t.Errorf("ledger cursor on the orders query = %v, want ErrInvalidCursor", err)
		}
		cur = p.NextCursor
	}
	if len(got) != n || got[0] != ids[n-1] || got[n-1] != ids[0] || pages < 3 {
		t.Errorf("pages=%d entries=%v, want %d newest first", pages, got, n)
	}
}

func TestProductsAndFeatured(t *testing.T) {
	st, _ := newStore(t)
	ctx := context.Background()
	for i, featured := range []bool{true, false, true} {
		if _, err := st.CreateProduct(ctx, store.NewProduct{ProductID: fmt.Sprintf("p%d", i), Name: fmt.Sprintf("N%d", i), Price: 100, Currency: "EUR", Featured: featured}); err != nil {
			t.Fatal(err)
		}
	}
	p, err := st.FeaturedProducts(ctx, 0, "")
	if err != nil || len(p.Items) != 2 || p.Items[0].ProductID != "p0" || p.Items[1].ProductID != "p2" {
		t.Errorf("FeaturedProducts = %+v, %v", p, err)
	}
	if _, err := st.Product(ctx, "p1"); err != nil {
		t.Errorf("Product(p1) = %v", err)
	}
	if _, err := st.Product(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Product(nope) = %v", err)
	}
}

// The balance and the profile agree: no currency before the first credit.
func TestBalanceJSON(t *testing.T) {
	profile, _ := json.Marshal(store.User{UserID: "u"})
	if strings.Contains(string(profile), "currency") {
		t.Errorf("profile without a currency = %s", profile)
	}
	for _, tt := range []struct {
		b    store.Balance
		want string
	}{
		{store.Balance{UserID: "u", Balance: 0}, `{"userId":"u","balance":0,"available":0,"held":0}`},
		{store.Balance{UserID: "u", Balance: 250, Available: 200, Held: 50, Currency: "EUR"}, `{"userId":"u","balance":250,"currency":"EUR","available":200,"held":50}`},
	} {
		got, err := json.Marshal(tt.b)
		if err != nil || string(got) != tt.want {
			t.Errorf("json = %s, %v; want %s", got, err, tt.want)
		}
	}
}

// A page that ends the results has no cursor, also when it holds exactly
// limit items (the query reads one item more to know), on the table and on
// an index; a cursor always leads to a non-empty page.
func TestPageEndsWithoutCursor(t *testing.T) {
	st, _ := newStore(t)
	ctx := context.Background()
	for i := range 4 {
		if _, err := st.CreateProduct(ctx, store.NewProduct{ProductID: fmt.Sprintf("f%d", i), Name: fmt.Sprintf("F%d", i), Price: 100, Currency: "EUR", Featured: true}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		limit int
		pages []int // items per page, the last one without a cursor
	}{{4, []int{4}}, {5, []int{4}}, {2, []int{2, 2}}, {3, []int{3, 1}}, {1, []int{1, 1, 1, 1}}} {
		cur, got := "", []int{}
		for {
			p, err := st.FeaturedProducts(ctx, tt.limit, cur)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, len(p.Items))
			if cur = p.NextCursor; cur == "" || len(got) > 5 {
				break
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.pages) {
			t.Errorf("limit %d: pages of %v items, want %v", tt.limit, got, tt.pages)
		}
	}
}

// TestProcessPaymentNamesTheUser: a payment as charge writes it (without
// the user) gets its order's user when processed, in one GetItem of the
// order and one UpdateItem; a user already on the payment is kept; a
// payment of no order is not found and nothing is written.
func TestProcessPaymentNamesTheUser(t *testing.T) {
	st, env := newStore(t)
	ctx := context.Background()
	ok, _ := keys.Order("o1")
	if err := putRaw(ctx, env, map[string]any{"PK": ok.PK, "SK": ok.SK, "EntityType": store.TypeOrder, "orderId": "o1",
		"userId": "u1", "status": store.OrderCreated, "total": 500, "currency": "EUR"}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []store.Payment{
		{PaymentID: "p1", OrderID: "o1"},
		{PaymentID: "p2", OrderID: "o1", UserID: "kept"},
		{PaymentID: "p3", OrderID: "o-none"},
	} {
		pk, _ := keys.Payment(p.OrderID, p.PaymentID)
		p.PK, p.SK, p.EntityType, p.Amount, p.Currency, p.Status = pk.PK, pk.SK, store.TypePayment, 500, "EUR", store.PaymentCreated
		if err := putRaw(ctx, env, p); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		order, payment, user string
		err                  error
	}{
		{"o1", "p1", "u1", nil},
		{"o1", "p1", "u1", nil}, // again: unchanged
		{"o1", "p2", "kept", nil},
		{"o-none", "p3", "", store.ErrNotFound},
		{"o1", "p-none", "", store.ErrNotFound},
	} {
		env.Requests.Reset()
		p, err := st.ProcessPayment(ctx, c.order, c.payment)
		if !errors.Is(err, c.err) || p.UserID != c.user || (err == nil && p.Status != store.PaymentProcessed) {
			t.Errorf("ProcessPayment(%s, %s) = %+v, %v; want user %q, error %v", c.order, c.payment, p, err, c.user, c.err)
		}
		want := "map[GetItem:1 UpdateItem:1]"
		if c.order == "o-none" {
			want = "map[GetItem:1]"
		}
		if got := fmt.Sprint(env.Requests.Snapshot()); got != want {
			t.Errorf("ProcessPayment(%s, %s) made %s, want %s", c.order, c.payment, got, want)
		}
	}
}

func TestLedgerEntryByID(t *testing.T) {
	st, env := newStore(t)
	ctx := context.Background()
	for _, u := range []string{"u1", "u2"} {
		if _, err := st.CreateUser(ctx, store.NewUser{UserID: u, Name: "U", Email: "u@example.com"}); err != nil {
			t.Fatal(err)
		}
	}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	keyed := keys.NewIDAt("cr", at)
	k, err := keys.Ledger("u1", keyed)
	if err != nil {
		t.Fatal(err)
	}
	// legacy: an entry whose sort key holds its commit time, 3 ms and a few
	// ns after the time its id holds.
	legacy := keys.NewIDAt("db", at)
	legacySK := keys.LedgerPrefix + keys.Timestamp(at.Add(3*time.Millisecond+7)) + "#" + legacy
	for _, e := range []store.LedgerEntry{
		{PK: k.PK, SK: k.SK, EntryID: keyed, Kind: store.LedgerCredit, Amount: 5},
		{PK: k.PK, SK: legacySK, EntryID: legacy, Kind: store.LedgerDebit, Amount: 2},
	} {
		e.EntityType, e.UserID, e.Currency, e.CreatedAt = store.TypeLedgerEntry, "u1", "EUR", keys.Timestamp(at)
		if err := putRaw(ctx, env, e); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		user, id string
		want     int64 // the entry's amount; 0: not found
		invalid  bool
	}{
		{"u1", keyed, 5, false},
		{"u1", legacy, 2, false},
		{"u2", keyed, 0, false},                                 // another user's entry
		{"u1", keys.NewIDAt("cr", at.Add(time.Hour)), 0, false}, // no such entry
		{"u1", "e1", 0, false},                                  // a well-formed id that holds no time
		{"u1", "e#1", 0, true},
		{"u#1", keyed, 0, true},
	}
	for _, tt := range tests {
		got, err := st.LedgerEntry(ctx, tt.user, tt.id)
		switch {
		case tt.invalid:
			if !errors.Is(err, keys.ErrInvalidID) {
				t.Errorf("LedgerEntry(%s, %s) = %v, want ErrInvalidID", tt.user, tt.id, err)
			}
		case tt.want == 0:
			if !errors.Is(err, store.ErrNotFound) {
				t.Errorf("LedgerEntry(%s, %s) = %+v, %v, want ErrNotFound", tt.user, tt.id, got, err)
			}
		case err != nil || got.EntryID != tt.id || got.Amount != tt.want:
			t.Errorf("LedgerEntry(%s, %s) = %+v, %v, want amount %d", tt.user, tt.id, got, err, tt.want)
		}
	}
}
