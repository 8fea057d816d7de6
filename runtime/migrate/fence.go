package migrate

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/txn"
)

// FenceItem names the ConditionCheck a fenced transaction carries.
const FenceItem = "migration-phase"

// fenceDisabled leaves the ConditionCheck out; only tests set it, to show
// that the stale-phase race test fails without the fence.
var fenceDisabled bool

// FenceOptions tune a [Fence]. Each zero field takes the default noted.
type FenceOptions struct {
	// Schema names the key attributes; default schema.Default().
	Schema schema.Schema
	// TTL is how long a read phase state is reused; default 1s. A longer
	// TTL costs nothing in safety, only retries after a transition.
	TTL time.Duration
	// MaxAttempts bounds the tries of Write when the phase keeps moving;
	// default 4.
	MaxAttempts int
	// Clock returns the time; default time.Now.
	Clock func() time.Time
}

// Fence gives writers and readers a migration's phase through a short
// cache, and fences write transactions on it: a transaction carries a
// ConditionCheck that the META item is still at the epoch the writer read,
// so a writer holding a stale phase is cancelled rather than writing a
// shape the migrator has moved past. It is safe for concurrent use.
type Fence struct {
	client FenceAPI
	table  string
	name   string
	opts   FenceOptions

	mu      sync.Mutex
	st      State
	fetched time.Time
	stale   int
}

// FenceAPI is the part of the DynamoDB client a [Fence] uses: it reads the
// META item and runs fenced transactions. [API] is one.
type FenceAPI interface {
	GetItem(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	TransactWriteItems(context.Context, *dynamodb.TransactWriteItemsInput, ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error)
}

// NewFence returns the fence of the migration called name on table.
func NewFence(client FenceAPI, table, name string, opts ...func(*FenceOptions)) *Fence {
	var o FenceOptions
	for _, f := range opts {
		f(&o)
	}
	o.Schema = o.Schema.WithDefaults()
	if o.TTL <= 0 {
		o.TTL = time.Second
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 4
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	return &Fence{client: client, table: table, name: name, opts: o}
}

// State returns the phase state, read again once the cached one is older
// than the TTL.
func (f *Fence) State(ctx context.Context) (State, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.opts.Clock()
	if !f.fetched.IsZero() && now.Sub(f.fetched) < f.opts.TTL {
		return f.st, nil
	}
	st, err := readState(ctx, f.client, f.table, f.opts.Schema, f.name)
	if err != nil {
		return State{}, err
	}
	f.st, f.fetched = st, now
	return st, nil
}

// Invalidate drops the cached state.
func (f *Fence) Invalidate() {
	f.mu.Lock()
	f.fetched = time.Time{}
	f.mu.Unlock()
}

// Stale counts the transactions Write saw cancelled by the fence.
func (f *Fence) Stale() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.stale
}

// Guard adds to tx, as [FenceItem], the ConditionCheck that the migration
// is still at st's epoch.
func (f *Fence) Guard(tx *txn.Items, st State) error {
	if fenceDisabled {
		return nil
	}
	e, err := expression.NewBuilder().WithCondition(epochCondition(st.Epoch)).Build()
	if err != nil {
		return err
	}
	tx.Add(FenceItem, types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: aws.String(f.table),
		Key: metaKey(f.opts.Schema, f.name), ConditionExpression: e.Condition(),
		ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values()}})
	return nil
}

// Write builds a transaction for the current phase with build, adds the
// fence and runs it. When the fence cancels it, Write reads the phase again
// and rebuilds; other cancellations come back as they are (read them with
// txn.Cancelled). build must not add more than txn.MaxItems-1 items.
func (f *Fence) Write(ctx context.Context, build func(st State, tx *txn.Items) error) error {
	for attempt := 0; attempt < f.opts.MaxAttempts; attempt++ {
		st, err := f.State(ctx)
		if err != nil {
			return err
		}
		var tx txn.Items
		if err := build(st, &tx); err != nil {
			return err
		}
		if err := f.Guard(&tx, st); err != nil {
			return err
		}
		if err := tx.Err(); err != nil {
			return err
		}
		_, err = f.client.TransactWriteItems(ctx, tx.Input())
		if c, ok := txn.Cancelled(err, &tx); ok && c.Failed(FenceItem) {
			f.mu.Lock()
			f.stale++
			f.mu.Unlock()
			f.Invalidate()
			continue
		}
		return err
	}
	return fmt.Errorf("%w: %s moved %d times during one write", ErrStalePhase, f.name, f.opts.MaxAttempts)
}
