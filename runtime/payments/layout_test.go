package payments_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/internal/dbtest"
	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/migrate"
	"github.com/oncetable/oncetable/runtime/migrate/orders"
	"github.com/oncetable/oncetable/runtime/payments"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/store"
)

var noFence = flag.Bool("payments.nofence", false, "strip the migration fence from every transaction (TestStalePhaseWriter must then fail)")

const layoutShards = 4

// unfenced is a client that strips the fence's ConditionCheck (on the
// migration's META item) from every transaction: the writers as they would
// be without the fence.
type unfenced struct {
	*dynamodb.Client
	strip  bool
	fences atomic.Int64 // fence items seen
}

func (u *unfenced) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	for _, it := range in.TransactItems {
		if cc := it.ConditionCheck; cc != nil && strings.HasPrefix(avS(cc.Key["PK"]), "MIGRATION#") {
			u.fences.Add(1)
		}
	}
	if u.strip {
		kept := *in
		kept.TransactItems = nil
		for _, it := range in.TransactItems {
			if cc := it.ConditionCheck; cc != nil && strings.HasPrefix(avS(cc.Key["PK"]), "MIGRATION#") {
				continue
			}
			kept.TransactItems = append(kept.TransactItems, it)
		}
		in = &kept
	}
	return u.Client.TransactWriteItems(ctx, in, o...)
}

func avS(v types.AttributeValue) string {
	if s, ok := v.(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

// layoutFixture is a table with both order indexes, a store and flows in
// one order layout, and the migration orders-by-status-v2.
type layoutFixture struct {
	*fixture
	mg *migrate.Migrator
	db *unfenced
}

func newLayoutFixture(t *testing.T, stage schema.OrderIndexes, ttl time.Duration, stripFence bool) *layoutFixture {
	t.Helper()
	env := dbtest.NewFor(t, schema.Schema{Orders: schema.OrdersBoth})
	db := &unfenced{Client: env.Client, strip: stripFence}
	st := store.New(db, func(o *store.Options) {
		o.Table, o.Clock = env.Table, env.Clock.Now
		o.Orders = store.OrderLayout{Stage: stage, Shards: layoutShards, PhaseTTL: ttl}
	})
	m, err := orders.ByStatus(layoutShards, keys.Default)
	if err != nil {
		t.Fatal(err)
	}
	mg, err := migrate.New(env.Client, env.Table, m, func(o *migrate.Options) {
		o.Holder, o.Segments, o.Clock = "test", 2, env.Clock.Now
	})
	if err != nil {
		t.Fatal(err)
	}
	return &layoutFixture{fixture: &fixture{env: env, st: st, svc: payments.New(st)}, mg: mg, db: db}
}

func (f *layoutFixture) run(t *testing.T, to migrate.Phase) {
	t.Helper()
	if _, err := f.mg.Run(context.Background(), to); err != nil {
		t.Fatalf("run to %s: %v", to, err)
	}
}

// settle charges the order's total (100 per line, as f.order makes it)
// and settles it.
func (f *layoutFixture) settle(t *testing.T, orderID string) {
	t.Helper()
	o, err := f.st.Order(context.Background(), orderID)
	if err != nil {
		t.Fatalf("order %s: %v", orderID, err)
	}
	if _, err := f.svc.Charge(context.Background(), idem(payments.FlowCharge, "charge-"+orderID, "/orders/"+orderID+"/payments", o.Total), orderID, eur(o.Total)); err != nil {
		t.Fatalf("charge %s: %v", orderID, err)
	}
	if _, err := f.svc.Settle(context.Background(), idem(payments.FlowSettle, "settle-"+orderID, "/orders/"+orderID+"/settle", nil), orderID, nil); err != nil {
		t.Fatalf("settle %s: %v", orderID, err)
	}
}

func (f *layoutFixture) raw(t *testing.T, orderID string) map[string]types.AttributeValue {
	t.Helper()
	k, _ := keys.Order(orderID)
	out, err := f.env.Client.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(f.env.Table),
		Key: store.KeyAV(k), ConsistentRead: aws.Bool(true)})
	if err != nil || out.Item == nil {
		t.Fatalf("order %s: %v (found %v)", orderID, err, out != nil && out.Item != nil)
	}
	return out.Item
}

// checkShape checks that an order item is in the shape of phase p and
// status.
func checkShape(t *testing.T, item map[string]types.AttributeValue, p migrate.Phase, status string) {
	t.Helper()
	id := avS(item["orderId"])
	if got := avS(item["status"]); got != status {
		t.Errorf("%s: status %q, want %q", id, got, status)
	}
	_, hasPK := item["GSI1PK"]
	_, hasSK := item["GSI1SK"]
	switch {
	case p.WritesOld() && (avS(item["GSI1PK"]) != "ORDERSTATUS#"+status || !strings.HasSuffix(avS(item["GSI1SK"]), "#"+id)):
		t.Errorf("%s in %s: GSI1PK %q GSI1SK %q, want ORDERSTATUS#%s and <createdAt>#%s", id, p, avS(item["GSI1PK"]), avS(item["GSI1SK"]), status, id)
	case !p.WritesOld() && (hasPK || hasSK):
		t.Errorf("%s in %s: carries GSI1PK/GSI1SK (%q, %q), want neither", id, p, avS(item["GSI1PK"]), avS(item["GSI1SK"]))
	}
	shard, hasShard := item["shard"].(*types.AttributeValueMemberN)
	version, _ := item["schemaVersion"].(*types.AttributeValueMemberN)
	switch {
	case p.WritesNew() && (!hasShard || shard.Value != fmt.Sprint(orders.Shard(id, layoutShards)) || version == nil || version.Value != "2"):
		t.Errorf("%s in %s: shard %v schemaVersion %v, want %d and 2", id, p, item["shard"], item["schemaVersion"], orders.Shard(id, layoutShards))
	case !p.WritesNew() && (hasShard || version != nil):
		t.Errorf("%s in %s: carries shard/schemaVersion, want neither", id, p)
	}
}

// TestOrderShapesPerPhase creates and settles orders in each stage and,
// in stage both, in each phase of orders-by-status-v2, and checks the
// order items' shapes.
func TestOrderShapesPerPhase(t *testing.T) {
	for _, stage := range []schema.OrderIndexes{schema.OrdersV1, schema.OrdersV2} {
		t.Run(string(stage), func(t *testing.T) {
			f := newLayoutFixture(t, stage, 0, false)
			f.user(t, "u1", 100_000)
			f.order(t, "u1", "o-c", 100, 1)
			f.order(t, "u1", "o-s", 100, 1)
			f.settle(t, "o-s")
			p := map[schema.OrderIndexes]migrate.Phase{schema.OrdersV1: migrate.None, schema.OrdersV2: migrate.Done}[stage]
			checkShape(t, f.raw(t, "o-c"), p, store.OrderCreated)
			checkShape(t, f.raw(t, "o-s"), p, store.OrderPaid)
		})
	}
	t.Run("both", func(t *testing.T) {
		f := newLayoutFixture(t, schema.OrdersBoth, time.Nanosecond, false)
		f.user(t, "u1", 100_000)
		for _, p := range migrate.Phases() {
			if p != migrate.None {
				f.run(t, p)
			}
			created, paid := "c-"+string(p), "s-"+string(p)
			f.order(t, "u1", created, 100, 1)
			f.order(t, "u1", paid, 100, 1)
			f.settle(t, paid)
			checkShape(t, f.raw(t, created), p, store.OrderCreated)
			checkShape(t, f.raw(t, paid), p, store.OrderPaid)
		}
		if n := store.StaleWrites(f.st.Orders()); n != 0 {
			t.Errorf("%d writes cancelled by the fence with a phase read before each, want 0", n)
		}
	})
}

// TestStalePhaseWriter runs the payments flows with a phase cached for an
// hour, so that only the fence tells them about a transition: a writer that
// still believes none creates an order after the backfill, and one that
// still believes cutover settles an order after the cleanup. With the fence
// each is cancelled once and rewritten in the new phase. Without it (the
// fenced=false cases, or -args -payments.nofence, which makes the fenced
// cases fail), the first order is missing from the new shape and the second
// carries GSI1PK again after the cleanup.
func TestStalePhaseWriter(t *testing.T) {
	tests := []struct {
		name   string
		stale  func(t *testing.T, f *layoutFixture) // writes with a stale phase
		fenced func(t *testing.T, f *layoutFixture)
		lost   func(t *testing.T, f *layoutFixture)
	}{
		{"create after the backfill, believing none", func(t *testing.T, f *layoutFixture) {
			f.order(t, "u1", "o-old", 100, 1) // caches none
			f.run(t, migrate.Verify)
			f.order(t, "u1", "o-new", 100, 1)
		}, func(t *testing.T, f *layoutFixture) {
			if _, err := f.mg.Verify(context.Background()); err != nil {
				t.Errorf("verify after the stale writer: %v", err)
			}
			checkShape(t, f.raw(t, "o-new"), migrate.Verify, store.OrderCreated)
		}, func(t *testing.T, f *layoutFixture) {
			_, err := f.mg.Verify(context.Background())
			var ve *migrate.VerifyError
			if !errors.As(err, &ve) || len(ve.Mismatches) != 1 || !strings.Contains(ve.Mismatches[0].Key, "o-new") {
				t.Errorf("verify without the fence = %v, want o-new missing from the new shape", err)
			}
		}},
		{"settle after the cleanup, believing cutover", func(t *testing.T, f *layoutFixture) {
			f.run(t, migrate.Cutover)
			f.order(t, "u1", "o-cut", 100, 1) // caches cutover
			f.run(t, migrate.Cleanup)
			f.settle(t, "o-cut")
			f.run(t, migrate.Done)
		}, func(t *testing.T, f *layoutFixture) {
			checkShape(t, f.raw(t, "o-cut"), migrate.Done, store.OrderPaid)
		}, func(t *testing.T, f *layoutFixture) {
			if got := avS(f.raw(t, "o-cut")["GSI1PK"]); got != "ORDERSTATUS#paid" {
				t.Errorf("without the fence, the stale settle left GSI1PK %q; want it written again after the cleanup", got)
			}
		}},
	}
	for _, tt := range tests {
		for _, fenced := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/fenced=%v", tt.name, fenced), func(t *testing.T) {
				f := newLayoutFixture(t, schema.OrdersBoth, time.Hour, !fenced || *noFence)
				f.user(t, "u1", 100_000)
				tt.stale(t, f)
				if !fenced {
					tt.lost(t, f)
					return
				}
				tt.fenced(t, f)
				if n := store.StaleWrites(f.st.Orders()); n != 1 {
					t.Errorf("%d writes cancelled by the fence, want 1", n)
				}
			})
		}
	}
}

// TestFencedOrderItemLimit: the fence takes one of a transaction's 100
// items, and the largest order (MaxOrderItems lines of as many products,
// with the record 98 items) still fits while it is on; one line more is
// refused as invalid and writes nothing, as it is without the fence.
func TestFencedOrderItemLimit(t *testing.T) {
	f := newLayoutFixture(t, schema.OrdersBoth, 0, false)
	f.user(t, "u1", 0)
	lines := func(n int) payments.NewOrder {
		in := payments.NewOrder{Currency: "EUR"}
		for i := range n {
			in.Items = append(in.Items, payments.NewItem{ProductID: fmt.Sprintf("p%02d", i), Quantity: 1, UnitPrice: eur(1)})
		}
		return in
	}
	ctx := context.Background()
	tests := []struct {
		lines int
		want  error
	}{{payments.MaxOrderItems + 1, payments.ErrInvalidOrder}, {payments.MaxOrderItems, nil}}
	for _, tt := range tests {
		in := lines(tt.lines)
		in.OrderID = fmt.Sprintf("o-%d", tt.lines)
		_, err := f.svc.CreateOrder(ctx, idem(payments.FlowCreateOrder, in.OrderID, "/users/u1/orders", in.OrderID), "u1", in)
		if !errors.Is(err, tt.want) {
			t.Errorf("%d lines of different products: %v, want %v", tt.lines, err, tt.want)
		}
		if _, err := f.st.Order(ctx, in.OrderID); (err == nil) != (tt.want == nil) {
			t.Errorf("%d lines: order read = %v", tt.lines, err)
		}
	}
}

// TestNoFenceOnceDone: in stage both, the writers fence every transaction
// until the migration is done, and none after it (done is the last phase).
func TestNoFenceOnceDone(t *testing.T) {
	f := newLayoutFixture(t, schema.OrdersBoth, 0, false)
	f.user(t, "u1", 100_000)
	f.run(t, migrate.Cleanup)
	f.order(t, "u1", "o-clean", 100, 1)
	f.settle(t, "o-clean")
	if n := f.db.fences.Load(); n != 2 {
		t.Errorf("in cleanup: %d fenced transactions, want 2 (create order and settle)", n)
	}
	f.run(t, migrate.Done)
	f.order(t, "u1", "o-done", 100, 1) // its cached cleanup is fenced, cancelled, then done
	before := f.db.fences.Load()
	f.settle(t, "o-done")
	f.order(t, "u1", "o-done-2", 100, 1)
	if n := f.db.fences.Load() - before; n != 0 {
		t.Errorf("after done: %d fenced transactions, want 0", n)
	}
	checkShape(t, f.raw(t, "o-done"), migrate.Done, store.OrderPaid)
}
