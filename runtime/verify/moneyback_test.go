package verify_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

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

// TestALivePassChecksRecordsOfSettledEffectsOnly: a flow stamps its items
// at the time it builds its transaction, which commits a little later. A
// pass that starts in between can read the record's partition before the
// commit and the ledger entry's after it: the entry without its record.
// Confirm re-reads the entry's partition, but the entry does not name its
// record's, so without a margin the false effect-without-record is
// confirmed. With Options.InFlight the young entry is left to the next
// pass, and an entry older than the margin whose record is really gone is
// still found and confirmed.
func TestALivePassChecksRecordsOfSettledEffectsOnly(t *testing.T) {
	ctx := context.Background()
	eng := ddblocal.New()
	defer eng.Close()
	db := eng.Client()
	const table = "confirm-inflight"
	if err := provision.EnsureTable(ctx, db, table); err != nil {
		t.Fatal(err)
	}
	stamp := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	st := store.New(db, func(o *store.Options) { o.Table = table; o.Clock = func() time.Time { return stamp } })
	svc := payments.New(st)
	for _, u := range []string{"alice", "bob"} {
		if _, err := st.CreateUser(ctx, store.NewUser{UserID: u, Name: u, Email: u + "@example.com"}); err != nil {
			t.Fatal(err)
		}
	}
	credit := func(user, key string, at time.Time) (entryID string, record map[string]types.AttributeValue) {
		t.Helper()
		stamp = at
		fp, _ := idempotency.Fingerprint("POST", "/credit/"+key, nil)
		idem := payments.Idem{Scope: idempotency.Scope{Caller: "iam:fixture", Operation: payments.FlowCredit}, Key: key, Fingerprint: fp}
		r, err := svc.Credit(ctx, idem, user, money.Amount{Minor: 100, Currency: "EUR"})
		if err != nil {
			t.Fatal(err)
		}
		var res payments.CreditResult
		if err := json.Unmarshal(r.Body, &res); err != nil {
			t.Fatal(err)
		}
		k := idempotency.DefaultKeyPrefix + idem.Scope.Hash(key)
		return res.EntryID, map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: k}, "SK": &types.AttributeValueMemberS{Value: k}}
	}
	started := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	gone, goneRecord := credit("alice", "gone", started.Add(-5*time.Minute)) // its record is lost: a real violation
	credit("bob", "kept", started.Add(-time.Minute))
	young, youngRecord := credit("alice", "young", started.Add(-time.Second)) // stamped before the pass, committed after its start
	if _, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: goneRecord}); err != nil {
		t.Fatal(err)
	}
	out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: youngRecord, ConsistentRead: aws.Bool(true)})
	if err != nil || out.Item == nil {
		t.Fatalf("the young credit's record: %v, %v", out, err)
	}
	// The scan passes the record's partition before the young credit's
	// transaction commits, and its user's partition after.
	if _, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: youngRecord}); err != nil {
		t.Fatal(err)
	}
	c := verify.NewCursor(2, started)
	var chunks []verify.Chunk
	for !c.Done() {
		chunk, next, err := verify.Step(ctx, db, c, time.Now().Add(time.Minute), func(o *verify.Options) { o.Table, o.MaxRCU = table, -1 })
		if err != nil {
			t.Fatal(err)
		}
		chunks, c = append(chunks, chunk), next
	}
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: out.Item}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		inFlight time.Duration
		want     []string // the entries confirmed without their record
	}{
		{"no margin: the young entry is a false page", -1, []string{gone, young}},
		{"the default margin", 0, []string{gone}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := func(o *verify.Options) { o.Table, o.InFlight = table, tc.inFlight }
			rep, err := verify.Check(c, chunks, opts)
			if err != nil {
				t.Fatal(err)
			}
			confirmed, err := verify.Confirm(ctx, db, rep, c, opts)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, v := range confirmed.Violations {
				if v.Kind != verify.EffectWithoutRecord {
					t.Errorf("confirmed %s: %s, want effect-without-record only", v.Kind, v.Detail)
					continue
				}
				for _, e := range []string{gone, young} {
					if strings.Contains(v.Transaction, e) {
						got = append(got, e)
					}
				}
			}
			slices.Sort(got)
			slices.Sort(tc.want)
			if !slices.Equal(got, tc.want) {
				t.Errorf("confirmed effects without record %v, want %v (gone %s, young %s); report %+v", got, tc.want, gone, young, confirmed.Violations)
			}
		})
	}
}
