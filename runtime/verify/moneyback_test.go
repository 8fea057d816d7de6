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

// TestConfirmReadsBothLegsOfATransfer: a scan that read the sender's
// partition before a transfer and the recipient's after it sees one leg,
// and reports the transfer unbalanced; Confirm reads the other leg too, in
// the counterparty's partition, and drops it.
func TestConfirmReadsBothLegsOfATransfer(t *testing.T) {
	ctx := context.Background()
	eng := ddblocal.New()
	defer eng.Close()
	db := eng.Client()
	if err := provision.EnsureTable(ctx, db, "confirm-transfer"); err != nil {
		t.Fatal(err)
	}
	st := store.New(db, func(o *store.Options) { o.Table = "confirm-transfer" })
	svc := payments.New(st)
	for _, u := range []string{"alice", "bob"} {
		if _, err := st.CreateUser(ctx, store.NewUser{UserID: u, Name: u, Email: u + "@example.com"}); err != nil {
			t.Fatal(err)
		}
	}
	idem := func(op, key string) payments.Idem {
		fp, _ := idempotency.Fingerprint("POST", "/"+op+"/"+key, nil)
		return payments.Idem{Scope: idempotency.Scope{Caller: "iam:fixture", Operation: op}, Key: key, Fingerprint: fp}
	}
	if _, err := svc.Credit(ctx, idem(payments.FlowCredit, "c"), "alice", money.Amount{Minor: 5000, Currency: "EUR"}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, seen, key string }{
		{"only the sender's leg seen", "alice", "t1"},
		{"only the recipient's leg seen", "bob", "t2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := svc.Transfer(ctx, idem(payments.FlowTransfer, tc.key), "alice", "bob", money.Amount{Minor: 700, Currency: "EUR"})
			if err != nil {
				t.Fatal(err)
			}
			var tr payments.TransferResult
			if err := json.Unmarshal(r.Body, &tr); err != nil {
				t.Fatal(err)
			}
			entry := tr.EntryID
			if tc.seen == "bob" {
				entry = tr.TransferID + "-in"
			}
			k, err := st.Keys().Ledger(tc.seen, entry)
			if err != nil {
				t.Fatal(err)
			}
			half := &verify.Report{Table: "confirm-transfer", Violations: []verify.Violation{{Kind: verify.TransferUnbalanced,
				UserID: tc.seen, Transaction: "transfer " + tr.TransferID, Keys: []verify.Key{{PK: k.PK, SK: k.SK}}}}}
			got, err := verify.Confirm(ctx, db, half, verify.NewCursor(1, time.Now()), func(o *verify.Options) { o.Table = "confirm-transfer" })
			if err != nil {
				t.Fatal(err)
			}
			if !got.OK {
				t.Errorf("Confirm of a transfer whose legs are both there: got %+v, want none", got.Violations)
			}
		})
	}
}
