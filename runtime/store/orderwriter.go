package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/config"
	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/migrate"
	"github.com/oncetable/oncetable/runtime/migrate/orders"
	"github.com/oncetable/oncetable/runtime/retry"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/txn"
)

// OrderLayout is how the table lays orders out for the reads by status: the
// stage of the migration orders-by-status-v2 the table is deployed at (which
// order indexes it has) and how many shards v2 spreads a status over. The
// zero value is v1: GSI1 only, no fence.
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
	// Shards is v2's shard count, 1..config.MaxOrderShards; it must equal
	// the migration's. Default: config.DefaultOrderShards.
	Shards int
	// PhaseTTL is how long the migration's phase is cached in stage both
	// (migrate.FenceOptions.TTL), measured on the store's clock. Default: 1s.
	PhaseTTL time.Duration
}

// ErrOrderLayout is what an invalid order layout unwraps to.
var ErrOrderLayout = errors.New("store: invalid order layout")

// WithDefaults fills l's zero fields; stage is the schema's stage.
func (l OrderLayout) WithDefaults(stage schema.OrderIndexes) OrderLayout {
	if l.Stage == "" {
		l.Stage = stage
	}
	if l.Stage == "" {
		l.Stage = schema.OrdersV1
	}
	if l.Shards == 0 {
		l.Shards = config.DefaultOrderShards
	}
	if l.PhaseTTL <= 0 {
		l.PhaseTTL = time.Second
	}
	return l
}

// OrderWriter is the one way orders are written and found by status, in
// the table's order layout. The store chooses it once, from the layout's
// stage: v1 and v2 write one shape and never read a phase; stage both is
// the fenced dual writer of a running migration (orderwriter_migration.go),
// which owns the phase read and the fence loop. Retiring the migration
// deletes that file. Writers are safe for concurrent use.
type OrderWriter interface {
	// Write calls do with the shape to write orders in now and returns
	// do's error. do runs one transaction and must add shape.Guard's item
	// to it. The fenced writer calls do again, with a fresh phase, when
	// the fence cancelled that transaction (which wrote nothing).
	Write(ctx context.Context, do func(OrderShape) error) error
	// ReadsShards reports whether the reads by status query the shards of
	// OrdersByStatus now (else GSI1).
	ReadsShards(ctx context.Context) (bool, error)
	// Layout is the layout, defaults filled.
	Layout() OrderLayout
}

// OrderShape is how one transaction writes order items.
type OrderShape interface {
	// New is the item of a new order given in the v1 shape (with the GSI1
	// keys) as this shape stores it.
	New(item map[string]types.AttributeValue) (map[string]types.AttributeValue, error)
	// Paid is what an update that pays an order SETs (in this order) and
	// REMOVEs besides status, paidAt and updatedAt; paid is the order as
	// the update leaves it, in the v1 shape.
	Paid(paid map[string]types.AttributeValue) (set []Attribute, remove []string, err error)
	// Guard adds the writer's fence to tx: nothing outside a migration.
	Guard(tx *txn.Items) error
}

// Attribute is one named attribute value.
type Attribute struct {
	Name  string
	Value types.AttributeValue
}

// orderDeps is what a writer is built from.
type orderDeps struct {
	db     DB
	table  string
	sch    schema.Schema
	layout OrderLayout
	retry  retry.Policy
	shaper migrate.Shaper
	clock  func() time.Time // of the phase cache
}

// orderWriters builds the writer of each stage; the fenced writer of stage
// both registers itself from its own file.
var orderWriters = map[schema.OrderIndexes]func(orderDeps) OrderWriter{
	schema.OrdersV1: func(d orderDeps) OrderWriter { return steadyOrders{d: d, phase: migrate.None} },
	schema.OrdersV2: func(d orderDeps) OrderWriter { return steadyOrders{d: d, phase: migrate.Done} },
}

// newOrderWriter returns the writer of l.Stage, or one whose every call is
// the layout's error.
func newOrderWriter(db DB, table string, sch schema.Schema, kl keys.Layout, l OrderLayout, rp retry.Policy, clock func() time.Time) OrderWriter {
	d := orderDeps{db: db, table: table, sch: sch, layout: l, retry: rp, clock: clock}
	m, err := orders.ByStatus(l.Shards, kl)
	if err == nil {
		d.shaper, err = migrate.NewShaper(m, func(mo *migrate.Options) { mo.Schema = sch })
	}
	build, ok := orderWriters[l.Stage]
	if err == nil && !ok {
		err = fmt.Errorf("order indexes %q, want one of %v", l.Stage, stages())
	}
	if err != nil {
		return badOrders{layout: l, err: fmt.Errorf("%w: %w", ErrOrderLayout, err)}
	}
	return build(d)
}

func stages() []string {
	var s []string
	for st := range orderWriters {
		s = append(s, string(st))
	}
	slices.Sort(s)
	return s
}

// steadyOrders writes one shape, outside any migration: v1 (phase none) or
// v2 (phase done).
type steadyOrders struct {
	d     orderDeps
	phase migrate.Phase
}

func (w steadyOrders) Write(_ context.Context, do func(OrderShape) error) error {
	return do(phaseShape{d: &w.d, phase: w.phase})
}

func (w steadyOrders) ReadsShards(context.Context) (bool, error) { return w.phase.ReadsNew(), nil }

func (w steadyOrders) Layout() OrderLayout { return w.d.layout }

// badOrders is an invalid layout: every call is its error.
type badOrders struct {
	layout OrderLayout
	err    error
}

func (w badOrders) Write(context.Context, func(OrderShape) error) error { return w.err }
func (w badOrders) ReadsShards(context.Context) (bool, error)           { return false, w.err }
func (w badOrders) Layout() OrderLayout                                 { return w.layout }

// phaseShape is the shape orders have in one phase of orders-by-status-v2
// (none is v1, done is v2); guard, when set, fences the transaction.
type phaseShape struct {
	d     *orderDeps
	phase migrate.Phase
	guard func(tx *txn.Items) error
}

// New: unchanged before mirror, with shard and schemaVersion from mirror to
// cutover, without GSI1PK/GSI1SK from cleanup (migrate.Migrator.Shape).
func (s phaseShape) New(item map[string]types.AttributeValue) (map[string]types.AttributeValue, error) {
	if !s.phase.WritesNew() {
		return item, nil
	}
	return s.d.shaper.Shape(s.phase, item)
}

// Paid: GSI1PK moves to the paid status while the v1 shape is written (and
// GSI1SK is put back if a rollback from cleanup has not restored it yet);
// from mirror on shard and schemaVersion are set, from cleanup on the GSI1
// keys are removed.
func (s phaseShape) Paid(paid map[string]types.AttributeValue) (set []Attribute, remove []string, err error) {
	gsi := s.d.sch.GSI1
	if s.phase.WritesOld() {
		set = append(set, Attribute{Name: gsi.PartitionKey, Value: paid[gsi.PartitionKey]})
		if sk, _ := paid[gsi.SortKey].(*types.AttributeValueMemberS); sk == nil || sk.Value == "" {
			v := &types.AttributeValueMemberS{Value: str(paid, "createdAt") + "#" + str(paid, "orderId")}
			paid[gsi.SortKey] = v
			set = append(set, Attribute{Name: gsi.SortKey, Value: v})
		}
	}
	shaped, err := s.New(paid)
	if err != nil {
		return nil, nil, err
	}
	var added []Attribute
	for name, v := range shaped {
		if _, ok := paid[name]; !ok {
			added = append(added, Attribute{Name: name, Value: v})
		}
	}
	sort.Slice(added, func(i, j int) bool { return added[i].Name < added[j].Name })
	for name := range paid {
		if _, ok := shaped[name]; !ok {
			remove = append(remove, name)
		}
	}
	slices.Sort(remove)
	return append(set, added...), remove, nil
}

func (s phaseShape) Guard(tx *txn.Items) error {
	if s.guard == nil {
		return nil
	}
	return s.guard(tx)
}
