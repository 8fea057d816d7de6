package payments

import (
	"context"
	"fmt"
	"time"

	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/retry"
	"github.com/oncetable/oncetable/runtime/store"
	"github.com/oncetable/oncetable/runtime/txn"
)

// Flow names, used as idempotency operations, log fields and metric
// dimensions.
const (
	FlowCredit      = "credit"
	FlowDebit       = "debit"
	FlowCreateOrder = "create_order"
	FlowCharge      = "charge"
	FlowSettle      = "settle"
	FlowTransfer    = "transfer"
	FlowAuthorize   = "authorize_hold"
	FlowCapture     = "capture_hold"
	FlowVoid        = "void_hold"
	FlowRefund      = "refund"
	FlowCancel      = "cancel_order"
	FlowShip        = "ship_order"
	FlowDeliver     = "deliver_order"
)

// Backend is what the flows need from the table they run on: a client, a
// clock, a retry policy, the item builder of the table's name and schema,
// its key layout and its order writer. *store.Store is one.
type Backend interface {
	DB() store.DB
	Now() time.Time
	Retry() retry.Policy
	Items() store.Builder
	Keys() keys.Layout
	Orders() store.OrderWriter
}

// Options configures a [Service].
type Options struct {
	// IdempotencyExpiry is how long a record blocks its key. Default: 24h.
	IdempotencyExpiry time.Duration
	// OnRetry, if set, is told about every retried attempt (for metrics).
	OnRetry func(flow string, kind retry.Kind)
	// SkipLegacyRecords stops checking the place where records lived before
	// they got partitions of their own (the partition of the entity acted
	// on). Each first call then saves one ConditionCheck; set it only once
	// IdempotencyExpiry has passed since every writer runs the new layout
	// (docs/idempotency.md, "Upgrading"). The check is legacyrecords.go:
	// once that file is deleted, the option does nothing.
	SkipLegacyRecords bool
	// Fence, when set, keeps every money transaction to the home Region
	// of the users it moves money for (docs/multi-region.md): the flows
	// hand it their users, it adds its ConditionChecks to the transaction
	// and reads their cancellation back. *home.Fencer is one. Default:
	// nil, a single-Region table: transactions carry no fence.
	Fence Fencer
}

// Fencer fences a money transaction to the home Region of the users it
// moves money for.
type Fencer interface {
	// Fence adds to items the checks that this Region owns the users'
	// cells now; record is the partition of the idempotency record the
	// transaction also writes (added after items). An error (*home.NotOwnerError when another Region is the
	// home) refuses the flow before anything is sent.
	Fence(ctx context.Context, items *txn.Items, record string, users ...string) error
	// Refused reads a cancelled transaction that holds Fence's checks for
	// users: the error of a failed check, or nil.
	Refused(c *txn.CancelledError, users ...string) error
}

// Service runs the money flows on a table.
type Service struct {
	b       Backend
	items   store.Builder
	keys    keys.Layout
	records *idempotency.Table
	// onRetry may be nil.
	onRetry func(flow string, kind retry.Kind)
	// legacy is where a request's record lived before records got
	// partitions of their own, given the entity acted on ("": nowhere).
	legacy func(partition string) string
	// orders is the Backend's order writer.
	orders store.OrderWriter
	// fence is Options.Fence, nil on a single-Region table.
	fence Fencer
}

// New returns the flows on b.
func New(b Backend, opts ...func(*Options)) *Service {
	o := Options{}
	for _, f := range opts {
		f(&o)
	}
	items, layout := b.Items(), b.Keys()
	sch := items.Schema.WithDefaults()
	records := idempotency.NewTable(b.DB(), items.Table, func(io *idempotency.Options) {
		io.Attributes = idempotency.Attributes{PartitionKey: sch.PartitionKey, SortKey: sch.SortKey,
			TTL: sch.TTLAttribute, EntityType: sch.EntityType}
		io.KeyPrefix, io.Expiry, io.Clock, io.Retry = layout.IdemPrefix, o.IdempotencyExpiry, b.Now, b.Retry()
	})
	return &Service{b: b, items: items, keys: layout, records: records, onRetry: o.OnRetry, orders: b.Orders(), legacy: legacyRecords(o), fence: o.Fence}
}

// Idem identifies one idempotent request: the scope (caller and
// operation), the raw key, and the request's fingerprint.
type Idem struct {
	Scope       idempotency.Scope
	Key         string
	Fingerprint string
}

// Response is what a flow answers: the status and JSON body that were stored
// with the effect, and whether they are a replay of an earlier request.
type Response = idempotency.Response

// flow is one idempotent money flow ready to run.
type flow struct {
	name string
	idem Idem
	// users are the users whose money the flow moves: the fence's cells.
	users []string
	// partition is the entity acted on, where its record lived before
	// records got partitions of their own (Request.LegacyPartition).
	partition string
	// invocation lists the ids this call generated, for the request token.
	invocation []string
	// build returns the effect's named items and response at now; a flow
	// that writes orders writes them in shape (nil for the others).
	build func(shape store.OrderShape) idempotency.EffectFunc
	// writesOrders: the effect goes through the order writer.
	writesOrders bool
	// fail maps a failed item of the effect to an error, or returns nil.
	fail func(c *txn.CancelledError) error
}

func (s *Service) request(f flow) idempotency.Request {
	return s.idemRequest(f.idem, f.partition, f.invocation...)
}

// idemRequest is the library's request for idem; partition is the entity
// acted on, where its record lived before the upgrade (legacyrecords.go).
func (s *Service) idemRequest(idem Idem, partition string, invocation ...string) idempotency.Request {
	return idempotency.Request{Scope: idem.Scope, Key: idem.Key, Fingerprint: idem.Fingerprint, Invocation: invocation,
		LegacyPartition: s.legacy(partition)}
}

// legacyRecords gives a Service of o the place of its records before the
// upgrade: none, unless legacyrecords.go, the upgrade's check, is built in.
var legacyRecords = func(Options) func(partition string) string {
	return func(string) string { return "" }
}

// run executes one idempotent flow: the effect items plus the idempotency
// record in one TransactWriteItems, retried on conflicts and throttling. A
// failed record condition is a replay (or a reused key), answered from the
// ALL_OLD item of its cancellation reason without another request. A flow
// that writes orders runs through the order writer, which gives it the
// shape to write them in and may run it again in a new one.
func (s *Service) run(ctx context.Context, f flow) (Response, error) {
	records := s.records
	if s.onRetry != nil {
		records = records.WithRetry(store.WithRetryHook(s.b.Retry(), func(k retry.Kind, _ int) { s.onRetry(f.name, k) }))
	}
	var resp Response
	do := func(shape store.OrderShape) (err error) {
		build := f.build(shape)
		if s.fence != nil {
			build = fenced(ctx, s.fence, build, s.keys.IdemPrefix+f.idem.Scope.Hash(f.idem.Key), f.users)
		}
		if shape != nil {
			build = guarded(build, shape)
		}
		resp, err = records.Do(ctx, s.request(f), build)
		return err
	}
	var err error
	if f.writesOrders {
		err = s.orders.Write(ctx, do)
	} else {
		err = do(nil)
	}
	if c, ok := err.(*txn.CancelledError); ok && s.fence != nil {
		if refused := s.fence.Refused(c, f.users...); refused != nil {
			return Response{}, fmt.Errorf("%s: %w", f.name, refused)
		}
	}
	return f.answer(resp, err)
}

// fenced adds the fence of users to each attempt of build, so that one
// place puts it in every flow's transaction.
func fenced(ctx context.Context, fence Fencer, build idempotency.EffectFunc, record string, users []string) idempotency.EffectFunc {
	return func(now time.Time) (*idempotency.Effect, error) {
		eff, err := build(now)
		if err != nil {
			return nil, err
		}
		if len(users) == 0 {
			return nil, fmt.Errorf("payments: a fenced flow without users")
		}
		if err := fence.Fence(ctx, &eff.Items, record, users...); err != nil {
			return nil, err
		}
		return eff, nil
	}
}

// ordersUntouched is the build of a flow that writes no order.
func ordersUntouched(build idempotency.EffectFunc) func(store.OrderShape) idempotency.EffectFunc {
	return func(store.OrderShape) idempotency.EffectFunc { return build }
}

// answer maps a cancelled effect to the flow's error.
func (f flow) answer(resp Response, err error) (Response, error) {
	if c, ok := err.(*txn.CancelledError); ok {
		if mapped := f.fail(c); mapped != nil {
			return Response{}, mapped
		}
		return Response{}, fmt.Errorf("%s: transaction cancelled: %w", f.name, c)
	}
	if err != nil {
		return Response{}, err
	}
	return resp, nil
}

// guarded adds the order writer's fence to each attempt of build. With a
// fence, the effect has room for txn.MaxItems-2 items of its own (the
// record and the fence take two).
func guarded(build idempotency.EffectFunc, shape store.OrderShape) idempotency.EffectFunc {
	return func(now time.Time) (*idempotency.Effect, error) {
		eff, err := build(now)
		if err != nil {
			return nil, err
		}
		before := eff.Items.Len()
		if err := shape.Guard(&eff.Items); err != nil {
			return nil, err
		}
		if eff.Items.Len() > before && eff.Items.Len()+1 > txn.MaxItems {
			return nil, fmt.Errorf("%w: %d transaction items with the migration fence, at most %d (fewer distinct products or lines)",
				ErrInvalidOrder, eff.Items.Len()+1, txn.MaxItems)
		}
		return eff, nil
	}
}
