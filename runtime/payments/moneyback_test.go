package payments_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/oncetable/oncetable/runtime/money"
	"github.com/oncetable/oncetable/runtime/payments"
	"github.com/oncetable/oncetable/runtime/store"
)

// balanceIs fails t unless the user's posted, available and held money are
// as given.
func (f *fixture) balanceIs(t *testing.T, user string, posted, available, held int64) {
	t.Helper()
	b, err := f.st.Balance(context.Background(), user)
	if err != nil {
		t.Fatal(err)
	}
	if b.Balance != posted || b.Available != available || b.Held != held {
		t.Fatalf("balance of %s = posted %d, available %d, held %d; want %d, %d, %d", user, b.Balance, b.Available, b.Held, posted, available, held)
	}
}

// ledgerSum is the signed sum of the user's ledger.
func (f *fixture) ledgerSum(t *testing.T, user string) int64 {
	t.Helper()
	var sum int64
	cur := ""
	for {
		p, err := f.st.Ledger(context.Background(), user, 100, cur)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range p.Items {
			sum += e.Signed()
		}
		if p.NextCursor == "" {
			return sum
		}
		cur = p.NextCursor
	}
}

func TestTransfer(t *testing.T) {
	tests := []struct {
		name     string
		from, to string
		amt      money.Amount
		want     error
	}{
		{"moves the money", "alice", "bob", eur(300), nil},
		{"the whole balance", "alice", "bob", eur(1000), nil},
		{"to a user without a currency yet", "alice", "carol", eur(100), nil},
		{"more than the balance", "alice", "bob", eur(1001), payments.ErrInsufficientFunds},
		{"to oneself", "alice", "alice", eur(10), payments.ErrSameAccount},
		{"to nobody", "alice", "nobody", eur(10), payments.ErrNotFound},
		{"from nobody", "nobody", "bob", eur(10), payments.ErrNotFound},
		{"another currency than the sender's", "alice", "bob", money.Amount{Minor: 10, Currency: "USD"}, payments.ErrCurrencyMismatch},
		{"another currency than the recipient's", "alice", "dave", eur(10), payments.ErrCurrencyMismatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			ctx := context.Background()
			f.user(t, "alice", 1000)
			f.user(t, "bob", 50)
			f.user(t, "carol", 0)
			f.user(t, "dave", 0)
			if _, err := f.svc.Credit(ctx, idem(payments.FlowCredit, "usd", "/users/dave/credits", 1), "dave", money.Amount{Minor: 1, Currency: "USD"}); err != nil {
				t.Fatal(err)
			}
			key := idem(payments.FlowTransfer, "t1", "/users/"+tt.from+"/transfers", tt.amt)
			r, err := f.svc.Transfer(ctx, key, tt.from, tt.to, tt.amt)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Transfer = %+v, %v; want %v", r, err, tt.want)
			}
			if tt.want != nil {
				f.balanceIs(t, "alice", 1000, 1000, 0)
				f.balanceIs(t, "bob", 50, 50, 0)
				if p, _ := f.st.Ledger(ctx, "alice", 10, ""); len(p.Items) != 1 {
					t.Fatalf("alice's ledger has %d entries after a refused transfer, want the seed credit alone", len(p.Items))
				}
				return
			}
			var body payments.TransferResult
			if err := json.Unmarshal(r.Body, &body); err != nil || r.Status != http.StatusCreated || body.Amount != tt.amt.Minor || body.ToUserID != tt.to {
				t.Fatalf("Transfer = %d %s, %v", r.Status, r.Body, err)
			}
			before := map[string]int64{"bob": 50, "carol": 0}[tt.to]
			f.balanceIs(t, tt.from, 1000-tt.amt.Minor, 1000-tt.amt.Minor, 0)
			f.balanceIs(t, tt.to, before+tt.amt.Minor, before+tt.amt.Minor, 0)
			for _, u := range []string{tt.from, tt.to} {
				b, _ := f.st.Balance(ctx, u)
				if got := f.ledgerSum(t, u); got != b.Balance {
					t.Errorf("%s: ledger sums to %d, balance %d", u, got, b.Balance)
				}
			}
			again, err := f.svc.Transfer(ctx, key, tt.from, tt.to, tt.amt)
			if err != nil || !again.Replayed || string(again.Body) != string(r.Body) {
				t.Fatalf("replay = %+v, %v; want the first response replayed", again, err)
			}
			f.balanceIs(t, tt.from, 1000-tt.amt.Minor, 1000-tt.amt.Minor, 0)
		})
	}
}

// Concurrent transfers out of one balance never take more than it holds.
func TestConcurrentTransfersNeverOverdraw(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.user(t, "alice", 1000)
	f.user(t, "bob", 0)
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := 0
	for i := range 30 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := f.svc.Transfer(ctx, idem(payments.FlowTransfer, fmt.Sprint("t", i), "/users/alice/transfers", 100), "alice", "bob", eur(100))
			if err == nil {
				mu.Lock()
				ok++
				mu.Unlock()
			} else if !errors.Is(err, payments.ErrInsufficientFunds) {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if ok != 10 {
		t.Errorf("%d transfers of 100 out of 1000 succeeded, want 10", ok)
	}
	f.balanceIs(t, "alice", 0, 0, 0)
	f.balanceIs(t, "bob", 1000, 1000, 0)
}

// hold returns the hold of a successful flow's response.
func hold(t *testing.T) func(payments.Response, error) store.Hold {
	return func(r payments.Response, err error) store.Hold {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		var h store.Hold
		if err := json.Unmarshal(r.Body, &h); err != nil {
			t.Fatal(err)
		}
		return h
	}
}

func TestHoldLifecycle(t *testing.T) {
	ctx := context.Background()
	type step struct {
		do   string // capture, void
		amt  int64
		want error
	}
	tests := []struct {
		name               string
		held               int64
		steps              []step
		posted, avail, hel int64
	}{
		{"open", 400, nil, 1000, 600, 400},
		{"full capture", 400, []step{{"capture", 400, nil}}, 600, 600, 0},
		{"partial capture gives the rest back", 400, []step{{"capture", 150, nil}}, 850, 850, 0},
		{"void", 400, []step{{"void", 0, nil}}, 1000, 1000, 0},
		{"capture more than held", 400, []step{{"capture", 401, payments.ErrExceedsHold}}, 1000, 600, 400},
		{"capture twice", 400, []step{{"capture", 100, nil}, {"capture", 100, payments.ErrHoldNotOpen}}, 900, 900, 0},
		{"capture after void", 400, []step{{"void", 0, nil}, {"capture", 100, payments.ErrHoldNotOpen}}, 1000, 1000, 0},
		{"void after capture", 400, []step{{"capture", 400, nil}, {"void", 0, payments.ErrHoldNotOpen}}, 600, 600, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.user(t, "u1", 1000)
			h := hold(t)(f.svc.Authorize(ctx, idem(payments.FlowAuthorize, "h", "/users/u1/holds", tt.held), "u1", eur(tt.held), 0))
			if h.Status != store.HoldAuthorized || h.Amount != tt.held {
				t.Fatalf("hold = %+v", h)
			}
			for i, s := range tt.steps {
				var err error
				key := fmt.Sprint("step", i)
				if s.do == "capture" {
					_, err = f.svc.Capture(ctx, idem(payments.FlowCapture, key, "/users/u1/holds/"+h.HoldID+"/capture", s.amt), "u1", h.HoldID, eur(s.amt))
				} else {
					_, err = f.svc.Void(ctx, idem(payments.FlowVoid, key, "/users/u1/holds/"+h.HoldID+"/void", nil), "u1", h.HoldID)
				}
				if !errors.Is(err, s.want) {
					t.Fatalf("step %d %s %d: %v, want %v", i, s.do, s.amt, err, s.want)
				}
			}
			f.balanceIs(t, "u1", tt.posted, tt.avail, tt.hel)
			if got := f.ledgerSum(t, "u1"); got != tt.posted {
				t.Errorf("ledger sums to %d, posted %d", got, tt.posted)
			}
		})
	}
}

func TestHoldRefusals(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	f.user(t, "u1", 1000)
	f.user(t, "poor", 0)
	tests := []struct {
		name   string
		user   string
		amt    money.Amount
		expiry time.Duration
		want   error
	}{
		{"more than the balance", "u1", eur(1001), 0, payments.ErrInsufficientFunds},
		{"no balance", "poor", eur(1), 0, payments.ErrInsufficientFunds},
		{"another currency", "u1", money.Amount{Minor: 1, Currency: "USD"}, 0, payments.ErrCurrencyMismatch},
		{"unknown user", "nobody", eur(1), 0, payments.ErrNotFound},
		{"expiry too short", "u1", eur(1), time.Second, payments.ErrInvalidHold},
		{"expiry too long", "u1", eur(1), 31 * 24 * time.Hour, payments.ErrInvalidHold},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.svc.Authorize(ctx, idem(payments.FlowAuthorize, tt.name, "/users/"+tt.user+"/holds", tt.amt), tt.user, tt.amt, tt.expiry)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Authorize = %v, want %v", err, tt.want)
			}
			f.balanceIs(t, "u1", 1000, 1000, 0)
		})
	}
	t.Run("unknown hold", func(t *testing.T) {
		_, err := f.svc.Capture(ctx, idem(payments.FlowCapture, "c", "/users/u1/holds/hold_x/capture", 1), "u1", "hold_x", eur(1))
		if !errors.Is(err, payments.ErrNotFound) {
			t.Fatalf("Capture = %v, want not found", err)
		}
	})
	t.Run("at most MaxOpenHolds", func(t *testing.T) {
		for i := range store.MaxOpenHolds {
			hold(t)(f.svc.Authorize(ctx, idem(payments.FlowAuthorize, fmt.Sprint("many", i), "/users/u1/holds", 1), "u1", eur(1), 0))
		}
		_, err := f.svc.Authorize(ctx, idem(payments.FlowAuthorize, "one too many", "/users/u1/holds", 1), "u1", eur(1), 0)
		if !errors.Is(err, payments.ErrTooManyHolds) {
			t.Fatalf("hold %d = %v, want %v", store.MaxOpenHolds+1, err, payments.ErrTooManyHolds)
		}
		f.balanceIs(t, "u1", 1000, 1000-store.MaxOpenHolds, store.MaxOpenHolds)
	})
}

// An expired hold stops counting at its expiresAt, though nothing removed
// it: the balance reads it as available, and a debit spends its money in
// the write that releases it.
func TestExpiredHoldCountsWithoutSweeper(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	f.user(t, "u1", 1000)
	h := hold(t)(f.svc.Authorize(ctx, idem(payments.FlowAuthorize, "h", "/users/u1/holds", 800), "u1", eur(800), time.Hour))
	if _, err := f.svc.Debit(ctx, idem(payments.FlowDebit, "d0", "/users/u1/debits", 500), "u1", eur(500)); !errors.Is(err, payments.ErrInsufficientFunds) {
		t.Fatalf("debit of 500 with 200 available = %v, want insufficient funds", err)
	}
	f.env.Clock.Advance(time.Hour)
	f.balanceIs(t, "u1", 1000, 1000, 0)
	r, err := f.svc.Debit(ctx, idem(payments.FlowDebit, "d1", "/users/u1/debits", 900), "u1", eur(900))
	if err != nil || r.Status != http.StatusCreated {
		t.Fatalf("debit of 900 after the hold expired = %+v, %v", r, err)
	}
	f.balanceIs(t, "u1", 100, 100, 0)
	if got := f.ledgerSum(t, "u1"); got != 100 {
		t.Errorf("ledger sums to %d, want 100", got)
	}
	if _, err := f.svc.Capture(ctx, idem(payments.FlowCapture, "c", "/users/u1/holds/"+h.HoldID+"/capture", 1), "u1", h.HoldID, eur(1)); !errors.Is(err, payments.ErrHoldExpired) {
		t.Fatalf("capture of an expired hold = %v, want %v", err, payments.ErrHoldExpired)
	}
	got, err := f.st.Hold(ctx, "u1", h.HoldID)
	if err != nil || got.Status != store.HoldExpired {
		t.Fatalf("hold = %+v, %v; want expired", got, err)
	}
	// Voiding a released hold closes it without moving money again.
	if _, err := f.svc.Void(ctx, idem(payments.FlowVoid, "v", "/users/u1/holds/"+h.HoldID+"/void", nil), "u1", h.HoldID); err != nil {
		t.Fatal(err)
	}
	f.balanceIs(t, "u1", 100, 100, 0)
}

// Of concurrent captures of one hold exactly one succeeds, and holds and
// debits together never take the available balance below zero.
func TestConcurrentHoldsCapturesAndDebits(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	f.user(t, "u1", 1000)
	h := hold(t)(f.svc.Authorize(ctx, idem(payments.FlowAuthorize, "h", "/users/u1/holds", 300), "u1", eur(300), 0))
	var wg sync.WaitGroup
	var mu sync.Mutex
	captures := 0
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := f.svc.Capture(ctx, idem(payments.FlowCapture, fmt.Sprint("c", i), "/users/u1/holds/"+h.HoldID+"/capture", 100+i), "u1", h.HoldID, eur(100+int64(i)))
			switch {
			case err == nil:
				mu.Lock()
				captures++
				mu.Unlock()
			case !errors.Is(err, payments.ErrHoldNotOpen):
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if captures != 1 {
		t.Fatalf("%d captures of one hold succeeded, want 1", captures)
	}
	b, _ := f.st.Balance(ctx, "u1")
	start := b.Available
	var taken int64
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			if i%2 == 0 {
				_, err = f.svc.Authorize(ctx, idem(payments.FlowAuthorize, fmt.Sprint("h", i), "/users/u1/holds", 97), "u1", eur(97), 0)
			} else {
				_, err = f.svc.Debit(ctx, idem(payments.FlowDebit, fmt.Sprint("d", i), "/users/u1/debits", 97), "u1", eur(97))
			}
			switch {
			case err == nil:
				mu.Lock()
				taken += 97
				mu.Unlock()
			case !errors.Is(err, payments.ErrInsufficientFunds):
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	b, _ = f.st.Balance(ctx, "u1")
	if b.Available < 0 || b.Available != start-taken || b.Available >= 97 {
		t.Fatalf("available %d after taking %d of %d; want %d, below 97 and not negative", b.Available, taken, start, start-taken)
	}
	if got := f.ledgerSum(t, "u1"); got != b.Balance {
		t.Errorf("ledger sums to %d, posted %d", got, b.Balance)
	}
}

func TestHoldReplay(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	f.user(t, "u1", 1000)
	key := idem(payments.FlowAuthorize, "h", "/users/u1/holds", 300)
	first, err := f.svc.Authorize(ctx, key, "u1", eur(300), 0)
	if err != nil {
		t.Fatal(err)
	}
	again, err := f.svc.Authorize(ctx, key, "u1", eur(300), 0)
	if err != nil || !again.Replayed || string(again.Body) != string(first.Body) {
		t.Fatalf("authorize replay = %+v, %v", again, err)
	}
	h := hold(t)(first, nil)
	ck := idem(payments.FlowCapture, "c", "/users/u1/holds/"+h.HoldID+"/capture", 200)
	c1, err := f.svc.Capture(ctx, ck, "u1", h.HoldID, eur(200))
	if err != nil {
		t.Fatal(err)
	}
	c2, err := f.svc.Capture(ctx, ck, "u1", h.HoldID, eur(200))
	if err != nil || !c2.Replayed || string(c2.Body) != string(c1.Body) {
		t.Fatalf("capture replay = %+v, %v", c2, err)
	}
	f.balanceIs(t, "u1", 800, 800, 0)
}
