package verify_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/money"
	"github.com/oncetable/oncetable/runtime/payments"
	"github.com/oncetable/oncetable/runtime/schema/provision"
	"github.com/oncetable/oncetable/runtime/store"
	"github.com/oncetable/oncetable/runtime/verify"
)

// The flows that move money between users and through holds leave a table
// the verifier finds whole: every balance (open holds included) equals its
// ledger, and every transfer's legs net to zero.
func TestTransfersAndHoldsVerify(t *testing.T) {
	ctx := context.Background()
	eng := ddblocal.New()
	defer eng.Close()
	db := eng.Client()
	if err := provision.EnsureTable(ctx, db, "moneyback"); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	st := store.New(db, func(o *store.Options) { o.Table = "moneyback"; o.Clock = func() time.Time { return now } })
	svc := payments.New(st)
	eur := func(n int64) money.Amount { return money.Amount{Minor: n, Currency: "EUR"} }
	idem := func(op, key string) payments.Idem {
		fp, _ := idempotency.Fingerprint("POST", "/"+op+"/"+key, nil)
		return payments.Idem{Scope: idempotency.Scope{Caller: "iam:fixture", Operation: op}, Key: key, Fingerprint: fp}
	}
	must := func(r payments.Response, err error) payments.Response {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	holdOf := func(r payments.Response) store.Hold {
		var h store.Hold
		if err := json.Unmarshal(r.Body, &h); err != nil {
			t.Fatal(err)
		}
		return h
	}
	for _, u := range []string{"alice", "bob"} {
		if _, err := st.CreateUser(ctx, store.NewUser{UserID: u, Name: u, Email: u + "@example.com"}); err != nil {
			t.Fatal(err)
		}
	}
	must(svc.Credit(ctx, idem(payments.FlowCredit, "c"), "alice", eur(5000)))
	must(svc.Transfer(ctx, idem(payments.FlowTransfer, "t1"), "alice", "bob", eur(1200)))
	must(svc.Transfer(ctx, idem(payments.FlowTransfer, "t2"), "bob", "alice", eur(200)))
	captured := holdOf(must(svc.Authorize(ctx, idem(payments.FlowAuthorize, "h1"), "alice", eur(700), 0)))
	must(svc.Capture(ctx, idem(payments.FlowCapture, "c1"), "alice", captured.HoldID, eur(450)))
	voided := holdOf(must(svc.Authorize(ctx, idem(payments.FlowAuthorize, "h2"), "alice", eur(100), 0)))
	must(svc.Void(ctx, idem(payments.FlowVoid, "v2"), "alice", voided.HoldID))
	must(svc.Authorize(ctx, idem(payments.FlowAuthorize, "h3"), "bob", eur(300), time.Hour)) // expires, released by a debit
	must(svc.Authorize(ctx, idem(payments.FlowAuthorize, "h4"), "alice", eur(50), 0))        // stays open
	now = now.Add(2 * time.Hour)
	must(svc.Debit(ctx, idem(payments.FlowDebit, "d"), "bob", eur(1000)))

	rep, err := verify.Table(ctx, db, func(o *verify.Options) { o.Table, o.MaxRCU = "moneyback", -1 })
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK {
		t.Fatalf("violations: %+v", rep.Violations)
	}
	b, _ := st.Balance(ctx, "alice")
	if b.Balance != 5000-1200+200-450 || b.Held != 50 {
		t.Fatalf("alice = %+v", b)
	}
}
