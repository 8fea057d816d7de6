package scalebench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/payments"
	"github.com/oncetable/oncetable/runtime/platform"
	"github.com/oncetable/oncetable/runtime/retry"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/schema/provision"
	"github.com/oncetable/oncetable/runtime/store"
	"github.com/oncetable/oncetable/test/population"
)

// Config sets up a run. Zero fields take the defaults.
type Config struct {
	// Population is the data each table is loaded with. Default:
	// population.Config{Users: 1000, Orders: 3000, OpenShare: 0.25,
	// UnprocessedShare: 0.1} (3 hot users with 5% of the activity each;
	// backlogs large enough for the charge, settle and process ramps).
	Population population.Config
	// Scale divides DynamoDB's per-partition limits (3,000 RCU, 1,000 WCU
	// per second). Default 10: 300 RCU and 100 WCU.
	Scale float64
	// Burst is how much unused capacity a partition keeps. Default 0.3s,
	// so that a step measures the sustained rate rather than a burst, and
	// yet one order's whole life cycle (about 21 WCU on its partition
	// within milliseconds, which DynamoDB's much larger buckets absorb)
	// fits the scaled-down bucket (30 WCU).
	Burst time.Duration
	// Warm and Window are each step's unmeasured warm-up and measured
	// window. Defaults 0.4s and 1.2s.
	Warm, Window time.Duration
	// StartRate and MaxRate bound the ramp, in calls per second at bench
	// scale (reads start at 4 × StartRate). Defaults 5 and 2,000.
	StartRate, MaxRate float64
	// MaxInFlight bounds the calls in flight; a call offered when all are
	// busy is dropped and the step is flagged as client-bound. Default 256.
	MaxInFlight int
	// OrderShards is the v2 layout's shard count; QueueShards the sharded
	// queue's. Defaults 4 and 8.
	OrderShards, QueueShards int
	// Only, if set, keeps the patterns whose name it reports true for.
	Only func(variant, name string) bool `json:"-"`
	// Log receives progress. Default: discarded.
	Log io.Writer `json:"-"`
}

// WithDefaults fills c's zero fields.
func (c Config) WithDefaults() Config {
	if c.Population.Users == 0 {
		c.Population.Users = 1000
	}
	if c.Population.Orders == 0 {
		c.Population.Orders = 3 * c.Population.Users
	}
	if c.Population.OpenShare == 0 {
		c.Population.OpenShare = 0.25
	}
	if c.Population.UnprocessedShare == 0 {
		c.Population.UnprocessedShare = 0.1
	}
	c.Population = c.Population.WithDefaults()
	durs := []struct {
		v *time.Duration
		d time.Duration
	}{{&c.Burst, 300 * time.Millisecond}, {&c.Warm, 400 * time.Millisecond}, {&c.Window, 1200 * time.Millisecond}}
	for _, f := range durs {
		if *f.v <= 0 {
			*f.v = f.d
		}
	}
	for _, f := range []struct {
		v *float64
		d float64
	}{{&c.Scale, 10}, {&c.StartRate, 5}, {&c.MaxRate, 2000}} {
		if *f.v <= 0 {
			*f.v = f.d
		}
	}
	for _, f := range []struct {
		v *int
		d int
	}{{&c.MaxInFlight, 256}, {&c.OrderShards, 4}, {&c.QueueShards, 8}} {
		if *f.v <= 0 {
			*f.v = f.d
		}
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	return c
}

// ReadUnits and WriteUnits are the engine's per-partition limits.
func (c Config) ReadUnits() float64  { return 3000 / c.Scale }
func (c Config) WriteUnits() float64 { return 1000 / c.Scale }

// skewClock is the engine's clock: the real time plus an offset that the
// loader moves one burst forward before each write, so that the partition
// buckets are always full while the population is loaded, and that stays
// put while the ramp runs in real time.
type skewClock struct{ offset atomic.Int64 }

func (c *skewClock) Now() time.Time { return time.Now().Add(time.Duration(c.offset.Load())) }

func (c *skewClock) advance(d time.Duration) { c.offset.Add(int64(d)) }

// Variant is one table layout the bench measures.
type Variant struct {
	// Name is v1, v2 or v2+queue.
	Name string
	// Stage is the order layout; QueueShards > 1 shards the unprocessed
	// queue.
	Stage       schema.OrderIndexes
	QueueShards int
	// PlatformShards is the shard count of the platform accounts' totals
	// (PlatformTotals). Default: platform.DefaultShards.
	PlatformShards int `json:",omitempty"`
}

// bench is one variant's engine, table, store, flows and population.
type bench struct {
	cfg     Config
	variant Variant
	eng     *ddblocal.Engine
	meter   *meter
	st      *store.Store
	svc     *payments.Service
	pop     *population.Population
	pools   *pools
	clock   *skewClock
	seq     atomic.Int64
	loaded  time.Duration
	// totaller totals the platform legs (PlatformTotals); conflicts counts
	// the transaction conflicts it retried.
	totaller  *platform.Totaller
	conflicts atomic.Int64
}

// QueueShardAttr is the number attribute of a payment that the sharded
// queue's index is keyed by, beside UnprocessedPK.
const QueueShardAttr = "queueShard"

func (v Variant) schema() schema.Schema {
	sch := schema.Default()
	sch.Orders = v.Stage
	if v.QueueShards > 1 {
		ix := sch.Unprocessed
		ix.PartitionKeys = []schema.KeyAttribute{{Name: ix.PartitionKey, Type: schema.TypeString}, {Name: QueueShardAttr, Type: schema.TypeNumber}}
		ix.SortKeys = []schema.KeyAttribute{{Name: ix.SortKey, Type: schema.TypeString}}
		ix.NonKeyAttributes = append(append([]string(nil), ix.NonKeyAttributes...), QueueShardAttr)
		sch.Unprocessed = ix
	}
	return sch
}

// open builds v's engine and table and loads the population into it.
func open(ctx context.Context, cfg Config, v Variant) (*bench, error) {
	clock := &skewClock{}
	eng, err := ddblocal.Open(func(o *ddblocal.Options) {
		o.TTLSweepInterval = -1
		o.Clock = clock.Now
		o.PartitionThroughput = ddblocal.PartitionThroughput{Enabled: true, ReadUnits: cfg.ReadUnits(), WriteUnits: cfg.WriteUnits(), Burst: cfg.Burst}
	})
	if err != nil {
		return nil, err
	}
	client := eng.Client(func(o *dynamodb.Options) { o.Retryer = aws.NopRetryer{} })
	const table = "oncetable-scale"
	sch := v.schema()
	if err := provision.EnsureTableFor(ctx, client, table, sch); err != nil {
		eng.Close()
		return nil, err
	}
	m := &meter{DB: client}
	var db store.DB = m
	if v.QueueShards > 1 {
		db = &shardedQueue{DB: m, shards: v.QueueShards, attr: sch.Unprocessed.PartitionKey}
	}
	st := store.New(db, func(o *store.Options) {
		o.Table, o.Schema = table, sch
		o.Retry = retry.Policy{MaxAttempts: 1}
		o.Orders = store.OrderLayout{Stage: v.Stage, Shards: cfg.OrderShards}
		o.CursorSecret = []byte("oncetable scale bench cursor secret, 32 bytes or more")
	})
	b := &bench{cfg: cfg, variant: v, eng: eng, meter: m, st: st, svc: payments.New(st), pop: population.Generate(cfg.Population), clock: clock}
	start := time.Now()
	if err := b.pop.Load(ctx, st, population.LoadOptions{Before: func() { clock.advance(cfg.Burst + time.Second) }}); err != nil {
		eng.Close()
		return nil, fmt.Errorf("load %s: %w", v.Name, err)
	}
	b.loaded = time.Since(start)
	if n := eng.ThrottleCounts(); len(n) > 0 {
		eng.Close()
		return nil, fmt.Errorf("load %s was throttled (%v): the clock did not move enough", v.Name, n)
	}
	b.pools = newPools(b.pop)
	b.totaller = platform.New(m, func(o *platform.Options) {
		o.Table, o.Schema, o.Shards = table, sch, v.platformShards()
		o.Logger = slog.New(slog.NewTextHandler(cfg.Log, nil))
	})
	return b, nil
}

func (b *bench) close() { b.eng.Close() }
