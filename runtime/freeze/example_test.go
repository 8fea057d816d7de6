package freeze_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/freeze"
	"github.com/oncetable/oncetable/runtime/schema/provision"
)

// An operator freezes the charge flow; a function's switch sees it at its
// next read, at most CacheTTL later, and refuses charges but not debits.
func ExampleSwitch() {
	eng := ddblocal.New()
	defer eng.Close()
	ctx := context.Background()
	db := eng.Client()
	if err := provision.EnsureTable(ctx, db, "oncetable"); err != nil {
		panic(err)
	}
	now := time.Date(2026, 12, 4, 18, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	operator := freeze.New(db, func(o *freeze.Options) { o.Clock = clock })
	function := freeze.New(db, func(o *freeze.Options) { o.Clock = clock })

	fmt.Println(function.Check(ctx, "charge"))
	if err := operator.Freeze(ctx, "charge", "alice@example.com", "card processor incident"); err != nil {
		panic(err)
	}
	fmt.Println(function.Check(ctx, "charge")) // still the read of 18:00:00
	now = now.Add(function.CacheTTL())
	err := function.Check(ctx, "charge")
	var fe *freeze.FrozenError
	fmt.Println(errors.As(err, &fe), fe.Scope, fe.RetryAfter)
	fmt.Println(err)
	fmt.Println(function.Check(ctx, "debit"))
	// Output:
	// <nil>
	// <nil>
	// true charge 30s
	// the charge flow is paused by the operators; retry later with the same Idempotency-Key
	// <nil>
}
