package singletable_test

import (
	"fmt"

	"github.com/oncetable/oncetable/constructs/singletable"
	"github.com/oncetable/oncetable/runtime/config"
	"github.com/oncetable/oncetable/runtime/schema"
)

// The table's indexes and the functions' environment at each stage of the
// orders-by-status migration, one deploy each.
func ExampleOrderIndexes() {
	for _, o := range []singletable.OrderIndexes{
		{}, // the zero value: v1, 4 shards
		{Stage: schema.OrdersBoth, Shards: 8},
		{Stage: schema.OrdersV2, Shards: 8},
	} {
		env := o.Config().Environment()
		fmt.Println(o.IndexNames(), env[config.OrderIndexesEnv], env[config.OrderShardsEnv])
	}
	fmt.Println(singletable.OrderIndexes{Stage: "v3"}.Validate())
	fmt.Println(singletable.OrderIndexes{Shards: 101}.Validate())
	// Output:
	// [GSI1 Unprocessed Featured] v1 4
	// [GSI1 Unprocessed Featured OrdersByStatus] both 8
	// [Unprocessed Featured OrdersByStatus] v2 8
	// singletable: config: ORDER_INDEXES="v3": want v1, both or v2
	// singletable: config: ORDER_SHARDS="101": want an integer 1..100
}
