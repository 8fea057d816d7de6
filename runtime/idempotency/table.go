package idempotency

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/retry"
	"github.com/oncetable/oncetable/runtime/txn"
)

// DB is the part of a DynamoDB client the library calls; *dynamodb.Client
// is one.
type DB interface {
	GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error)
	TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error)
}

var _ DB = (*dynamodb.Client)(nil)

// RecordItem is the name of the record's item in a transaction. Effects
// must not use it for an item of their own.
const RecordItem = "idempotency-record"

// DefaultKeyPrefix starts the sort key of every record.
const DefaultKeyPrefix = keys.IdemPrefix

// Options configures a [Table]. Every field has a default.
type Options struct {
	// Attributes names the record's attributes. Default: [DefaultAttributes].
	// A zero field takes its default.
	Attributes Attributes
	// KeyPrefix starts the sort key of a record, followed by the scoped key
	// hash. Default: "IDEM#".
	KeyPrefix string
	// Expiry is how long a completed record blocks its key. Default: 24h.
	Expiry time.Duration
	// Clock returns the current time. Default: time.Now.
	Clock func() time.Time
	// Retry bounds retries of throttling and transaction conflicts.
	// Default: retry.Policy{} (5 attempts, 10ms..200ms full jitter).
	Retry retry.Policy
}

// Table keeps idempotency records in one DynamoDB table, next to the items
// the effects write. It is safe for concurrent use.
type Table struct {
	db   DB
	name string
	o    Options
}

// NewTable returns the records of table name, reached through db.
func NewTable(db DB, name string, opts ...func(*Options)) *Table {
	o := Options{}
	for _, f := range opts {
		f(&o)
	}
	o.Attributes = o.Attributes.withDefaults()
	if o.KeyPrefix == "" {
		o.KeyPrefix = DefaultKeyPrefix
	}
	if o.Expiry <= 0 {
		o.Expiry = DefaultExpiry
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	return &Table{db: db, name: name, o: o}
}

// Name is the table name.
func (t *Table) Name() string { return t.name }

// Attributes are the record's attribute names, defaults filled in.
func (t *Table) Attributes() Attributes { return t.o.Attributes }

// Now is the table's clock.
func (t *Table) Now() time.Time { return t.o.Clock() }

// WithRetry returns a copy of t that retries with p.
func (t *Table) WithRetry(p retry.Policy) *Table {
	c := *t
	c.o.Retry = p
	return &c
}

// Request identifies one idempotent call.
type Request struct {
	// Scope is what the key is unique within: the authenticated caller and
	// the operation.
	Scope Scope
	// Key is the client's idempotency key, checked with [ValidateKey].
	Key string
	// Fingerprint identifies the request's content (see [Fingerprint]). A
	// key sent again with another fingerprint fails with [ErrKeyReused].
	Fingerprint string
	// Partition is the partition key value the record is written under,
	// usually the partition of the entity the call acts on. Empty: the
	// record is its own partition (KeyPrefix + hash).
	Partition string
	// Invocation holds values this invocation generated (ids), mixed into
	// the ClientRequestToken. Optional.
	Invocation []string
}

// Response is the status and JSON body stored with the effect, and whether
// they answer an earlier call.
type Response struct {
	Status   int
	Body     json.RawMessage
	Replayed bool
}

// Effect is what one attempt writes and answers: the caller's named
// transaction items (at most 99: the record is the 100th) and the response
// stored with them.
type Effect struct {
	Items  txn.Items
	Status int
	// Body is marshalled to JSON; a json.RawMessage is stored as it is.
	Body any
}

// Plan is an effect planned for one request by an adapter's handler
// (idemhttp, idemqueue): where its record lives and what it writes.
type Plan struct {
	// Partition is Request.Partition: usually the partition the effect writes.
	Partition string
	// Invocation is Request.Invocation: ids the plan generated.
	Invocation []string
	Effect     EffectFunc
}

// EffectFunc builds the effect of one attempt at now. It is called again on
// each retried attempt, so ids and timestamps it derives from now stay
// consistent within the attempt.
type EffectFunc func(now time.Time) (*Effect, error)

// Do runs effect exactly once per key: the effect's items and the record
// commit in one TransactWriteItems (one request). A call whose key already
// has an unexpired record writes nothing and answers the stored response
// with Replayed set, after checking its fingerprint on the record that
// ReturnValuesOnConditionCheckFailure returned (still one request).
//
// Errors: [ErrKeyMissing] and [ErrKeyInvalid] for a bad key,
// [ErrKeyReused] for a key sent with another request, *[txn.CancelledError]
// when one of the effect's own items failed (read it by item name), and
// retry.ErrUnavailable when conflicts or throttling outlived the retries.
// A cancelled effect is not recorded, so a later call may succeed.
func (t *Table) Do(ctx context.Context, req Request, effect EffectFunc) (Response, error) {
	if err := ValidateKey(req.Key); err != nil {
		return Response{}, err
	}
	scopeHash := req.Scope.Hash(req.Key)
	recKey := t.recordKey(req.Partition, scopeHash)
	// A fresh nonce per invocation: two invocations never share a token, even
	// when every id they write was chosen by the client.
	invocation := append([]string{keys.NewID("inv")}, req.Invocation...)
	var resp Response
	var items txn.Items
	err := retry.Do(ctx, t.o.Retry, func(attempt int) error {
		now := t.o.Clock()
		eff, err := effect(now)
		if err != nil {
			return err
		}
		raw, err := marshalBody(eff.Body)
		if err != nil {
			return err
		}
		rec := New(recKey, req.Scope, req.Fingerprint, eff.Status, raw, now, t.o.Expiry)
		put, err := t.put(rec, now)
		if err != nil {
			return err
		}
		items = eff.Items
		items.Add(RecordItem, put)
		if err := items.Err(); err != nil {
			return err
		}
		token := ClientRequestToken(scopeHash, req.Fingerprint, append(invocation, strconv.Itoa(attempt))...)
		in := items.Input()
		in.ClientRequestToken = aws.String(token)
		if _, err := t.db.TransactWriteItems(ctx, in); err != nil {
			return err
		}
		resp = Response{Status: eff.Status, Body: raw}
		return nil
	})
	if err == nil {
		return resp, nil
	}
	c, ok := txn.Cancelled(err, &items)
	if !ok {
		return Response{}, err
	}
	if c.Failed(RecordItem) {
		return t.replayBlocked(ctx, recKey, c.Item(RecordItem), req.Fingerprint)
	}
	if errors.Is(err, retry.ErrUnavailable) {
		return Response{}, err
	}
	return Response{}, c
}

func marshalBody(body any) (json.RawMessage, error) {
	if raw, ok := body.(json.RawMessage); ok {
		return raw, nil
	}
	return json.Marshal(body)
}

func (t *Table) recordKey(partition, scopeHash string) keys.Key {
	sk := t.o.KeyPrefix + scopeHash
	if partition == "" {
		partition = sk
	}
	return keys.Key{PK: partition, SK: sk}
}

// Key is the primary key of req's record, for reading it together with
// other items (BatchGetItem).
func (t *Table) Key(req Request) map[string]types.AttributeValue {
	return t.o.Attributes.key(t.recordKey(req.Partition, req.Scope.Hash(req.Key)))
}

// Replay answers req from a stored record item: the stored response and
// true, or false when the record has expired at the table's clock (the
// call may run again), or [ErrKeyReused] when req's fingerprint differs.
func (t *Table) Replay(item map[string]types.AttributeValue, req Request) (Response, bool, error) {
	rec, err := t.o.Attributes.decode(item)
	if err != nil {
		return Response{}, false, err
	}
	if rec.Expired(t.o.Clock()) {
		return Response{}, false, nil
	}
	if err := rec.Replay(req.Fingerprint); err != nil {
		return Response{}, false, err
	}
	if rec.State == StatePending {
		return Response{}, false, &InProgressError{Until: time.Unix(rec.LockedUntil, 0)}
	}
	return Response{Status: rec.Status, Body: json.RawMessage(rec.Body), Replayed: true}, true, nil
}

// Lookup reads req's record with one strongly consistent GetItem and
// answers as [Table.Replay] does; false also when there is no record.
func (t *Table) Lookup(ctx context.Context, req Request) (Response, bool, error) {
	item, err := t.get(ctx, t.recordKey(req.Partition, req.Scope.Hash(req.Key)))
	if err != nil || len(item) == 0 {
		return Response{}, false, err
	}
	return t.Replay(item, req)
}

func (t *Table) get(ctx context.Context, k keys.Key) (map[string]types.AttributeValue, error) {
	out, err := t.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(t.name), Key: t.o.Attributes.key(k), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return nil, err
	}
	return out.Item, nil
}

// replayBlocked answers from the record that blocked the write. It arrives
// in the cancellation reason (ALL_OLD); only if an endpoint omits it is it
// read with one strongly consistent GetItem.
func (t *Table) replayBlocked(ctx context.Context, recKey keys.Key, item map[string]types.AttributeValue, fingerprint string) (Response, error) {
	if len(item) == 0 {
		var err error
		if item, err = t.get(ctx, recKey); err != nil {
			return Response{}, err
		}
	}
	var resp Response
	live := false
	if len(item) > 0 {
		var err error
		if resp, live, err = t.Replay(item, Request{Fingerprint: fingerprint}); err != nil {
			return Response{}, err
		}
	}
	if !live {
		return Response{}, &retry.UnavailableError{Kind: retry.Conflict, Attempts: 1, RetryAfter: time.Second,
			Cause: errors.New("idempotency record vanished between condition check and read")}
	}
	return resp, nil
}

// put is the transaction item that writes rec if its key is free at now,
// and returns the blocking record on failure.
func (t *Table) put(rec Record, now time.Time) (types.TransactWriteItem, error) {
	p, err := t.o.Attributes.put(t.name, rec, now)
	if err != nil {
		return types.TransactWriteItem{}, fmt.Errorf("idempotency: record: %w", err)
	}
	return types.TransactWriteItem{Put: p}, nil
}
