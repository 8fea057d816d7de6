package singletable

import (
	"fmt"

	"github.com/oncetable/oncetable/runtime/config"
	"github.com/oncetable/oncetable/runtime/schema"
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
	// Shards is the number of shards N of the v2 index
	// (1..config.MaxOrderShards); it must equal the migration's N. The
	// table does not depend on it; the functions get it as ORDER_SHARDS.
	// Default: 0, which is config.DefaultOrderShards.
	Shards int
}

// Config is the runtime's view of o (config.Orders), defaults filled.
func (o OrderIndexes) Config() config.Orders {
	return config.Orders{Stage: o.Stage, Shards: o.Shards}.WithDefaults()
}

// WithDefaults fills the zero fields (config.Orders.WithDefaults).
func (o OrderIndexes) WithDefaults() OrderIndexes {
	c := o.Config()
	return OrderIndexes{Stage: c.Stage, Shards: c.Shards}
}

// Validate reports an unknown stage or a shard count outside its limits;
// zero fields take their defaults first.
func (o OrderIndexes) Validate() error {
	if err := o.Config().Validate(); err != nil {
		return fmt.Errorf("singletable: %w", err)
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
