package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/cursor"
	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/retry"
	"github.com/oncetable/oncetable/runtime/schema"
)

// DB is the part of *dynamodb.Client the runtime uses.
type DB interface {
	GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error)
	Query(ctx context.Context, in *dynamodb.QueryInput, optFns ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
	TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error)
	BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error)
	BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error)
}

var _ DB = (*dynamodb.Client)(nil)

// Sentinel errors of the model. Storage code wraps them with %w and the
// entity and id.
var (
	ErrNotFound      = errors.New("not found")
	ErrAlreadyExists = errors.New("already exists")
	ErrLimitReached  = errors.New("limit reached")
	ErrPaymentVoided = errors.New("payment voided")
	ErrInvalidCursor = cursor.ErrInvalid
)

// Options configures a [Store]. Every field has a safe default.
type Options struct {
	// Table is the table name. Default: schema.DefaultTableName.
	Table string
	// Clock returns the current time. Default: time.Now.
	Clock func() time.Time
	// Retry bounds retries of throttling and transaction conflicts.
	// Default: retry.Policy{} (5 attempts, 10ms..200ms full jitter).
	Retry retry.Policy
	// CursorSecret signs pagination cursors. Default: a key derived from
	// the table name, which makes cursors tamper-evident but forgeable by
	// anyone who knows the table name; deployments set CURSOR_SECRET.
	CursorSecret []byte
	// Schema names the key attributes and indexes. Default: schema.Default().
	Schema schema.Schema
	// Keys are the key prefixes. Default: keys.Default.
	Keys keys.Layout
	// Orders is the order layout (config.Orders). Default:
	// stage Schema.Orders (v1), 4 shards. Its stage, when set, also sets
	// Schema.Orders.
	Orders OrderLayout
}

// Store reads and writes the oncetable entities in one table.
type Store struct {
	db     DB
	table  string
	now    func() time.Time
	retry  retry.Policy
	cursor *cursor.Codec
	sch    schema.Schema
	keys   keys.Layout
	items  Builder
	orders OrderWriter
}

// New returns a store on db.
func New(db DB, opts ...func(*Options)) *Store {
	o := Options{}
	for _, f := range opts {
		f(&o)
	}
	if o.Table == "" {
		o.Table = schema.DefaultTableName
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if len(o.CursorSecret) == 0 {
		o.CursorSecret = []byte("oncetable-cursor/" + o.Table)
	}
	if o.Orders.Stage != "" {
		o.Schema.Orders = o.Orders.Stage
	}
	sch := o.Schema.WithDefaults()
	kl := o.Keys.WithDefaults()
	return &Store{db: db, table: o.Table, now: o.Clock, retry: o.Retry, cursor: cursor.New(o.CursorSecret),
		sch: sch, keys: kl, items: NewBuilder(o.Table, sch),
		orders: newOrderWriter(db, o.Table, sch, kl, o.Orders.WithDefaults(sch.Orders), o.Retry, o.Clock)}
}

// Orders is the order writer of the store's layout: how the flows write
// orders (runtime/payments) and where the reads by status find them.
func (s *Store) Orders() OrderWriter { return s.orders }

// Table is the table name.
func (s *Store) Table() string { return s.table }

// DB is the client the store uses.
func (s *Store) DB() DB { return s.db }

// Now is the store's clock.
func (s *Store) Now() time.Time { return s.now() }

// Retry is the store's retry policy.
func (s *Store) Retry() retry.Policy { return s.retry }

// Schema is the table's schema.
func (s *Store) Schema() schema.Schema { return s.sch }

// Keys is the table's key layout.
func (s *Store) Keys() keys.Layout { return s.keys }

// Items builds transaction items of the store's table and schema.
func (s *Store) Items() Builder { return s.items }

// Cursors is the store's cursor codec.
func (s *Store) Cursors() *cursor.Codec { return s.cursor }

// WithRetryHook returns a copy of p that also calls hook on each retry.
func WithRetryHook(p retry.Policy, hook func(retry.Kind, int)) retry.Policy {
	prev := p.OnRetry
	p.OnRetry = func(k retry.Kind, n int) {
		if prev != nil {
			prev(k, n)
		}
		hook(k, n)
	}
	return p
}

// Page is one page of a paginated query.
type Page[T any] struct {
	Items      []T    `json:"items"`
	NextCursor string `json:"nextCursor,omitempty"`
}

// MarshalJSON always writes nextCursor: null on the last page, so clients
// need no special case for an absent field.
func (p Page[T]) MarshalJSON() ([]byte, error) {
	var next *string
	if p.NextCursor != "" {
		next = &p.NextCursor
	}
	items := p.Items
	if items == nil {
		items = []T{}
	}
	return json.Marshal(struct {
		Items      []T     `json:"items"`
		NextCursor *string `json:"nextCursor"`
	}{items, next})
}

// Limits of a page.
const (
	DefaultPageSize = 20
	MaxPageSize     = 100
)

// conditionFailed reports whether err is a ConditionalCheckFailedException
// and returns the item that blocked the write, when one was asked for.
func conditionFailed(err error) (map[string]types.AttributeValue, bool) {
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return ccf.Item, true
	}
	return nil, false
}

func notFound(entity, id string) error { return fmt.Errorf("%s %q: %w", entity, id, ErrNotFound) }
