package migrate

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/txn"
)

// TestFenceCost measures what the fence adds to a write transaction: one
// item. Real DynamoDB bills a transactional ConditionCheck as a write (2 WCU
// for an item under 1 KB); the embedded engine reports it as free, which
// docs/migrations.md notes.
func TestFenceCost(t *testing.T) {
	f := newFixture(t, 0)
	mg := f.migrator(ordersShard())
	mustRun(t, mg, Mirror)
	fence := NewFence(f.env.Client, f.env.Table, "orders-shard")
	st, err := fence.State(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	cost := func(fenced bool) (float64, int) {
		var tx txn.Items
		it, _ := mg.Shape(st.Phase, oldOrder("o-cost", "created"))
		tx.Add("order", types.TransactWriteItem{Put: &types.Put{TableName: aws.String(f.env.Table), Item: it}})
		if fenced {
			if err := fence.Guard(&tx, st); err != nil {
				t.Fatal(err)
			}
		}
		in := tx.Input()
		in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
		out, err := f.env.Client.TransactWriteItems(f.ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		return units(&out.ConsumedCapacity[0], -1), tx.Len()
	}
	plain, plainItems := cost(false)
	fenced, fencedItems := cost(true)
	t.Logf("write transaction: %.1f WCU, %d item(s); fenced: %.1f WCU, %d item(s)", plain, plainItems, fenced, fencedItems)
	if fencedItems != plainItems+1 || fenced < plain {
		t.Fatalf("fenced %.1f WCU / %d items vs %.1f / %d: want one more item, costing no less", fenced, fencedItems, plain, plainItems)
	}
}
