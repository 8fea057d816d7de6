package home_test

import (
	"fmt"

	"github.com/oncetable/oncetable/runtime/home"
	"github.com/oncetable/oncetable/runtime/txn"
)

// A money transaction carries the fence as one more named item; its
// cancellation reads back as *home.NotOwnerError.
func ExampleFence() {
	lease := home.Lease{Cell: home.CellOf("alice", 64), Region: "us-east-1", Epoch: 3}
	items := &txn.Items{}
	// items.Add("ledger", …), items.Add("account", …)
	if err := home.Fence(items, "payments", lease); err != nil {
		fmt.Println(err)
		return
	}
	cc := items.List()[items.Index(home.FenceItem)].ConditionCheck
	fmt.Println(items.Names(), *cc.ConditionExpression)
	// Output:
	// [fence] (#0 = :0) AND (#1 = :1)
}
