package reconcile_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/money"
	"github.com/oncetable/oncetable/runtime/payments"
	"github.com/oncetable/oncetable/runtime/reconcile"
	"github.com/oncetable/oncetable/runtime/schema/provision"
	"github.com/oncetable/oncetable/runtime/store"
	"github.com/oncetable/oncetable/test/population"
)

// A scheduled function calls Run once per invocation; the invocation that
// ends a pass returns its verdict.
func ExampleReconciler_Run() {
	eng := ddblocal.New()
	defer eng.Close()
	ctx := context.Background()
	db := eng.Client()
	if err := provision.EnsureTable(ctx, db, "oncetable"); err != nil {
		panic(err)
	}
	st := store.New(db, func(o *store.Options) { o.Table = "oncetable" })
	if _, err := st.CreateUser(ctx, store.NewUser{UserID: "alice", Name: "Alice", Email: "alice@example.com"}); err != nil {
		panic(err)
	}
	if _, err := payments.New(st).Credit(ctx, population.Idem(payments.FlowCredit, "k-1"), "alice", money.Amount{Minor: 5000, Currency: "EUR"}); err != nil {
		panic(err)
	}
	r, err := reconcile.New(db, func(o *reconcile.Options) {
		o.Table, o.Log = "oncetable", slog.New(slog.NewJSONHandler(io.Discard, nil))
	})
	if err != nil {
		panic(err)
	}
	out, err := r.Run(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println(out.Verdict.Pass, out.Verdict.Found, out.Verdict.Confirmed)
	st2, _ := r.Status(ctx)
	fmt.Println(st2.Pass, st2.Last.Pass)
	// Output:
	// 1 0 0
	// 2 1
}
