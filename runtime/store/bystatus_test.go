package store_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/internal/dbtest"
	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/migrate/orders"
	"github.com/oncetable/oncetable/runtime/retry"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/store"
)

const testSecret = "0123456789abcdef0123456789abcdef"

// layoutStore is a store of env's table in the given order layout.
func layoutStore(env *dbtest.Env, stage schema.OrderIndexes, shards int) *store.Store {
	return store.New(env.Client, func(o *store.Options) {
		o.Table, o.Clock, o.CursorSecret = env.Table, env.Clock.Now, []byte(testSecret)
		o.Orders = store.OrderLayout{Stage: stage, Shards: shards}
	})
}

// putOrder writes an order of status created at created in both shapes
// (GSI1 keys, shard and schemaVersion), as the mirror phase writes it.
func putOrder(t *testing.T, env *dbtest.Env, id, status string, created time.Time, shards int) {
	t.Helper()
	k, _ := keys.Order(id)
	gpk, gsk := keys.OrderStatusGSI(status, created, id)
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	item := map[string]types.AttributeValue{"PK": s(k.PK), "SK": s(k.SK), "EntityType": s(store.TypeOrder),
		"GSI1PK": s(gpk), "GSI1SK": s(gsk), "orderId": s(id), "userId": s("u1"), "status": s(status),
		"total": &types.AttributeValueMemberN{Value: "100"}, "currency": s("EUR"), "createdAt": s(keys.Timestamp(created)),
		"shard": &types.AttributeValueMemberN{Value: fmt.Sprint(orders.Shard(id, shards))}, "schemaVersion": &types.AttributeValueMemberN{Value: "2"}}
	if _, err := env.Client.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(env.Table), Item: item}); err != nil {
		t.Fatal(err)
	}
}

// listAll pages OrdersByStatus with page size size and returns the ids in
// order, failing on a page larger than size.
func listAll(t *testing.T, st *store.Store, status string, size int) []string {
	t.Helper()
	var ids []string
	cur := ""
	for page := 0; ; page++ {
		p, err := st.OrdersByStatus(context.Background(), status, size, cur)
		if err != nil {
			t.Fatalf("page %d: %v", page, err)
		}
		if len(p.Items) > size {
			t.Fatalf("page %d has %d orders, asked for %d", page, len(p.Items), size)
		}
		for _, o := range p.Items {
			ids = append(ids, o.OrderID)
		}
		if cur = p.NextCursor; cur == "" {
			return ids
		}
		if page > 200 {
			t.Fatal("no last page")
		}
	}
}

func TestOrdersByStatusAcrossShards(t *testing.T) {
	const shards, n = 4, 60
	env := dbtest.NewFor(t, schema.Schema{Orders: schema.OrdersBoth})
	base := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	var want []string // newest first
	for i := range n {
		id := fmt.Sprintf("o-%03d", i)
		// Every third order shares its creation time with the one before,
		// so that orderId breaks the tie.
		putOrder(t, env, id, store.OrderCreated, base.Add(time.Duration(i-i%3/2)*time.Millisecond), shards)
	}
	for i := range 5 {
		putOrder(t, env, fmt.Sprintf("p-%03d", i), store.OrderPaid, base.Add(time.Duration(i)*time.Second), shards)
	}
	for i := n - 1; i >= 0; i-- {
		want = append(want, fmt.Sprintf("o-%03d", i))
	}
	v2 := layoutStore(env, schema.OrdersV2, shards)
	for _, size := range []int{1, 7, 25, 100} {
		t.Run(fmt.Sprintf("page size %d", size), func(t *testing.T) {
			got := listAll(t, v2, store.OrderCreated, size)
			if !slices.Equal(got, want) {
				t.Errorf("pages concatenated =\n%v\nwant newest first\n%v", got, want)
			}
		})
	}
	if got := listAll(t, v2, store.OrderPaid, 2); len(got) != 5 || got[0] != "p-004" {
		t.Errorf("paid orders = %v, want p-004..p-000", got)
	}
	// GSI1 (stage v1, on the same table) lists the same orders.
	if got := listAll(t, layoutStore(env, schema.OrdersV1, shards), store.OrderCreated, 7); !slices.Equal(got, want) {
		t.Errorf("GSI1 pages = %v, want %v", got, want)
	}
}

func TestOrdersByStatusCursorsRefused(t *testing.T) {
	const shards = 4
	env := dbtest.NewFor(t, schema.Schema{Orders: schema.OrdersBoth})
	base := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for i := range 6 {
		putOrder(t, env, fmt.Sprintf("o-%03d", i), store.OrderCreated, base.Add(time.Duration(i)*time.Second), shards)
	}
	ctx := context.Background()
	v1, v2 := layoutStore(env, schema.OrdersV1, shards), layoutStore(env, schema.OrdersV2, shards)
	p1, err := v1.OrdersByStatus(ctx, store.OrderCreated, 2, "")
	if err != nil || p1.NextCursor == "" {
		t.Fatalf("v1 page = %+v, %v", p1, err)
	}
	p2, err := v2.OrdersByStatus(ctx, store.OrderCreated, 2, "")
	if err != nil || p2.NextCursor == "" {
		t.Fatalf("v2 page = %+v, %v", p2, err)
	}
	tampered := []byte(p2.NextCursor)
	tampered[3] ^= 1
	tests := []struct {
		name   string
		st     *store.Store
		status string
		cur    string
		want   error
	}{
		{"v1 cursor after the cutover", v2, store.OrderCreated, p1.NextCursor, store.ErrCursorLayout},
		{"v2 cursor on GSI1 (after a rollback)", v1, store.OrderCreated, p2.NextCursor, store.ErrCursorLayout},
		{"tampered", v2, store.OrderCreated, string(tampered), store.ErrInvalidCursor},
		{"other status", v2, store.OrderPaid, p2.NextCursor, store.ErrInvalidCursor},
		{"garbage", v2, store.OrderCreated, "abc", store.ErrInvalidCursor},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := tt.st.OrdersByStatus(ctx, tt.status, 2, tt.cur)
			if !errors.Is(err, tt.want) || !errors.Is(err, store.ErrInvalidCursor) {
				t.Errorf("OrdersByStatus = %d orders, %v; want %v", len(p.Items), err, tt.want)
			}
		})
	}
	if _, err := v2.OrdersByStatus(ctx, store.OrderCreated, 2, p2.NextCursor); err != nil {
		t.Errorf("the untampered cursor: %v", err)
	}
}

// TestOrderPhaseReadThrottled: in stage both the phase is read from the
// migration's META item; a throttled read is retried, and one throttled
// every time is a retry.ErrUnavailable (a 503), never a wrong layout.
func TestOrderPhaseReadThrottled(t *testing.T) {
	env := dbtest.NewFor(t, schema.Schema{Orders: schema.OrdersBoth})
	if env.Engine == nil {
		t.Skip("injects throttling into the embedded engine")
	}
	// Without the SDK's own retries, so that the store's are the ones counted.
	client := env.Engine.Client(func(o *dynamodb.Options) { o.Retryer = aws.NopRetryer{} })
	st := store.New(client, func(o *store.Options) {
		o.Table, o.CursorSecret = env.Table, []byte(testSecret)
		o.Orders = store.OrderLayout{Stage: schema.OrdersBoth, PhaseTTL: time.Nanosecond}
		o.Retry = retry.Policy{MaxAttempts: 3, Base: time.Millisecond, Cap: 2 * time.Millisecond}
	})
	ctx := context.Background()
	env.Engine.SetFaults(env.Table, ddblocal.Faults{ThrottleRate: 1})
	if _, err := st.OrdersByStatus(ctx, store.OrderCreated, 5, ""); !errors.Is(err, retry.ErrUnavailable) {
		t.Errorf("every read throttled: %v, want retry.ErrUnavailable", err)
	}
	env.Engine.SetFaults(env.Table, ddblocal.Faults{})
	if _, err := st.OrdersByStatus(ctx, store.OrderCreated, 5, ""); err != nil {
		t.Errorf("after the throttling: %v", err)
	}
}
