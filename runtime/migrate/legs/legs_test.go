package legs_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/internal/dbtest"
	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/migrate"
	"github.com/oncetable/oncetable/runtime/migrate/legs"
	"github.com/oncetable/oncetable/runtime/money"
	"github.com/oncetable/oncetable/runtime/payments"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/store"
	"github.com/oncetable/oncetable/runtime/verify"
)

func TestTransformRefusesWhatItCannotRead(t *testing.T) {
	n := func(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	m := legs.Migration(schema.Default(), "")
	for _, tc := range []struct {
		name string
		item migrate.Item
		err  error
		legs []store.Leg
	}{
		{"a debit", migrate.Item{"kind": s("debit"), "userId": s("u1"), "amount": n("250")}, nil, []store.Leg{{Account: "user:u1", Amount: -250}, {Account: store.AccountFunding, Amount: 250}}},
		{"a refund", migrate.Item{"kind": s("refund"), "userId": s("u1"), "amount": n("5")}, nil, []store.Leg{{Account: "user:u1", Amount: 5}, {Account: store.AccountRefunds, Amount: -5}}},
		{"no kind", migrate.Item{"userId": s("u1"), "amount": n("1")}, legs.ErrEntry, nil},
		{"no user", migrate.Item{"kind": s("credit"), "amount": n("1")}, legs.ErrEntry, nil},
		{"amount a string", migrate.Item{"kind": s("credit"), "userId": s("u1"), "amount": s("1")}, legs.ErrEntry, nil},
		{"amount not an integer", migrate.Item{"kind": s("credit"), "userId": s("u1"), "amount": n("1.5")}, legs.ErrEntry, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := m.Transform(tc.item)
			if !errors.Is(err, tc.err) {
				t.Fatalf("Transform = %v, %v; want error %v", got, err, tc.err)
			}
			if tc.legs == nil {
				return
			}
			var l []store.Leg
			if err := attributevalue.Unmarshal(got[legs.Attribute], &l); err != nil || fmt.Sprint(l) != fmt.Sprint(tc.legs) {
				t.Fatalf("legs %v (%v), want %v", l, err, tc.legs)
			}
		})
	}
}

// TestLiveBackfillUnderTraffic gives legs to entries stored without them
// while credits and debits keep writing new entries (with legs) for the
// same users, through every phase to done. No entry is lost, every entry
// has legs after, and the verifier finds the table whole.
func TestLiveBackfillUnderTraffic(t *testing.T) {
	const users, legacy, writers = 5, 60, 3
	env := dbtest.New(t)
	ctx := context.Background()
	st := store.New(env.Client, func(o *store.Options) { o.Table = env.Table })
	svc := payments.New(st)
	eur := func(v int64) money.Amount { return money.Amount{Minor: v, Currency: "EUR"} }
	idem := func(op, key string) payments.Idem {
		fp, _ := idempotency.Fingerprint("POST", "/"+op+"/"+key, nil)
		return payments.Idem{Scope: idempotency.Scope{Caller: "iam:test", Operation: op}, Key: key, Fingerprint: fp}
	}
	b := store.NewBuilder(env.Table, schema.Default())
	at := time.Date(2026, 11, 1, 8, 0, 0, 0, time.UTC)
	for u := range users {
		user := fmt.Sprintf("u%d", u)
		if _, err := st.CreateUser(ctx, store.NewUser{UserID: user, Name: user, Email: user + "@example.com"}); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Credit(ctx, idem(payments.FlowCredit, "first-"+user), user, eur(1000)); err != nil {
			t.Fatal(err)
		}
	}
	// Entries as they were stored before entries carried legs, each
	// credit with the balance it added.
	for i := range legacy {
		user := fmt.Sprintf("u%d", i%users)
		id := keys.NewIDAt("cr", at.Add(time.Duration(i)*time.Second))
		k, _ := keys.Ledger(user, id)
		av, err := b.Marshal(store.LedgerEntry{PK: k.PK, SK: k.SK, EntityType: store.TypeLedgerEntry, EntryID: id, UserID: user,
			Kind: store.LedgerCredit, Amount: int64(i + 1), Currency: "EUR", CreatedAt: at.Format(time.RFC3339Nano)})
		if err != nil {
			t.Fatal(err)
		}
		profile, _ := keys.User(user)
		_, err = env.Client.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: aws.String(env.Table), Item: av}},
			{Update: &types.Update{TableName: aws.String(env.Table), Key: b.Key(profile), UpdateExpression: aws.String("ADD balance :a"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":a": &types.AttributeValueMemberN{Value: fmt.Sprint(i + 1)}}}},
		}})
		if err != nil {
			t.Fatal(err)
		}
	}

	mg, err := migrate.New(env.Client, env.Table, legs.Migration(schema.Default(), ""), func(o *migrate.Options) {
		o.Holder, o.Segments, o.PageSize, o.Budget, o.Clock = "test", 3, 7, 100000, env.Clock.Now
	})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	t.Cleanup(func() { stop(); wg.Wait() })
	var writes atomic.Int64
	for w := range writers {
		wg.Go(func() {
			for i := 0; runCtx.Err() == nil; i++ {
				user := fmt.Sprintf("u%d", (w+i)%users)
				key := fmt.Sprintf("w%d-%d", w, i)
				var err error
				if i%2 == 0 {
					_, err = svc.Credit(runCtx, idem(payments.FlowCredit, key), user, eur(7))
				} else {
					_, err = svc.Debit(runCtx, idem(payments.FlowDebit, key), user, eur(3))
				}
				if err != nil && runCtx.Err() == nil {
					t.Errorf("writer %d: %v", w, err)
					return
				}
				writes.Add(1)
			}
		})
	}
	for _, phase := range []migrate.Phase{migrate.Verify, migrate.Done} {
		if _, err := mg.Run(ctx, phase); err != nil {
			t.Fatalf("run to %s: %v", phase, err)
		}
	}
	stop()
	wg.Wait()
	if writes.Load() < 10 {
		t.Fatalf("only %d live writes: the traffic did not overlap the migration", writes.Load())
	}

	out, err := env.Client.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(env.Table), ConsistentRead: aws.Bool(true)})
	if err != nil || out.LastEvaluatedKey != nil {
		t.Fatalf("scan: %v (one page expected)", err)
	}
	var entries, migrated int
	for _, it := range out.Items {
		if et, _ := it[schema.EntityType].(*types.AttributeValueMemberS); et == nil || et.Value != store.TypeLedgerEntry {
			continue
		}
		entries++
		var e store.LedgerEntry
		if err := b.Unmarshal(it, &e); err != nil {
			t.Fatal(err)
		}
		if len(e.Legs) != 2 || e.Net() != 0 {
			t.Errorf("entry %s after done: legs %v", e.EntryID, e.Legs)
		}
		if _, ok := it[migrate.DefaultVersionAttribute]; ok {
			migrated++
		}
	}
	if want := users + legacy + int(writes.Load()); entries < want-writers || entries > want {
		t.Errorf("%d entries after done, want %d (the %d legacy, %d first credits, %d live writes; a write the stop cut short may be missing)", entries, want, legacy, users, writes.Load())
	}
	if migrated != legacy {
		t.Errorf("%d entries migrated, want the %d stored without legs", migrated, legacy)
	}
	rep, err := verify.Table(ctx, env.Client, func(o *verify.Options) { o.Table, o.MaxRCU = env.Table, -1 })
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK {
		t.Errorf("the verifier after the migration: %d violations: %+v", rep.Total(), rep.Violations)
	}
	t.Logf("%d legacy entries migrated under %d live writes by %d writers; %d entries, verifier OK=%v", migrated, writes.Load(), writers, entries, rep.OK)
}
