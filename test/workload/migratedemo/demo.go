package migratedemo

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/httpapi"
	"github.com/oncetable/oncetable/runtime/retry"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/store"
	"github.com/oncetable/oncetable/test/workload"
)

// Config is a demo run. Every field has a default.
type Config struct {
	// Duration is the shortest soak: the clients run at least this long,
	// and until the migration and deploy 2 are done. Default: 60s.
	Duration time.Duration
	// Clients, Users, Seed and Phase (the fault window) are the soak's;
	// defaults 12, 24, 1 and 3s.
	Clients int
	Users   int
	Seed    uint64
	Phase   time.Duration
	// NoFaults turns the soak's faults off. Default: all on.
	NoFaults bool
	// Shards is ORDER_SHARDS, the migration's N. Default: 4.
	Shards int
	// WriteUnits and ReadUnits are each partition's limits per second,
	// scaled down from DynamoDB's 1,000 and 3,000 (by 12.5) so that this
	// machine's load reaches them. Default: 80 and 240.
	WriteUnits, ReadUnits float64
	// Before is how long the soak runs in v1 before deploy 1, so that
	// there are orders to backfill. Default: 10s.
	Before time.Duration
	// Dwell is the least time each phase lasts; a phase also lasts until
	// MinOrders orders were acknowledged in it. Defaults: 1.5s and 3.
	Dwell     time.Duration
	MinOrders int
	// Budget is the backfill's and cleanup's capacity units per second.
	// Default: 1,500.
	Budget float64
	// Out receives the demo's lines as they happen. Default: discarded.
	Out io.Writer
	// Deploy1 is the stage deploy 1 deploys. Default: both. A test deploys
	// v1 (writers without the mirror writes and the fence) to show that
	// the demo catches what that loses.
	Deploy1 schema.OrderIndexes
}

func (c Config) withDefaults() Config {
	def := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&c.Duration, 60*time.Second)
	def(&c.Phase, 3*time.Second)
	def(&c.Before, 10*time.Second)
	def(&c.Dwell, 1500*time.Millisecond)
	for _, f := range []struct {
		v *float64
		d float64
	}{{&c.WriteUnits, 80}, {&c.ReadUnits, 240}, {&c.Budget, 1500}} {
		if *f.v <= 0 {
			*f.v = f.d
		}
	}
	for _, f := range []struct {
		v *int
		d int
	}{{&c.Clients, 12}, {&c.Users, 24}, {&c.Shards, 4}, {&c.MinOrders, 3}} {
		if *f.v <= 0 {
			*f.v = f.d
		}
	}
	if c.Seed == 0 {
		c.Seed = 1
	}
	if c.Deploy1 == "" {
		c.Deploy1 = schema.OrdersBoth
	}
	if c.Out == nil {
		c.Out = io.Discard
	}
	return c
}

// Report is a finished demo.
type Report struct {
	Config Config
	// Soak is the workload's result: its violations include the index's.
	Soak *workload.Result
	// Lines are what the demo printed while it ran.
	Lines []string
	// Index is what CheckIndex found after the run.
	Index IndexReport
	// Verified is the line of the last verify that passed ("" if none).
	Verified string
}

// Failed reports whether the demo found anything wrong.
func (r *Report) Failed() bool {
	return r.Soak.During != nil || len(r.Soak.Violations) > 0 || r.Verified == "" || r.Index.Lost() > 0
}

// Run runs the demo. It returns an error only when the run could not be set
// up; what went wrong during it is in the Report (see Report.Failed).
func Run(ctx context.Context, cfg Config) (*Report, error) {
	cfg = cfg.withDefaults()
	d := &demo{cfg: cfg}
	rep := &Report{Config: cfg}
	soak := workload.Config{Duration: cfg.Duration, Clients: cfg.Clients, Users: cfg.Users, Seed: cfg.Seed,
		Phase: cfg.Phase, NoFaults: cfg.NoFaults,
		// The demo's timings (a backfill killed mid-sweep) count on the
		// clients' order rate; the soak has the hostile customers.
		Intruders:           -1,
		PartitionThroughput: ddblocal.PartitionThroughput{Enabled: true, WriteUnits: cfg.WriteUnits, ReadUnits: cfg.ReadUnits},
		API:                 []func(*httpapi.Config){Stage(schema.OrdersV1, cfg.Shards)},
		During:              d.during,
		Check: func(ctx context.Context, live *workload.Live, st *workload.State) ([]workload.Violation, error) {
			ix, v, err := CheckIndex(ctx, live.DB, live.Table, cfg.Shards, st)
			rep.Index = ix
			return v, err
		},
	}
	res, err := workload.Run(ctx, soak)
	if err != nil {
		return nil, err
	}
	rep.Soak, rep.Lines, rep.Verified = res, d.lines, d.verified
	if res.During != nil {
		d.logf("the migration failed: %v", res.During)
		rep.Lines = d.lines
	}
	return rep, nil
}

// Stage is the API's configuration for an order index stage with n shards:
// ORDER_INDEXES and ORDER_SHARDS.
func Stage(s schema.OrderIndexes, n int) func(*httpapi.Config) {
	return func(c *httpapi.Config) {
		c.Schema.Orders = s
		c.Orders = store.OrderLayout{Stage: s, Shards: n}
	}
}

// demo is one run's orchestration.
type demo struct {
	cfg      Config
	mu       sync.Mutex
	lines    []string
	live     *workload.Live
	verified string
	marked   map[string]int64 // throttle counts at the last mark
}

func (d *demo) logf(format string, a ...any) {
	at := ""
	if d.live != nil {
		at = fmt.Sprintf("%6.1fs ", d.live.Elapsed().Seconds())
	}
	line := at + fmt.Sprintf(format, a...)
	d.mu.Lock()
	d.lines = append(d.lines, line)
	d.mu.Unlock()
	fmt.Fprintln(d.cfg.Out, line)
}

// during is the migration in the middle of the soak.
func (d *demo) during(ctx context.Context, live *workload.Live) error {
	d.live = live
	if err := retry.Sleep(ctx, d.cfg.Before); err != nil {
		return err
	}
	d.logf("v1: %d orders acknowledged; partition throttles in v1: %s", live.OrdersCreated(), d.throttles())
	for _, step := range []func(context.Context) error{d.deploy1, d.migrate, d.deploy2} {
		if err := step(ctx); err != nil {
			return err
		}
	}
	d.logf("end of the migration: %d orders acknowledged in all; partition throttles in v2: %s", live.OrdersCreated(), d.throttles())
	return nil
}

// dwell lets a phase last Dwell and until MinOrders orders were
// acknowledged in it, so that the clients write orders in every phase.
func (d *demo) dwell(ctx context.Context, phase string) error {
	start, t0 := d.live.OrdersCreated(), time.Now()
	if err := retry.Sleep(ctx, d.cfg.Dwell); err != nil {
		return err
	}
	for d.live.OrdersCreated()-start < d.cfg.MinOrders {
		if time.Since(t0) > 30*time.Second {
			return fmt.Errorf("migratedemo: only %d orders acknowledged in phase %s in 30s", d.live.OrdersCreated()-start, phase)
		}
		if err := retry.Sleep(ctx, 100*time.Millisecond); err != nil {
			return err
		}
	}
	d.logf("  %s: %d orders acknowledged in %.1fs", phase, d.live.OrdersCreated()-start, time.Since(t0).Seconds())
	return nil
}

// throttles formats the engine's partition throttle counts by reason since
// the last call, and marks the counts.
func (d *demo) throttles() string {
	c := d.live.Engine.ThrottleCounts()
	var parts []string
	for _, r := range []string{ddblocal.ReasonIndexWriteKeyRange, ddblocal.ReasonTableWriteKeyRange, ddblocal.ReasonIndexReadKeyRange, ddblocal.ReasonTableReadKeyRange} {
		if n := c[r] - d.marked[r]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", r, n))
		}
	}
	d.marked = c
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}
