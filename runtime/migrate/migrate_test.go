package migrate

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
)

func TestShape(t *testing.T) {
	m := ordersShard()
	mg, err := New(nil, "t", m)
	if err != nil {
		t.Fatal(err)
	}
	old := oldOrder("o-1", "created")
	tests := []struct {
		phase            Phase
		wantShard, wantV bool
		wantGSI1         bool
	}{
		{None, false, false, true},
		{Mirror, true, true, true},
		{Cutover, true, true, true},
		{Cleanup, true, true, false},
		{Done, true, true, false},
	}
	for _, tt := range tests {
		t.Run(string(tt.phase), func(t *testing.T) {
			got, err := mg.Shape(tt.phase, old)
			if err != nil {
				t.Fatal(err)
			}
			_, shard := got["shard"]
			_, v := got["schemaVersion"]
			_, gsi := got["GSI1PK"]
			if shard != tt.wantShard || v != tt.wantV || gsi != tt.wantGSI1 {
				t.Errorf("shard, version, GSI1PK present = %v %v %v, want %v %v %v", shard, v, gsi, tt.wantShard, tt.wantV, tt.wantGSI1)
			}
		})
	}
	if _, ok := old["shard"]; ok {
		t.Error("Shape changed its input")
	}
}

func TestTransformChecks(t *testing.T) {
	tests := []struct {
		name      string
		transform func(Item) (Item, error)
		want      error
	}{
		{"adds an attribute", func(Item) (Item, error) { return Item{"shard": strAV("1")}, nil }, nil},
		{"repeats an old value", func(old Item) (Item, error) { return Item{"status": old["status"]}, nil }, nil},
		{"returns a key attribute", func(Item) (Item, error) { return Item{"PK": strAV("x")}, nil }, ErrInvalidTransform},
		{"returns the version", func(Item) (Item, error) { return Item{"schemaVersion": numAV(9)}, nil }, ErrInvalidTransform},
		{"changes an old attribute", func(Item) (Item, error) { return Item{"status": strAV("paid")}, nil }, ErrInvalidTransform},
		{"fails", func(Item) (Item, error) { return nil, errors.New("boom") }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := ordersShard()
			m.Transform = tt.transform
			mg, _ := New(nil, "t", m)
			_, err := mg.Shape(Mirror, oldOrder("o-1", "created"))
			var te *TransformError
			switch {
			case tt.name == "fails":
				if !errors.As(err, &te) || te.Key != "PK=ORDER#o-1 SK=ORDER#o-1" {
					t.Fatalf("err = %v, want a TransformError naming the key", err)
				}
			case !errors.Is(err, tt.want) || (tt.want != nil && !errors.As(err, &te)):
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestInvalidMigration(t *testing.T) {
	for _, m := range []Migration{{}, {Name: "a#b", From: 1, To: 2}, {Name: "x", From: 2, To: 2}, {Name: "x", From: 1, To: 2}} {
		if _, err := New(nil, "t", m); !errors.Is(err, ErrInvalidMigration) {
			t.Errorf("New(%+v) = %v, want ErrInvalidMigration", m, err)
		}
	}
}

func TestPhaseOutOfOrder(t *testing.T) {
	f := newFixture(t, 3)
	mg := f.migrator(ordersShard())
	var pe *PhaseError
	if _, err := mg.Advance(f.ctx, Verify); !errors.As(err, &pe) || pe.Current != None || pe.Requested != Verify {
		t.Fatalf("Advance(none->verify) = %v, want a PhaseError", err)
	}
	if _, err := mg.Rollback(f.ctx); !errors.As(err, &pe) {
		t.Fatalf("Rollback from none = %v, want a PhaseError", err)
	}
	if _, err := mg.Run(f.ctx, Backfill); err != nil {
		t.Fatal(err)
	}
	// Leaving backfill needs a finished backfill; Run did it, so spoil it.
	if _, err := mg.Advance(f.ctx, Cutover); !errors.As(err, &pe) {
		t.Fatalf("Advance(backfill->cutover) = %v, want a PhaseError", err)
	}
	if _, err := mg.Run(f.ctx, Done); err != nil {
		t.Fatal(err)
	}
	if _, err := mg.Rollback(f.ctx); !errors.As(err, &pe) || pe.Current != Done {
		t.Fatalf("Rollback from done = %v, want a PhaseError", err)
	}
	if _, err := mg.Run(f.ctx, Mirror); !errors.As(err, &pe) {
		t.Fatalf("Run back to mirror = %v, want a PhaseError", err)
	}
	if _, err := ParsePhase("sideways"); !errors.Is(err, ErrPhaseOrder) {
		t.Fatalf("ParsePhase = %v", err)
	}
}

func TestRunEveryPhaseAndIdempotentBackfill(t *testing.T) {
	const n = 40
	f := newFixture(t, n)
	mg := f.migrator(ordersShard())
	st, err := mg.Run(f.ctx, Cutover)
	if err != nil || st.Phase != Cutover || st.VerifiedEpoch != 3 {
		t.Fatalf("Run(cutover) = %+v, %v", st, err)
	}
	for i := 0; i < n; i++ {
		it := f.order(orderID(i))
		if display(it["shard"]) != shardOf(orderID(i)) || getN(it, "schemaVersion") != 2 || it["GSI1PK"] == nil {
			t.Fatalf("order %d after cutover = %v", i, it)
		}
	}
	// A second backfill, in a fresh epoch so that no checkpoint helps it,
	// writes nothing and changes nothing.
	before := f.scanAll()
	rep, err := mg.sweep(f.ctx, State{Epoch: 1000}, mg.backfillJob())
	if err != nil || rep.Written != 0 || rep.Matched != 0 || rep.Scanned != n+1 {
		t.Fatalf("second backfill = %+v, %v; want nothing written, %d scanned", rep, err, n+1)
	}
	if after := f.scanAll(); !reflect.DeepEqual(before, after) {
		t.Fatal("the second backfill changed the table")
	}
	if st, err = mg.Run(f.ctx, Done); err != nil || st.Phase != Done {
		t.Fatalf("Run(done) = %+v, %v", st, err)
	}
	for i := 0; i < n; i++ {
		if it := f.order(orderID(i)); it["GSI1PK"] != nil || it["GSI1SK"] != nil || it["shard"] == nil {
			t.Fatalf("order %d after cleanup = %v", i, it)
		}
	}
	if user := f.scanAll()["USER#u1|PROFILE"]; user["schemaVersion"] != nil {
		t.Fatalf("the migration touched an item it does not match: %v", user)
	}
}

func TestResumeAfterKilledBackfill(t *testing.T) {
	const n = 60
	f := newFixture(t, n)
	ctx, kill := context.WithCancel(f.ctx)
	var killedAt Report // the killed run's last total, pages cut short included
	mg := f.migrator(ordersShard(), func(o *Options) {
		o.Progress = func(p Progress) {
			killedAt = p.Report
			if p.Job == "backfill" && p.Report.Written >= 14 {
				kill()
			}
		}
	})
	if _, err := mg.Run(ctx, Verify); err == nil {
		t.Fatal("the killed run reported success")
	}
	if st, _ := mg.Status(f.ctx); st.Phase != Backfill {
		t.Fatalf("phase after the kill = %s, want backfill", st.Phase)
	}
	var resumed Report
	mg2 := f.migrator(ordersShard(), func(o *Options) {
		o.Progress = func(p Progress) {
			if p.Job == "backfill" {
				resumed = p.Report
			}
		}
	})
	st, err := mg2.Run(f.ctx, Verify)
	if err != nil || st.Phase != Verify || st.VerifiedEpoch != st.Epoch {
		t.Fatalf("resumed Run = %+v, %v", st, err)
	}
	t.Logf("killed after %+v; resumed run %+v", killedAt, resumed)
	if resumed.Scanned >= n {
		t.Fatalf("the resumed run scanned %d items, want fewer than %d (it restarted)", resumed.Scanned, n)
	}
	// A write in flight at the kill may land without its answer (at most
	// one per segment); the resumed run then finds it done.
	if all := killedAt.Written + resumed.Written; killedAt.Written >= n || all > n || all < n-3 {
		t.Fatalf("written %d before and %d after the kill, want %d in all, none twice", killedAt.Written, resumed.Written, n)
	}
}

func TestRollback(t *testing.T) {
	tests := []struct {
		from, want Phase
		check      func(*testing.T, Item)
	}{
		{Mirror, None, func(t *testing.T, it Item) {
			if it["shard"] != nil || it["schemaVersion"] != nil {
				t.Errorf("rollback from mirror left the new shape: %v", it)
			}
		}},
		{Backfill, Mirror, nil},
		{Verify, Backfill, nil},
		{Cutover, Verify, nil},
		{Cleanup, Cutover, func(t *testing.T, it Item) {
			if display(it["GSI1PK"]) != "ORDERSTATUS#created" || it["GSI1SK"] == nil || it["shard"] == nil {
				t.Errorf("rollback from cleanup did not restore the old shape: %v", it)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(string(tt.from), func(t *testing.T) {
			f := newFixture(t, 12)
			mg := f.migrator(ordersShard())
			if tt.from == Mirror {
				// Backfill a mirror, then roll the phase back to mirror first.
				mustRun(t, mg, Verify)
				for _, p := range []Phase{Backfill, Mirror} {
					if st, err := mg.Rollback(f.ctx); err != nil || st.Phase != p {
						t.Fatalf("Rollback = %+v, %v", st, err)
					}
				}
			} else {
				mustRun(t, mg, tt.from)
			}
			if tt.from == Cleanup {
				// Run(cleanup) ran the cleanup; the old shape is gone.
				if it := f.order(orderID(0)); it["GSI1PK"] != nil {
					t.Fatalf("cleanup left %v", it)
				}
			}
			st, err := mg.Rollback(f.ctx)
			if err != nil || st.Phase != tt.want {
				t.Fatalf("Rollback = %+v, %v; want phase %s", st, err, tt.want)
			}
			if tt.check != nil {
				for i := 0; i < 12; i++ {
					tt.check(t, f.order(orderID(i)))
				}
			}
			// Forward again, all the way.
			if st, err := mg.Run(f.ctx, Done); err != nil || st.Phase != Done {
				t.Fatalf("Run(done) after rollback = %+v, %v", st, err)
			}
		})
	}
}

func mustRun(t *testing.T, mg *Migrator, to Phase) {
	t.Helper()
	if st, err := mg.Run(context.Background(), to); err != nil || st.Phase != to {
		t.Fatalf("Run(%s) = %+v, %v", to, st, err)
	}
}

// TestStalePhaseWriterRace is the classic bug: a writer that still believes
// no migration runs writes an order in the old shape after the backfill
// passed it. The fence cancels that write; the writer refreshes and writes
// the mirror. Run with -args -migrate.nofence to see it fail without.
func TestStalePhaseWriterRace(t *testing.T) {
	const n = 20
	f := newFixture(t, n)
	mg := f.migrator(ordersShard())
	// The writer's cache outlives the whole migration below.
	fence := NewFence(f.env.Client, f.env.Table, "orders-shard", func(o *FenceOptions) { o.TTL = time.Hour })
	w := &orderWriter{mg: mg, fence: fence, table: f.env.Table}
	if st, err := fence.State(f.ctx); err != nil || st.Phase != None {
		t.Fatalf("writer's first state = %+v, %v", st, err)
	}
	mustRun(t, mg, Backfill)
	mustRun(t, mg, Backfill) // idempotent: runs the backfill to the end
	if _, err := mg.Advance(f.ctx, Verify); err != nil {
		t.Fatal(err)
	}
	// Now the stale writer updates an existing order and creates a new one.
	for _, it := range []Item{oldOrder(orderID(3), "paid"), oldOrder("o-new", "created")} {
		if err := w.write(f.ctx, it); err != nil {
			t.Fatal(err)
		}
	}
	_, err := mg.Verify(f.ctx)
	if err != nil {
		t.Fatalf("verify after the stale writer: %v", err)
	}
	if fence.Stale() != 1 {
		t.Errorf("fence cancelled %d writes, want 1 (then the refreshed state)", fence.Stale())
	}
	if it := f.order(orderID(3)); display(it["status"]) != "paid" || it["shard"] == nil {
		t.Errorf("order 3 = %v, want paid and sharded", it)
	}
}

func TestBackfillLeavesAConcurrentWrite(t *testing.T) {
	f := newFixture(t, 10)
	m := ordersShard()
	// The new shape copies the status, so a stale backfill write would show.
	base := m.Transform
	m.Transform = func(old Item) (Item, error) {
		add, err := base(old)
		if err == nil {
			add["statusV2"] = old["status"]
		}
		return add, err
	}
	mg := f.migrator(m)
	writer := f.migrator(m) // the live writer's view of the same migration
	fence := NewFence(f.env.Client, f.env.Table, m.Name)
	w := &orderWriter{mg: writer, fence: fence, table: f.env.Table}
	raced := false
	// Between the backfill's read of order 5 and its write, a live writer
	// in the backfill phase marks the order paid (writing both shapes).
	mg.m.Transform = func(old Item) (Item, error) {
		if getS(old, "orderId") == orderID(5) && !raced {
			raced = true
			if err := w.write(context.Background(), oldOrder(orderID(5), "paid")); err != nil {
				return nil, err
			}
		}
		return m.Transform(old)
	}
	mg.shape.m = mg.m
	mustRun(t, mg, Verify)
	if !raced {
		t.Fatal("the backfill never reached order 5")
	}
	it := f.order(orderID(5))
	if display(it["status"]) != "paid" || display(it["statusV2"]) != "paid" {
		t.Fatalf("order 5 = status %s, statusV2 %s; want paid, paid (the backfill overwrote the live write)", display(it["status"]), display(it["statusV2"]))
	}
}

func TestVerifyReportsPlantedMismatch(t *testing.T) {
	f := newFixture(t, 15)
	mg := f.migrator(ordersShard())
	mustRun(t, mg, Verify)
	bad := f.order(orderID(7))
	bad["shard"] = &types.AttributeValueMemberN{Value: "99"}
	f.put(bad)
	missing := f.order(orderID(9))
	delete(missing, "schemaVersion")
	delete(missing, "shard")
	f.put(missing)
	_, err := mg.Verify(f.ctx)
	var ve *VerifyError
	if !errors.As(err, &ve) || !errors.Is(err, ErrMismatch) {
		t.Fatalf("Verify = %v, want a VerifyError", err)
	}
	want := []Mismatch{
		{Key: "PK=ORDER#o-007 SK=ORDER#o-007", Attribute: "shard", Want: shardOf(orderID(7)), Got: "99", Reason: "differs"},
		{Key: "PK=ORDER#o-009 SK=ORDER#o-009", Reason: "not migrated (schemaVersion is <absent>, want 2)"},
	}
	if !reflect.DeepEqual(ve.Mismatches, want) || ve.Checked != 15 {
		t.Fatalf("mismatches = %+v (checked %d)\nwant %+v (checked 15)", ve.Mismatches, ve.Checked, want)
	}
	if _, err := mg.Advance(f.ctx, Cutover); !errors.Is(err, ErrPhaseOrder) {
		t.Fatalf("Advance(cutover) after a failed verify = %v, want ErrPhaseOrder", err)
	}
}

func TestLease(t *testing.T) {
	f := newFixture(t, 3)
	a := f.migrator(ordersShard(), func(o *Options) { o.Holder = "migrator-a"; o.LeaseTTL = time.Minute })
	b := f.migrator(ordersShard(), func(o *Options) { o.Holder = "migrator-b" })
	if err := a.acquire(f.ctx); err != nil {
		t.Fatal(err)
	}
	_, err := b.Run(f.ctx, Mirror)
	var held *LeaseHeldError
	if !errors.As(err, &held) || held.Holder != "migrator-a" || !strings.Contains(err.Error(), `"migrator-a"`) {
		t.Fatalf("second migrator = %v, want a LeaseHeldError naming migrator-a", err)
	}
	if st, _ := b.Status(f.ctx); st.Phase != None {
		t.Fatalf("the refused migrator moved the phase to %s", st.Phase)
	}
	// An abandoned lease expires.
	f.env.Clock.Advance(2 * time.Minute)
	mustRun(t, b, Mirror)
	// And a released one is free at once.
	mustRun(t, a, Backfill)
}

func TestTransformFailsOnOneItem(t *testing.T) {
	const n = 30
	f := newFixture(t, n)
	f.put(func() Item { it := oldOrder("o-bad", "created"); delete(it, "orderId"); return it }())
	m := ordersShard()
	mg := f.migrator(m)
	_, err := mg.Run(f.ctx, Verify)
	var ie *ItemsError
	if !errors.As(err, &ie) || len(ie.Items) != 1 || ie.Items[0].Key != "PK=ORDER#o-bad SK=ORDER#o-bad" {
		t.Fatalf("Run = %v, want one failed item ORDER#o-bad", err)
	}
	if st, _ := mg.Status(f.ctx); st.Phase != Backfill {
		t.Fatalf("phase = %s, want backfill", st.Phase)
	}
	if _, err := mg.Advance(f.ctx, Verify); !errors.Is(err, ErrPhaseOrder) {
		t.Fatalf("Advance past an unfinished backfill = %v", err)
	}
	// Fix the transform (here: a fallback for orders without an id) and resume.
	fixed := m
	fixed.Transform = func(old Item) (Item, error) {
		if getS(old, "orderId") == "" {
			return Item{"shard": &types.AttributeValueMemberN{Value: "0"}}, nil
		}
		return m.Transform(old)
	}
	var resumed Report
	mg2 := f.migrator(fixed, func(o *Options) {
		o.Progress = func(p Progress) {
			if p.Job == "backfill" {
				resumed = p.Report
			}
		}
	})
	if _, err := mg2.Run(f.ctx, Verify); err != nil {
		t.Fatal(err)
	}
	if resumed.Scanned >= n || resumed.Written < 1 {
		t.Fatalf("resumed backfill %+v: want it to start at the failed item's segment position", resumed)
	}
}

func TestBackfillBudgetAndThrottling(t *testing.T) {
	const n = 40
	f := newFixture(t, n)
	if f.env.Engine == nil {
		t.Skip("injects throttling into the embedded engine")
	}
	f.env.Engine.SetFaults(f.env.Table, ddblocal.Faults{Seed: 7, ThrottleRate: 0.2})
	var rep Report
	// Without the SDK's own retries, so that the toolkit's backoff is what
	// rides out the throttling.
	client := f.env.Engine.Client(func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 })
	mg, err := New(client, f.env.Table, ordersShard(), func(o *Options) {
		o.Holder, o.Segments, o.PageSize = "test-migrator", 3, 7
		o.Budget = 40
		o.Retry.MaxAttempts = 0
		o.Progress = func(p Progress) { rep = p.Report }
	})
	if err != nil {
		t.Fatal(err)
	}
	f.env.Engine.SetFaults(f.env.Table, ddblocal.Faults{})
	if _, err := mg.Advance(f.ctx, Mirror); err != nil {
		t.Fatal(err)
	}
	if _, err := mg.Advance(f.ctx, Backfill); err != nil {
		t.Fatal(err)
	}
	st, _ := mg.Status(f.ctx)
	f.env.Engine.SetFaults(f.env.Table, ddblocal.Faults{Seed: 7, ThrottleRate: 0.2})
	start := time.Now()
	if _, err := mg.sweep(f.ctx, st, mg.backfillJob()); err != nil {
		t.Fatalf("backfill under 20%% throttling: %v", err)
	}
	elapsed := time.Since(start)
	f.env.Engine.SetFaults(f.env.Table, ddblocal.Faults{})
	t.Logf("backfill: %+v in %s", rep, elapsed)
	if rep.Written != n || rep.Throttled == 0 {
		t.Fatalf("report %+v: want %d written and some throttled retries", rep, n)
	}
	// One second of burst, then the budget's rate.
	if min := time.Duration((rep.Consumed - 40) / 40 * float64(time.Second)); elapsed < min*9/10 {
		t.Fatalf("consumed %.1f units in %s, faster than a budget of 40/s allows (%s)", rep.Consumed, elapsed, min)
	}
}

func TestKilledRollbackResumes(t *testing.T) {
	const n = 30
	f := newFixture(t, n)
	mg := f.migrator(ordersShard())
	mustRun(t, mg, Verify)
	for _, p := range []Phase{Backfill, Mirror} {
		if st, err := mg.Rollback(f.ctx); err != nil || st.Phase != p {
			t.Fatalf("Rollback = %+v, %v", st, err)
		}
	}
	ctx, kill := context.WithCancel(f.ctx)
	killer := f.migrator(ordersShard(), func(o *Options) {
		o.Progress = func(p Progress) {
			if p.Job == "rollback-mirror" && p.Report.Written > 0 {
				kill()
			}
		}
	})
	if _, err := killer.Rollback(ctx); err == nil {
		t.Fatal("the killed rollback reported success")
	}
	st, _ := mg.Status(f.ctx)
	if st.Phase != None || st.Pending != "rollback-mirror" {
		t.Fatalf("after the kill: %+v, want none with the strip pending", st)
	}
	// Writers are already back on the old shape; the next Rollback (or Run)
	// finishes the strip before anything else.
	if st, err := mg.Rollback(f.ctx); err != nil || st.Phase != None || st.Pending != "" {
		t.Fatalf("resumed Rollback = %+v, %v", st, err)
	}
	for i := 0; i < n; i++ {
		if it := f.order(orderID(i)); it["shard"] != nil || it["schemaVersion"] != nil {
			t.Fatalf("order %d still in the new shape: %v", i, it)
		}
	}
	var pe *PhaseError
	if _, err := mg.Rollback(f.ctx); !errors.As(err, &pe) {
		t.Fatalf("Rollback from a finished none = %v, want a PhaseError", err)
	}
}
