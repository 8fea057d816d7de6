// Package orders declares the reference migration of oncetable's orders:
// v1 keys orders by status in GSI1 with the synthetic strings
// GSI1PK=ORDERSTATUS#<status> and GSI1SK=<createdAt>#<orderId>, one index
// partition per status; v2 gives each order a shard number derived from its
// id, so that an index keyed by the order's own attributes (HASH status and
// shard, RANGE createdAt and orderId) spreads each status over N partitions.
//
// It declares the item change only (runtime/migrate runs it). The v2 index
// is schema.OrdersByStatus; the writers of its shapes (under the fence) and
// the sharded reader are runtime/store (store.OrderLayout, store.OrderWriter,
// Store.OrdersByStatus) and runtime/payments; see docs/migrations.md.
package orders

import (
	"fmt"
	"hash/fnv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/config"
	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/migrate"
)

// Name is the migration's name.
const Name = "orders-by-status-v2"

// ShardAttribute holds an order's shard in v2.
const ShardAttribute = "shard"

// Shard is the shard of an order id among n.
func Shard(orderID string, n int) int {
	h := fnv.New32a()
	h.Write([]byte(orderID))
	return int(h.Sum32() % uint32(n))
}

// ByStatus is the v1 → v2 migration of orders with n shards, on a table laid
// out by layout.
func ByStatus(n int, layout keys.Layout) (migrate.Migration, error) {
	if n < 1 || n > config.MaxOrderShards {
		return migrate.Migration{}, fmt.Errorf("%w: %d shards, want 1 to %d", migrate.ErrInvalidMigration, n, config.MaxOrderShards)
	}
	layout = layout.WithDefaults()
	return migrate.Migration{
		Name: Name, From: 1, To: 2,
		Match:     func(it migrate.Item) bool { return str(it, "EntityType") == "Order" },
		Transform: func(old migrate.Item) (migrate.Item, error) { return transform(old, n) },
		Retire:    []string{"GSI1PK", "GSI1SK"},
		Restore:   func(it migrate.Item) (migrate.Item, error) { return restore(it, layout) },
	}, nil
}

func transform(old migrate.Item, n int) (migrate.Item, error) {
	id := str(old, "orderId")
	if err := keys.ValidateID("orderId", id); err != nil {
		return nil, err
	}
	return migrate.Item{ShardAttribute: &types.AttributeValueMemberN{Value: fmt.Sprint(Shard(id, n))}}, nil
}

func restore(it migrate.Item, layout keys.Layout) (migrate.Item, error) {
	created, err := time.Parse(time.RFC3339Nano, str(it, "createdAt"))
	if err != nil {
		return nil, fmt.Errorf("createdAt: %w", err)
	}
	status, id := str(it, "status"), str(it, "orderId")
	if status == "" || id == "" {
		return nil, fmt.Errorf("order without status or orderId")
	}
	pk, sk := layout.OrderStatusGSI(status, created, id)
	return migrate.Item{"GSI1PK": &types.AttributeValueMemberS{Value: pk}, "GSI1SK": &types.AttributeValueMemberS{Value: sk}}, nil
}

func str(it migrate.Item, k string) string {
	if v, ok := it[k].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}
