package freeze_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/oncetable/oncetable/runtime/ddbtest"
	"github.com/oncetable/oncetable/runtime/freeze"
	"github.com/oncetable/oncetable/runtime/schema/provision"
)

// clock is a settable time source.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }
func newClock() *clock                   { return &clock{t: time.Date(2026, 12, 4, 18, 0, 0, 0, time.UTC)} }
func table(t *testing.T, db *dynamodb.Client) string {
	t.Helper()
	name := ddbtest.TableName("freeze")
	if _, err := db.CreateTable(context.Background(), provision.CreateTableInput(name)); err != nil {
		t.Fatal(err)
	}
	ddbtest.DeleteAfter(t, db, name)
	return name
}

// TestFreezeReachesEveryInstanceWithinTheCacheTTL: a freeze made through one
// switch (the operator's) is seen by another (a function's) once its cache
// of CacheTTL has expired, not before; the unfreeze likewise.
func TestFreezeReachesEveryInstanceWithinTheCacheTTL(t *testing.T) {
	ctx := context.Background()
	db, _ := ddbtest.Client(t, nil)
	name := table(t, db)
	clk := newClock()
	operator := freeze.New(db, func(o *freeze.Options) { o.Table, o.Clock = name, clk.now })
	function := freeze.New(db, func(o *freeze.Options) { o.Table, o.Clock = name, clk.now })
	if function.CacheTTL() != 5*time.Second {
		t.Fatalf("CacheTTL = %s, want the stated 5s", function.CacheTTL())
	}

	if err := function.Check(ctx, "charge"); err != nil {
		t.Fatalf("Check before any freeze = %v, want nil", err)
	}
	if err := operator.Freeze(ctx, "charge", "alice", "processor incident"); err != nil {
		t.Fatal(err)
	}
	clk.advance(4999 * time.Millisecond)
	if err := function.Check(ctx, "charge"); err != nil {
		t.Errorf("Check within the TTL of its last read = %v, want the cached nil", err)
	}
	clk.advance(time.Millisecond)
	var fe *freeze.FrozenError
	if err := function.Check(ctx, "charge"); !errors.As(err, &fe) || fe.Scope != "charge" || fe.RetryAfter != freeze.DefaultRetryAfter {
		t.Errorf("Check at the TTL = %v, want a *FrozenError of scope charge, RetryAfter 30s", err)
	}
	if err := function.Check(ctx, "debit"); err != nil {
		t.Errorf("Check(debit) with charge frozen = %v, want nil", err)
	}

	if err := operator.Unfreeze(ctx, "charge", "bob", "processor back"); err != nil {
		t.Fatal(err)
	}
	if err := function.Check(ctx, "charge"); !errors.Is(err, freeze.ErrFrozen) {
		t.Errorf("Check right after the unfreeze = %v, want still frozen (cached)", err)
	}
	clk.advance(5 * time.Second)
	if err := function.Check(ctx, "charge"); err != nil {
		t.Errorf("Check a TTL after the unfreeze = %v, want nil", err)
	}
}

// TestFreezeAllStopsEveryFlow and is audited with who, when and why.
func TestFreezeAllStopsEveryFlowAndIsAudited(t *testing.T) {
	ctx := context.Background()
	db, _ := ddbtest.Client(t, nil)
	name := table(t, db)
	clk := newClock()
	sw := freeze.New(db, func(o *freeze.Options) { o.Table, o.Clock = name, clk.now })
	if err := sw.Freeze(ctx, freeze.All, "alice", "ledger mismatch under investigation"); err != nil {
		t.Fatal(err)
	}
	for _, flow := range []string{"credit", "debit", "charge", "settle"} {
		var fe *freeze.FrozenError
		if err := sw.Check(ctx, flow); !errors.As(err, &fe) || fe.Scope != freeze.All {
			t.Errorf("Check(%s) = %v, want frozen by all", flow, err)
		}
	}
	states, err := sw.States(ctx)
	if err != nil || len(states) != 1 || states[0] != (freeze.State{Scope: "all", By: "alice", Reason: "ledger mismatch under investigation", At: clk.t}) {
		t.Errorf("States = %+v, %v", states, err)
	}
	clk.advance(time.Minute)
	if err := sw.Unfreeze(ctx, freeze.All, "bob", "fixed"); err != nil {
		t.Fatal(err)
	}
	if err := sw.Check(ctx, "charge"); err != nil {
		t.Errorf("Check after this switch's own unfreeze = %v, want nil at once", err)
	}
	history, err := sw.History(ctx)
	want := []freeze.Audit{
		{Action: "freeze", Scope: "all", By: "alice", Reason: "ledger mismatch under investigation", At: clk.t.Add(-time.Minute)},
		{Action: "unfreeze", Scope: "all", By: "bob", Reason: "fixed", At: clk.t},
	}
	if err != nil || len(history) != 2 || history[0] != want[0] || history[1] != want[1] {
		t.Errorf("History = %+v, %v\nwant %+v", history, err, want)
	}
}

// TestBadChangesWriteNothing: each refused change leaves the control and
// audit partitions as they were.
func TestBadChangesWriteNothing(t *testing.T) {
	ctx := context.Background()
	db, _ := ddbtest.Client(t, nil)
	name := table(t, db)
	clk := newClock()
	sw := freeze.New(db, func(o *freeze.Options) { o.Table, o.Clock = name, clk.now })
	if err := sw.Freeze(ctx, "settle", "alice", "first"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name              string
		change            func() error
		want              error
		scope, by, reason string
	}{
		{name: "already frozen", change: func() error { return sw.Freeze(ctx, "settle", "bob", "again") }, want: freeze.ErrAlreadyFrozen},
		{name: "not frozen", change: func() error { return sw.Unfreeze(ctx, "charge", "bob", "why not") }, want: freeze.ErrNotFrozen},
		{name: "no reason", change: func() error { return sw.Freeze(ctx, "charge", "bob", " ") }, want: freeze.ErrInvalid},
		{name: "no operator", change: func() error { return sw.Freeze(ctx, "charge", "", "incident") }, want: freeze.ErrInvalid},
		{name: "no scope", change: func() error { return sw.Freeze(ctx, "", "bob", "incident") }, want: freeze.ErrInvalid},
		{name: "scope with a key character", change: func() error { return sw.Freeze(ctx, "charge#x", "bob", "incident") }, want: freeze.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk.advance(time.Second)
			if err := tt.change(); !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
			states, _ := sw.States(ctx)
			history, _ := sw.History(ctx)
			if len(states) != 1 || states[0].Reason != "first" || len(history) != 1 {
				t.Errorf("after a refused change: states %+v, history %+v; want the first freeze only", states, history)
			}
		})
	}
}
