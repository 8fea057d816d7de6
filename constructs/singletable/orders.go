package singletable

import (
	"fmt"
	"strconv"

	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/store"
)

// The environment variables that carry the order index stage to every
// function that reads or writes orders: the runtime's own names, which
// httpapi.ConfigFromEnv reads.
const (
	OrderIndexesEnv = store.OrderIndexesEnv
	OrderShardsEnv  = store.OrderShardsEnv
)

// Bounds of OrderIndexes.Shards.
const (
	DefaultOrderShards = store.DefaultOrderShards
	MaxOrderShards     = 100
)

// OrderIndexes is the stage of the orders-by-status migration
// (orders-by-status-v2, runtime/migrate/orders) the table is deployed at.
// CloudFormation adds or removes one GSI per stack update, so the stages
// are separate deploys: v1 (GSI1) -> both (GSI1 and OrdersByStatus) -> v2
// (OrdersByStatus). docs/migrations.md says which deploy belongs to which
// phase. The zero value is v1 with 4 shards: today's table.
type OrderIndexes struct {
	// Stage is schema.OrdersV1, OrdersBoth or OrdersV2. Default: "" (v1).
	Stage schema.OrderIndexes
	// Shards is the number of shards N of the v2 index (1..100); it must
	// equal the migration's N. The table does not depend on it; the
	// functions get it as ORDER_SHARDS. Default: 0, which means 4.
	Shards int
}

// WithDefaults fills the zero fields: v1 and 4 shards.
func (o OrderIndexes) WithDefaults() OrderIndexes {
	if o.Stage == "" {
		o.Stage = schema.OrdersV1
	}
	if o.Shards == 0 {
		o.Shards = DefaultOrderShards
	}
	return o
}

// Validate reports an unknown stage or a shard count outside 1..100; zero
// fields take their defaults first.
func (o OrderIndexes) Validate() error {
	o = o.WithDefaults()
	if _, err := schema.ParseOrderIndexes(string(o.Stage)); err != nil {
		return fmt.Errorf("singletable: %w", err)
	}
	if o.Shards < 1 || o.Shards > MaxOrderShards {
		return fmt.Errorf("singletable: order shards %d is outside 1..%d", o.Shards, MaxOrderShards)
	}
	return nil
}

// Indexes lists the table's global secondary indexes at this stage, in
// creation order (schema.Schema{Orders: stage}.Indexes()).
func (o OrderIndexes) Indexes() []schema.Index {
	return schema.Schema{Orders: o.WithDefaults().Stage}.Indexes()
}

// IndexNames lists the names of Indexes.
func (o OrderIndexes) IndexNames() []string {
	var names []string
	for _, ix := range o.Indexes() {
		names = append(names, ix.Name)
	}
	return names
}

// Has reports whether the table has the index called name at this stage.
func (o OrderIndexes) Has(name string) bool {
	for _, n := range o.IndexNames() {
		if n == name {
			return true
		}
	}
	return false
}

// Environment is ORDER_INDEXES and ORDER_SHARDS for the functions that read
// or write orders.
func (o OrderIndexes) Environment() map[string]string {
	o = o.WithDefaults()
	return map[string]string{OrderIndexesEnv: string(o.Stage), OrderShardsEnv: strconv.Itoa(o.Shards)}
}
