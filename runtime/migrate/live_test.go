package migrate

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestLiveWritersThroughEveryPhase runs the migration from none to done,
// with a rollback from verify on the way, while fenced writers keep
// rewriting existing orders and creating new ones. At the end no order is
// lost from the new shape and none keeps the old one. The writers cache the
// phase for an hour, so only the fence makes them see a transition: with
// -args -migrate.nofence they write the old shape throughout and it fails.
func TestLiveWritersThroughEveryPhase(t *testing.T) {
	const n, writers = 60, 3
	f := newFixture(t, n)
	mg := f.migrator(ordersShard(), func(o *Options) { o.PageSize = 5 })
	ctx, stop := context.WithCancel(f.ctx)
	var wg sync.WaitGroup
	t.Cleanup(func() { stop(); wg.Wait() }) // also when a check below fails
	var writes, stale atomic.Int64
	var created sync.Map
	var ready sync.WaitGroup // every writer has read the phase (none) before the migration starts
	ready.Add(writers)
	// inDone: each writer has completed a write that began after the last
	// transition (or has stopped), so the check below covers writes in done.
	var done atomic.Bool
	var inDone sync.WaitGroup
	inDone.Add(writers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var signal sync.Once
			defer signal.Do(inDone.Done)
			fence := NewFence(f.env.Client, f.env.Table, "orders-shard", func(o *FenceOptions) { o.TTL = time.Hour })
			ow := &orderWriter{mg: mg, fence: fence, table: f.env.Table}
			defer func() { stale.Add(int64(fence.Stale())) }()
			_, err := fence.State(ctx)
			ready.Done()
			if err != nil {
				t.Error(err)
				return
			}
			for i := 0; ctx.Err() == nil; i++ {
				id := orderID(rand.IntN(n))
				began := done.Load()
				if i%3 == 0 {
					id = fmt.Sprintf("o-w%d-%04d", w, i)
					created.Store(id, true)
				}
				if err := ow.write(ctx, oldOrder(id, []string{"created", "paid", "shipped"}[rand.IntN(3)])); err != nil && ctx.Err() == nil {
					t.Errorf("writer %d: %v", w, err)
					return
				}
				writes.Add(1)
				if began {
					signal.Do(inDone.Done)
				}
			}
		}()
	}
	ready.Wait()
	t0 := time.Now()
	mustRun(t, mg, Verify)
	t.Logf("to verify %s", time.Since(t0))
	if st, err := mg.Rollback(f.ctx); err != nil || st.Phase != Backfill {
		t.Fatalf("Rollback from verify = %+v, %v", st, err)
	}
	mustRun(t, mg, Cleanup)
	t.Logf("to cleanup %s", time.Since(t0))
	mustRun(t, mg, Done)
	t.Logf("to done %s", time.Since(t0))
	done.Store(true)
	inDone.Wait()
	stop()
	wg.Wait()

	ids := []string{}
	for i := 0; i < n; i++ {
		ids = append(ids, orderID(i))
	}
	created.Range(func(k, _ any) bool { ids = append(ids, k.(string)); return true })
	lost := 0
	for _, id := range ids {
		it := f.order(id)
		if it == nil {
			continue // a new order whose write the stop cut short
		}
		if display(it["shard"]) != shardOf(id) || getN(it, "schemaVersion") != 2 || it["GSI1PK"] != nil {
			lost++
			t.Errorf("order %s after done = shard %s version %s GSI1PK %s", id, display(it["shard"]), display(it["schemaVersion"]), display(it["GSI1PK"]))
		}
	}
	t.Logf("%d writes by %d writers, %d cancelled by the fence and rewritten; %d orders checked, lost: %d", writes.Load(), writers, stale.Load(), len(ids), lost)
	if writes.Load() < 20 {
		t.Fatalf("only %d live writes: the test did not overlap the migration", writes.Load())
	}
}
