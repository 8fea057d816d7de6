package idempotency_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/ddbtest"
	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/txn"
)

// names are another team's: keys id/kind, TTL purge_at (none of
// oncetable's defaults).
var names = idempotency.Attributes{PartitionKey: "id", SortKey: "kind", TTL: "purge_at"}

// world is a wallets table keyed id/kind with TTL on purge_at, on the
// embedded engine or DYNAMODB_ENDPOINT, a settable clock (the library's;
// the engine's too when embedded) and a per-operation request counter.
type world struct {
	db      *dynamodb.Client
	table   string
	records *idempotency.Table
	now     atomic.Int64
	reqs    ddbtest.Counter
}

func newWorld(t *testing.T, opts ...func(*idempotency.Options)) *world {
	t.Helper()
	w := &world{table: ddbtest.TableName("wallets")}
	w.now.Store(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC).UnixNano())
	clock := func() time.Time { return time.Unix(0, w.now.Load()) }
	w.db, _ = ddbtest.Client(t, []func(*ddblocal.Options){func(o *ddblocal.Options) { o.Clock = clock }}, w.reqs.Option)
	createTable(t, w.db, w.table)
	ctx := context.Background()
	for _, wl := range []string{"alice", "bob"} {
		if _, err := w.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(w.table),
			Item: map[string]types.AttributeValue{"id": s("wallet#" + wl), "kind": s("wallet"), "balance": n("100")}}); err != nil {
			t.Fatal(err)
		}
	}
	w.records = idempotency.NewTable(w.db, w.table, append([]func(*idempotency.Options){func(o *idempotency.Options) {
		o.Attributes = names
		o.KeyPrefix, o.Clock, o.Expiry = "once#", clock, time.Hour
	}}, opts...)...)
	w.reqs.Reset()
	return w
}

// createTable makes table with the helper a new user would call.
func createTable(t *testing.T, db *dynamodb.Client, table string) {
	t.Helper()
	ddbtest.DeleteAfter(t, db, table)
	if err := idempotency.CreateTable(context.Background(), db, table, names, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
}

func (w *world) advance(d time.Duration) { w.now.Add(int64(d)) }

func (w *world) balance(t *testing.T, wallet string) string {
	out, err := w.db.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(w.table), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"id": s("wallet#" + wallet), "kind": s("wallet")}})
	if err != nil {
		t.Fatal(err)
	}
	return out.Item["balance"].(*types.AttributeValueMemberN).Value
}

func request(key, fp string) idempotency.Request {
	return idempotency.Request{Scope: idempotency.Scope{Caller: "alice", Operation: "transfer"}, Key: key, Fingerprint: fp}
}

func (w *world) transfer(amount string) idempotency.EffectFunc {
	return func(now time.Time) (*idempotency.Effect, error) {
		eff := &idempotency.Effect{Status: 201, Body: map[string]string{"amount": amount, "at": now.Format(time.RFC3339Nano)}}
		eff.Items.Add("debit", move(w.table, "alice", "-"+amount, true))
		eff.Items.Add("credit", move(w.table, "bob", amount, false))
		return eff, nil
	}
}

func TestDo(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	first, err := w.records.Do(ctx, request("k1", "fp1"), w.transfer("30"))
	if err != nil || first.Replayed || first.Status != 201 {
		t.Fatalf("first = %+v, %v", first, err)
	}
	if got := w.reqs.Snapshot(); got["TransactWriteItems"] != 1 || len(got) != 1 {
		t.Errorf("first call requests = %v, want 1 TransactWriteItems", got)
	}
	w.reqs.Reset()
	w.advance(time.Minute)
	again, err := w.records.Do(ctx, request("k1", "fp1"), w.transfer("30"))
	if err != nil || !again.Replayed || string(again.Body) != string(first.Body) {
		t.Fatalf("replay = %+v, %v; want body %s", again, err, first.Body)
	}
	if got := w.reqs.Snapshot(); got["TransactWriteItems"] != 1 || len(got) != 1 {
		t.Errorf("replay requests = %v, want 1 TransactWriteItems", got)
	}
	if _, err := w.records.Do(ctx, request("k1", "other"), w.transfer("31")); !errors.Is(err, idempotency.ErrKeyReused) {
		t.Errorf("changed payload: err = %v, want ErrKeyReused", err)
	}
	if got := w.balance(t, "alice") + "/" + w.balance(t, "bob"); got != "70/130" {
		t.Errorf("balances = %s after one transfer and its duplicates, want 70/130", got)
	}
	w.advance(time.Hour + time.Second)
	rerun, err := w.records.Do(ctx, request("k1", "fp1"), w.transfer("30"))
	if err != nil || rerun.Replayed {
		t.Fatalf("expired key: %+v, %v; want a fresh run", rerun, err)
	}
	if got := w.balance(t, "alice"); got != "40" {
		t.Errorf("alice = %s after the expired key ran again, want 40", got)
	}
}

func TestDoErrors(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	_, err := w.records.Do(ctx, request("k2", "fp"), w.transfer("500"))
	var c *txn.CancelledError
	if !errors.As(err, &c) || !c.Failed("debit") || c.Failed("credit") || c.Failed(idempotency.RecordItem) {
		t.Fatalf("overdraft: err = %v, want the debit's cancellation by name", err)
	}
	// A cancelled effect is not recorded: the same key may succeed later.
	if r, err := w.records.Do(ctx, request("k2", "fp"), w.transfer("50")); err != nil || r.Replayed {
		t.Errorf("after a cancelled effect: %+v, %v", r, err)
	}
	if _, err := w.records.Do(ctx, request("", "fp"), w.transfer("1")); !errors.Is(err, idempotency.ErrKeyMissing) {
		t.Errorf("empty key: err = %v, want ErrKeyMissing", err)
	}
	var tx txn.Items
	tx.Add(idempotency.RecordItem, move(w.table, "bob", "1", false))
	_, err = w.records.Do(ctx, request("k3", "fp"), func(time.Time) (*idempotency.Effect, error) {
		return &idempotency.Effect{Items: tx, Status: 200, Body: json.RawMessage(`{}`)}, nil
	})
	if !errors.Is(err, txn.ErrDuplicateName) {
		t.Errorf("effect using the record's name: err = %v, want ErrDuplicateName", err)
	}
}

func TestDoConcurrentDuplicates(t *testing.T) {
	w := newWorld(t)
	var wg sync.WaitGroup
	bodies := make([]string, 50)
	replays := atomic.Int32{}
	for i := range bodies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := w.records.Do(context.Background(), request("same", "fp"), w.transfer("10"))
			if err != nil {
				t.Error(err)
				return
			}
			if r.Replayed {
				replays.Add(1)
			}
			bodies[i] = string(r.Body)
		}()
	}
	wg.Wait()
	for _, b := range bodies {
		if b != bodies[0] {
			t.Fatalf("bodies differ: %s vs %s", b, bodies[0])
		}
	}
	if replays.Load() != int32(len(bodies)-1) || w.balance(t, "alice") != "90" {
		t.Errorf("%d replays, alice %s; want %d replays and 90", replays.Load(), w.balance(t, "alice"), len(bodies)-1)
	}
}
