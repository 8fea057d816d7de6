package migrate

import (
	"context"
	"flag"
	"fmt"
	"hash/fnv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/internal/dbtest"
	"github.com/oncetable/oncetable/runtime/txn"
)

func init() {
	flag.BoolVar(&fenceDisabled, "migrate.nofence", false, "leave the phase fence out of writes (TestStalePhaseWriterRace must then fail)")
}

const shards = 4

// shardOf is the test migration's new attribute: a shard derived from the
// order id, as the reference orders-by-status migration adds.
func shardOf(orderID string) string {
	h := fnv.New32a()
	h.Write([]byte(orderID))
	return fmt.Sprint(h.Sum32() % shards)
}

// ordersShard is the test migration: orders gain a shard and lose GSI1PK/SK.
func ordersShard() Migration {
	return Migration{
		Name: "orders-shard", From: 1, To: 2,
		Match: func(it Item) bool { return getS(it, "EntityType") == "Order" },
		Transform: func(old Item) (Item, error) {
			id := getS(old, "orderId")
			if id == "" {
				return nil, fmt.Errorf("order has no orderId")
			}
			return Item{"shard": &types.AttributeValueMemberN{Value: shardOf(id)}}, nil
		},
		Retire: []string{"GSI1PK", "GSI1SK"},
		Restore: func(it Item) (Item, error) {
			return Item{"GSI1PK": strAV("ORDERSTATUS#" + getS(it, "status")), "GSI1SK": strAV(getS(it, "createdAt") + "#" + getS(it, "orderId"))}, nil
		},
	}
}

// oldOrder is an order in the v1 shape.
func oldOrder(id, status string) Item {
	created := "2026-12-01T10:00:00.000000000Z"
	return Item{"PK": strAV("ORDER#" + id), "SK": strAV("ORDER#" + id), "EntityType": strAV("Order"), "orderId": strAV(id),
		"status": strAV(status), "createdAt": strAV(created), "GSI1PK": strAV("ORDERSTATUS#" + status), "GSI1SK": strAV(created + "#" + id)}
}

func orderID(i int) string { return fmt.Sprintf("o-%03d", i) }

type fixture struct {
	t   *testing.T
	env *dbtest.Env
	ctx context.Context
}

func newFixture(t *testing.T, orders int) *fixture {
	t.Helper()
	f := &fixture{t: t, env: dbtest.New(t), ctx: context.Background()}
	for i := 0; i < orders; i++ {
		f.put(oldOrder(orderID(i), "created"))
	}
	// Items the migration must leave alone.
	f.put(Item{"PK": strAV("USER#u1"), "SK": strAV("PROFILE"), "EntityType": strAV("User")})
	return f
}

func (f *fixture) put(it Item) {
	f.t.Helper()
	if _, err := f.env.Client.PutItem(f.ctx, &dynamodb.PutItemInput{TableName: aws.String(f.env.Table), Item: it}); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) order(id string) Item {
	f.t.Helper()
	out, err := f.env.Client.GetItem(f.ctx, &dynamodb.GetItemInput{TableName: aws.String(f.env.Table), ConsistentRead: aws.Bool(true),
		Key: Item{"PK": strAV("ORDER#" + id), "SK": strAV("ORDER#" + id)}})
	if err != nil {
		f.t.Fatal(err)
	}
	return out.Item
}

func (f *fixture) migrator(m Migration, opts ...func(*Options)) *Migrator {
	f.t.Helper()
	base := func(o *Options) {
		o.Holder, o.Segments, o.PageSize, o.Budget, o.Clock = "test-migrator", 3, 7, 100000, f.env.Clock.Now
	}
	mg, err := New(f.env.Client, f.env.Table, m, append([]func(*Options){base}, opts...)...)
	if err != nil {
		f.t.Fatal(err)
	}
	return mg
}

// scanAll returns every non-internal item by key.
func (f *fixture) scanAll() map[string]Item {
	f.t.Helper()
	out := map[string]Item{}
	p := dynamodb.NewScanPaginator(f.env.Client, &dynamodb.ScanInput{TableName: aws.String(f.env.Table), ConsistentRead: aws.Bool(true)})
	for p.HasMorePages() {
		page, err := p.NextPage(f.ctx)
		if err != nil {
			f.t.Fatal(err)
		}
		for _, it := range page.Items {
			if pk := getS(it, "PK"); !strings.HasPrefix(pk, internalPrefix) {
				out[pk+"|"+getS(it, "SK")] = it
			}
		}
	}
	return out
}

// orderWriter is a live writer of orders: it writes each order whole, in
// the shape its phase asks for, under the fence.
type orderWriter struct {
	mg    *Migrator
	fence *Fence
	table string
}

func (w *orderWriter) write(ctx context.Context, old Item) error {
	return w.fence.Write(ctx, func(st State, tx *txn.Items) error {
		it, err := w.mg.Shape(st.Phase, old)
		if err != nil {
			return err
		}
		tx.Add("order", types.TransactWriteItem{Put: &types.Put{TableName: aws.String(w.table), Item: it}})
		return nil
	})
}
