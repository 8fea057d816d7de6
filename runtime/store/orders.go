package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/migrate"
	"github.com/oncetable/oncetable/runtime/migrate/orders"
	"github.com/oncetable/oncetable/runtime/retry"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/txn"
)

// The environment variables of the order layout (read by ParseOrderLayout's
// callers: httpapi.ConfigFromEnv, the local runner's flag defaults).
const (
	OrderIndexesEnv = "ORDER_INDEXES" // v1 | both | v2, default v1
	OrderShardsEnv  = "ORDER_SHARDS"  // 1..100, default 4
)

// DefaultOrderShards is v2's shard count when none is configured.
const DefaultOrderShards = 4

// OrderLayout is how the table lays orders out for the reads by status: the
// stage of the migration orders-by-status-v2 the table is deployed at (which
// order indexes it has) and how many shards v2 spreads a status over. The
// zero value is today's v1: GSI1 only, no fence.
//
//   - v1: orders carry GSI1PK/GSI1SK; reads Query GSI1.
//   - both: a migration may be running; every order-writing transaction is
//     fenced on its phase and writes the shape the phase asks for, and
//     reads follow the phase (GSI1 before cutover, OrdersByStatus from it).
//   - v2: orders carry shard and schemaVersion, no GSI1 keys; no fence;
//     reads Query OrdersByStatus on every shard and merge them.
type OrderLayout struct {
	// Stage is which order indexes the table has. Default: the store's
	// Schema.Orders, which defaults to v1.
	Stage schema.OrderIndexes
	// Shards is v2's shard count, 1..100; it must equal the migration's.
	// Default: DefaultOrderShards.
	Shards int
	// PhaseTTL is how long the migration's phase is cached in stage both
	// (migrate.FenceOptions.TTL). Default: 1s.
	PhaseTTL time.Duration
}

// ErrOrderLayout is what an invalid order layout unwraps to.
var ErrOrderLayout = errors.New("store: invalid order layout")

// ParseOrderLayout reads the values of ORDER_INDEXES and ORDER_SHARDS;
// empty strings are the defaults.
func ParseOrderLayout(indexes, shards string) (OrderLayout, error) {
	stage, err := schema.ParseOrderIndexes(indexes)
	if err != nil {
		return OrderLayout{}, fmt.Errorf("%w: %s: %w", ErrOrderLayout, OrderIndexesEnv, err)
	}
	l := OrderLayout{Stage: stage}
	if shards != "" {
		if l.Shards, err = strconv.Atoi(shards); err != nil || l.Shards < 1 || l.Shards > 100 {
			return OrderLayout{}, fmt.Errorf("%w: %s is %q, want an integer 1..100", ErrOrderLayout, OrderShardsEnv, shards)
		}
	}
	return l.WithDefaults(""), nil
}

// WithDefaults fills l's zero fields; stage is the schema's stage.
func (l OrderLayout) WithDefaults(stage schema.OrderIndexes) OrderLayout {
	if l.Stage == "" {
		l.Stage = stage
	}
	if l.Stage == "" {
		l.Stage = schema.OrdersV1
	}
	if l.Shards == 0 {
		l.Shards = DefaultOrderShards
	}
	if l.PhaseTTL <= 0 {
		l.PhaseTTL = time.Second
	}
	return l
}

// OrderPhase is the phase of orders-by-status-v2 that one write or read acts
// in: none in stage v1, done in v2, the migration's (cached) phase in both.
type OrderPhase struct {
	Phase migrate.Phase
	state migrate.State
	// fenced: the write carries the fence's ConditionCheck.
	fenced bool
}

// ReadsNew reports whether reads by status go to OrdersByStatus.
func (p OrderPhase) ReadsNew() bool { return p.Phase.ReadsNew() }

// WritesOld reports whether writers keep the GSI1 keys.
func (p OrderPhase) WritesOld() bool { return p.Phase.WritesOld() }

// Orders gives the order writers (runtime/payments) and readers the shape
// and index of the current phase. A nil *Orders is stage v1. It is safe for
// concurrent use.
type Orders struct {
	layout OrderLayout
	shaper migrate.Shaper
	fence  *migrate.Fence // stage both only
	retry  retry.Policy   // of the phase reads
	err    error          // an invalid layout, returned by every Phase
	stale  atomic.Int64
}

func newOrders(db DB, table string, sch schema.Schema, kl keys.Layout, l OrderLayout, rp retry.Policy) *Orders {
	o := &Orders{layout: l, retry: rp}
	m, err := orders.ByStatus(l.Shards, kl)
	if err == nil {
		o.shaper, err = migrate.NewShaper(m, func(mo *migrate.Options) { mo.Schema = sch })
	}
	switch l.Stage {
	case schema.OrdersV1, schema.OrdersV2:
	case schema.OrdersBoth:
		o.fence = migrate.NewFence(db, table, orders.Name, func(fo *migrate.FenceOptions) {
			fo.Schema, fo.TTL = sch, l.PhaseTTL
		})
	default:
		err = fmt.Errorf("order indexes %q, want v1, both or v2", l.Stage)
	}
	if err != nil {
		o.err = fmt.Errorf("%w: %w", ErrOrderLayout, err)
	}
	return o
}

// Layout is the order layout, defaults filled.
func (o *Orders) Layout() OrderLayout {
	if o == nil {
		return OrderLayout{}.WithDefaults("")
	}
	return o.layout
}

// Fence is the migration's fence in stage both, else nil.
func (o *Orders) Fence() *migrate.Fence {
	if o == nil {
		return nil
	}
	return o.fence
}

// Phase is the phase to act in now: none in stage v1, done in v2, and in
// stage both the migration's phase, read through the fence's cache (a
// throttled read is retried with the store's policy, then it is a
// retry.ErrUnavailable).
func (o *Orders) Phase(ctx context.Context) (OrderPhase, error) {
	switch {
	case o == nil:
		return OrderPhase{Phase: migrate.None}, nil
	case o.err != nil:
		return OrderPhase{}, o.err
	case o.fence == nil && o.layout.Stage == schema.OrdersV2:
		return OrderPhase{Phase: migrate.Done}, nil
	case o.fence == nil:
		return OrderPhase{Phase: migrate.None}, nil
	}
	var st migrate.State
	err := retry.Do(ctx, o.retry, func(int) (err error) {
		st, err = o.fence.State(ctx)
		return err
	})
	if err != nil {
		return OrderPhase{}, err
	}
	return OrderPhase{Phase: st.Phase, state: st, fenced: true}, nil
}

// Shape returns an order item in the v1 shape as phase p writes it (see
// migrate.Migrator.Shape): unchanged before mirror, with shard and
// schemaVersion from mirror to cutover, without GSI1PK/GSI1SK from cleanup.
func (o *Orders) Shape(p OrderPhase, item map[string]types.AttributeValue) (map[string]types.AttributeValue, error) {
	if o == nil || !p.Phase.WritesNew() {
		return item, nil
	}
	return o.shaper.Shape(p.Phase, item)
}

// Reshape is [Orders.Shape] for an update: given the order as the update
// leaves it in the v1 shape, the attributes to SET (those the phase adds,
// sorted by name) and to REMOVE (the retired ones it drops).
func (o *Orders) Reshape(p OrderPhase, item map[string]types.AttributeValue) (set []Attribute, remove []string, err error) {
	shaped, err := o.Shape(p, item)
	if err != nil {
		return nil, nil, err
	}
	for name, v := range shaped {
		if _, ok := item[name]; !ok {
			set = append(set, Attribute{Name: name, Value: v})
		}
	}
	sort.Slice(set, func(i, j int) bool { return set[i].Name < set[j].Name })
	for name := range item {
		if _, ok := shaped[name]; !ok {
			remove = append(remove, name)
		}
	}
	slices.Sort(remove)
	return set, remove, nil
}

// Attribute is one named attribute value.
type Attribute struct {
	Name  string
	Value types.AttributeValue
}

// Guard adds the fence's ConditionCheck (migrate.FenceItem) to tx when p
// was read through the fence (stage both) and is not done: done is the
// last phase (no rollback leaves it), so a writer that read it cannot be
// stale, and between the end of the migration and deploy 2 the writers
// pay nothing for the fence.
func (o *Orders) Guard(tx *txn.Items, p OrderPhase) error {
	if o == nil || !p.fenced || p.Phase == migrate.Done {
		return nil
	}
	return o.fence.Guard(tx, p.state)
}

// Fenced reports whether c was cancelled by the fence: the phase moved
// since it was read. It drops the cached phase, so that the next Phase
// reads it again; nothing of the transaction was written.
func (o *Orders) Fenced(c *txn.CancelledError) bool {
	if o == nil || o.fence == nil || c == nil || !c.Failed(migrate.FenceItem) {
		return false
	}
	o.fence.Invalidate()
	o.stale.Add(1)
	return true
}

// Stale counts the transactions the fence cancelled (and whose writers
// then retried in the new phase).
func (o *Orders) Stale() int64 {
	if o == nil {
		return 0
	}
	return o.stale.Load()
}
