package store

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/oncetable/oncetable/runtime/migrate"
	"github.com/oncetable/oncetable/runtime/migrate/orders"
	"github.com/oncetable/oncetable/runtime/retry"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/txn"
)

// This file is the migration orders-by-status-v2 while it runs (stage
// both). Once the table is deployed at v2, deleting it retires the
// migration from the writers.

func init() {
	orderWriters[schema.OrdersBoth] = func(d orderDeps) OrderWriter {
		return &fencedOrders{d: d, fence: migrate.NewFence(d.db, d.table, orders.Name, func(fo *migrate.FenceOptions) {
			fo.Schema, fo.TTL, fo.Clock = d.sch, d.layout.PhaseTTL, d.clock
		})}
	}
}

// maxFencedAttempts bounds the tries of a fenced write whose phase keeps
// moving.
const maxFencedAttempts = 4

// fencedOrders is the dual writer of stage both: each write reads the
// migration's phase (cached for PhaseTTL), writes the shape of that phase
// with the fence's ConditionCheck (migrate.FenceItem) in the transaction,
// and when the fence cancels it (the phase moved; nothing was written)
// reads the phase again and writes again.
type fencedOrders struct {
	d     orderDeps
	fence *migrate.Fence
	stale atomic.Int64
}

// state is the migration's phase state, read through the fence's cache; a
// throttled read is retried with the store's policy, then it is a
// retry.ErrUnavailable.
func (w *fencedOrders) state(ctx context.Context) (migrate.State, error) {
	var st migrate.State
	err := retry.Do(ctx, w.d.retry, func(int) (err error) {
		st, err = w.fence.State(ctx)
		return err
	})
	return st, err
}

func (w *fencedOrders) Write(ctx context.Context, do func(OrderShape) error) error {
	for attempt := 1; ; attempt++ {
		st, err := w.state(ctx)
		if err != nil {
			return err
		}
		sh := phaseShape{d: &w.d, phase: st.Phase}
		// Done is the last phase (no rollback leaves it): a writer that read
		// it cannot be stale, so it pays nothing for the fence.
		if st.Phase != migrate.Done {
			sh.guard = func(tx *txn.Items) error { return w.fence.Guard(tx, st) }
		}
		err = do(sh)
		var c *txn.CancelledError
		if !errors.As(err, &c) || !c.Failed(migrate.FenceItem) {
			return err
		}
		w.fence.Invalidate()
		w.stale.Add(1)
		if attempt >= maxFencedAttempts {
			return fmt.Errorf("%w: %w: the phase of %s moved %d times during one write",
				retry.ErrUnavailable, migrate.ErrStalePhase, orders.Name, attempt)
		}
	}
}

func (w *fencedOrders) ReadsShards(ctx context.Context) (bool, error) {
	st, err := w.state(ctx)
	return st.Phase.ReadsNew(), err
}

func (w *fencedOrders) Layout() OrderLayout { return w.d.layout }

// StaleWrites counts the transactions the fence of w cancelled (and whose
// writers then wrote again in the new phase): 0 for a writer without one.
func StaleWrites(w OrderWriter) int64 {
	if f, ok := w.(*fencedOrders); ok {
		return f.stale.Load()
	}
	return 0
}
