package scalebench

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/money"
	"github.com/oncetable/oncetable/runtime/payments"
	"github.com/oncetable/oncetable/runtime/platform"
	"github.com/oncetable/oncetable/runtime/store"
	"github.com/oncetable/oncetable/test/population"
)

// errEmpty is a call that found nothing to act on (its pool was empty).
var errEmpty = errors.New("scalebench: nothing left to act on")

// payment is a charged order: its payment, for settle and process.
type payment struct{ orderID, paymentID string }

// pools hold what the flows act on: orders not charged yet, charged
// orders not settled, and payments not processed. The population's
// backlogs fill them; the flows move entries along.
type pools struct {
	mu                  sync.Mutex
	open                []population.Order
	charged, processing []payment
	// entries are ledger entries not totalled yet (PlatformTotals).
	entries []platform.Entry
}

func newPools(p *population.Population) *pools {
	pl := &pools{}
	for _, o := range p.Orders {
		switch {
		case o.PaymentID == "":
			pl.open = append(pl.open, o)
		case !o.Processed:
			pl.charged = append(pl.charged, payment{o.ID, o.PaymentID})
			pl.processing = append(pl.processing, payment{o.ID, o.PaymentID})
		}
	}
	return pl
}

func pop[T any](mu *sync.Mutex, s *[]T) (T, bool) {
	mu.Lock()
	defer mu.Unlock()
	var zero T
	if len(*s) == 0 {
		return zero, false
	}
	v := (*s)[len(*s)-1]
	*s = (*s)[:len(*s)-1]
	return v, true
}

func push[T any](mu *sync.Mutex, s *[]T, v T) {
	mu.Lock()
	*s = append(*s, v)
	mu.Unlock()
}

// call is one prepared call of a pattern.
type call func(ctx context.Context) error

// pattern is one thing the bench ramps: a read access pattern or a flow.
type pattern struct {
	name, kind string
	// hot names the key the design expects to throttle first.
	hot string
	// draw prepares one call with its targets drawn from r.
	draw func(r *rand.Rand) call
	// pool, if set, is the pool the calls consume: it is topped up before
	// each step (see bench.refill).
	pool    *[]payment
	open    bool // the calls consume pools.open
	entries bool // the calls consume pools.entries
}

func (b *bench) user(r *rand.Rand) string { return b.pop.Users[b.pop.UserActivity.Draw(r)] }

// order draws an order: a user by activity, then one of that user's orders.
func (b *bench) order(r *rand.Rand) string {
	for {
		if os := b.pop.ByUser[b.user(r)]; len(os) > 0 {
			return b.pop.Orders[os[r.IntN(len(os))]].ID
		}
	}
}

func (b *bench) amount(m int64) money.Amount {
	return money.Amount{Minor: m, Currency: b.pop.Config.Currency}
}

func (b *bench) key(prefix string) string { return fmt.Sprintf("%s-%d", prefix, b.seq.Add(1)) }

// patterns lists what the bench ramps on b's variant.
func (b *bench) patterns() []pattern {
	var out []pattern
	for _, p := range b.st.Patterns() {
		p := p
		if b.variant.QueueShards > 1 && p.Name == "UnprocessedPayments" {
			continue // read through the shards below
		}
		out = append(out, pattern{name: p.Name, kind: "read", hot: b.readHot(p), draw: func(r *rand.Rand) call {
			a := store.PatternArgs{UserID: b.user(r), ProductID: b.pop.Products[b.pop.ProductActivity.Draw(r)].ID, Status: store.OrderCreated}
			if p.Name == "Order" {
				a.OrderID = b.order(r)
			}
			return func(ctx context.Context) error { return p.Run(ctx, b.st, a) }
		}})
	}
	if b.variant.QueueShards > 1 {
		out = append(out, pattern{name: "UnprocessedPayments", kind: "read", hot: fmt.Sprintf("%d Unprocessed partitions", b.variant.QueueShards),
			draw: func(*rand.Rand) call { return b.readQueueShards }})
	}
	return append(out, b.flows()...)
}

func (b *bench) readHot(p store.Pattern) string {
	switch p.Name {
	case "OrdersByStatus", "FeaturedProducts", "UnprocessedPayments":
		return p.Index + " " + p.KeyCondition
	case "Product":
		return "the most popular product's partition"
	case "Order":
		return "none (an order's partition is read by its user only)"
	}
	return "the hottest user's partition"
}

// FlowNames are the flows the bench ramps besides the read patterns, in
// order.
var FlowNames = []string{"Credit", "Debit", "CreateOrder", "Charge", "Settle", "ProcessPayment", "OrderLifecycle", PlatformTotals}

// flows are the money flows and the writes around them (FlowNames).
func (b *bench) flows() []pattern {
	svc, st := b.svc, b.st
	pl := b.pools
	return []pattern{
		{name: "Credit", kind: "flow", hot: "the hottest user's partition", draw: func(r *rand.Rand) call {
			u := b.user(r)
			return func(ctx context.Context) error {
				_, err := svc.Credit(ctx, population.Idem(payments.FlowCredit, b.key("credit")), u, b.amount(100))
				return err
			}
		}},
		{name: "Debit", kind: "flow", hot: "the hottest user's partition", draw: func(r *rand.Rand) call {
			u := b.user(r)
			return func(ctx context.Context) error {
				_, err := svc.Debit(ctx, population.Idem(payments.FlowDebit, b.key("debit")), u, b.amount(100))
				return err
			}
		}},
		{name: "CreateOrder", kind: "flow", hot: "GSI1 ORDERSTATUS#created (v1), the hottest user or product", draw: func(r *rand.Rand) call {
			u, o := b.user(r), b.newOrder(r)
			return func(ctx context.Context) error {
				_, err := svc.CreateOrder(ctx, population.Idem(payments.FlowCreateOrder, o.OrderID), u, o)
				if err == nil {
					push(&pl.mu, &pl.open, population.Order{ID: o.OrderID, UserID: u, Total: orderTotal(o)})
				}
				return err
			}
		}},
		{name: "Charge", kind: "flow", hot: "Unprocessed PAYMENT#UNPROCESSED", open: true, draw: func(*rand.Rand) call {
			return func(ctx context.Context) error {
				o, ok := pop(&pl.mu, &pl.open)
				if !ok {
					return errEmpty
				}
				id, err := population.Charge(ctx, svc, o.ID, b.amount(o.Total), b.key("charge"))
				if err != nil {
					return err
				}
				push(&pl.mu, &pl.charged, payment{o.ID, id})
				push(&pl.mu, &pl.processing, payment{o.ID, id})
				return nil
			}
		}},
		{name: "Settle", kind: "flow", hot: "GSI1 ORDERSTATUS#created and #paid (v1), the hottest user", pool: &pl.charged, draw: func(*rand.Rand) call {
			return func(ctx context.Context) error {
				p, ok := pop(&pl.mu, &pl.charged)
				if !ok {
					return errEmpty
				}
				_, err := svc.Settle(ctx, population.Idem(payments.FlowSettle, b.key("settle")), p.orderID, nil)
				return err
			}
		}},
		{name: "ProcessPayment", kind: "flow", hot: "Unprocessed PAYMENT#UNPROCESSED", pool: &pl.processing, draw: func(*rand.Rand) call {
			return func(ctx context.Context) error {
				p, ok := pop(&pl.mu, &pl.processing)
				if !ok {
					return errEmpty
				}
				_, err := st.ProcessPayment(ctx, p.orderID, p.paymentID)
				return err
			}
		}},
		{name: "OrderLifecycle", kind: "flow", hot: "GSI1 ORDERSTATUS#created (v1), Unprocessed PAYMENT#UNPROCESSED (v2)", draw: func(r *rand.Rand) call {
			u, o := b.user(r), b.newOrder(r)
			return func(ctx context.Context) error { return b.lifecycle(ctx, u, o) }
		}},
		b.totalsPattern(),
	}
}

// refill tops up the pool p consumes to n entries before a step, outside
// the measurement: it creates (and for settle and process, charges) new
// orders of users drawn by activity, moving the engine's clock one burst
// forward before each write as the loader does, so the top-up neither is
// throttled nor leaves the buckets drained.
func (b *bench) refill(ctx context.Context, p pattern, n int, r *rand.Rand) error {
	pl := b.pools
	size := func() int {
		pl.mu.Lock()
		defer pl.mu.Unlock()
		if p.open {
			return len(pl.open)
		}
		return len(*p.pool)
	}
	if p.entries {
		return b.refillEntries(ctx, n, r)
	}
	if !p.open && p.pool == nil {
		return nil
	}
	tick := func() { b.clock.advance(b.cfg.Burst + time.Second) }
	for size() < n {
		u, o := b.user(r), b.newOrder(r)
		tick()
		if _, err := b.svc.CreateOrder(ctx, population.Idem(payments.FlowCreateOrder, o.OrderID), u, o); err != nil {
			return fmt.Errorf("refill: %w", err)
		}
		if p.open {
			push(&pl.mu, &pl.open, population.Order{ID: o.OrderID, UserID: u, Total: orderTotal(o)})
			continue
		}
		tick()
		id, err := population.Charge(ctx, b.svc, o.OrderID, b.amount(orderTotal(o)), "refill-"+o.OrderID)
		if err != nil {
			return fmt.Errorf("refill: %w", err)
		}
		push(&pl.mu, p.pool, payment{o.OrderID, id})
	}
	tick()
	return nil
}

// lifecycle is one order's whole write path: create, charge, settle,
// process.
func (b *bench) lifecycle(ctx context.Context, user string, o payments.NewOrder) error {
	if _, err := b.svc.CreateOrder(ctx, population.Idem(payments.FlowCreateOrder, o.OrderID), user, o); err != nil {
		return err
	}
	id, err := population.Charge(ctx, b.svc, o.OrderID, b.amount(orderTotal(o)), "charge-"+o.OrderID)
	if err != nil {
		return err
	}
	if _, err := b.svc.Settle(ctx, population.Idem(payments.FlowSettle, "settle-"+o.OrderID), o.OrderID, nil); err != nil {
		return err
	}
	_, err = b.st.ProcessPayment(ctx, o.OrderID, id)
	return err
}

// newOrder draws a new order's lines from the products' activity.
func (b *bench) newOrder(r *rand.Rand) payments.NewOrder {
	o := payments.NewOrder{OrderID: "b" + strconv.FormatInt(b.seq.Add(1), 10), Currency: b.pop.Config.Currency}
	for range 1 + r.IntN(b.pop.Config.MaxLines) {
		pr := b.pop.Products[b.pop.ProductActivity.Draw(r)]
		o.Items = append(o.Items, payments.NewItem{ProductID: pr.ID, Quantity: 1, UnitPrice: b.amount(pr.Price)})
	}
	return o
}

func orderTotal(o payments.NewOrder) int64 {
	var t int64
	for _, it := range o.Items {
		t += it.UnitPrice.Minor * it.Quantity
	}
	return t
}

// readQueueShards is the sharded queue's read: one Query per shard
// (UnprocessedPK = PAYMENT#UNPROCESSED AND queueShard = n, ascending,
// Limit 21) in parallel, as a merged page of 20 would read them.
func (b *bench) readQueueShards(ctx context.Context) error {
	ix := b.st.Schema().Unprocessed
	errs := make([]error, b.variant.QueueShards)
	var wg sync.WaitGroup
	for n := range b.variant.QueueShards {
		wg.Add(1)
		go func() {
			defer wg.Done()
			kc := expression.Key(ix.PartitionKey).Equal(expression.Value(keys.UnprocessedPartition)).
				And(expression.Key(QueueShardAttr).Equal(expression.Value(n)))
			e, err := expression.NewBuilder().WithKeyCondition(kc).Build()
			if err == nil {
				_, err = b.st.DB().Query(ctx, &dynamodb.QueryInput{TableName: aws.String(b.st.Table()), IndexName: aws.String(ix.Name),
					KeyConditionExpression: e.KeyCondition(), ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
					Limit: aws.Int32(store.DefaultPageSize + 1)})
			}
			errs[n] = err
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
