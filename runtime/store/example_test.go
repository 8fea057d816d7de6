package store_test

import (
	"context"
	"fmt"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/schema/provision"
	"github.com/oncetable/oncetable/runtime/store"
)

func ExampleStore_UserView() {
	eng := ddblocal.New()
	defer eng.Close()
	ctx := context.Background()
	if err := provision.EnsureTable(ctx, eng.Client(), "example"); err != nil {
		panic(err)
	}
	st := store.New(eng.Client(), func(o *store.Options) { o.Table = "example" })
	st.CreateUser(ctx, store.NewUser{UserID: "alice", Name: "Alice", Email: "alice@example.com"})
	st.AddAddress(ctx, "alice", store.NewAddress{AddressID: "home", Line1: "1 Main St", City: "Berlin", PostalCode: "10115", Country: "DE"})

	v, err := st.UserView(ctx, "alice") // one Query: profile, addresses, recent orders
	fmt.Println(v.Name, len(v.Addresses), v.Addresses[0].City, len(v.RecentOrders), err)
	// Output: Alice 1 Berlin 0 <nil>
}
