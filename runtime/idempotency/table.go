package idempotency

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

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

// legacyItem is the name of the ConditionCheck on a record's former place
// (Request.LegacyPartition).
const legacyItem = "idempotency-legacy-record"

// DefaultKeyPrefix starts both keys of every record.
const DefaultKeyPrefix = "IDEM#"

// defaultWindow is the in-progress window of the external mode when the
// context has no deadline and none is configured.
const defaultWindow = time.Minute

// Options configures a [Table]. Every field has a default.
type Options struct {
	// Attributes names the record's attributes. Default: oncetable's names (PK, SK, expiresAt, ...; see each field of Attributes).
	// A zero field takes its default. PartitionKey and SortKey must be the
	// table's own key names ([Table.Check] compares them).
	Attributes Attributes
	// KeyPrefix starts both keys of a record (partition and sort key are
	// KeyPrefix + the scoped key hash). Default: "IDEM#".
	KeyPrefix string
	// Expiry is how long a completed record blocks its key. Default: 24h.
	Expiry time.Duration
	// Window is the external mode's in-progress window when the context has
	// no deadline. With a deadline (a Lambda's remaining time, an HTTP
	// server's timeout) the window ends at the deadline. Default: one minute.
	Window time.Duration
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
	if o.Window <= 0 {
		o.Window = defaultWindow
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

// Request identifies one idempotent call. Its identity is (Scope.Caller,
// Scope.Operation, Key): the same key with the same Fingerprint never runs
// twice, and with another Fingerprint it is [ErrKeyReused]. Where the record
// lives follows from that identity alone.
type Request struct {
	// Scope is what the key is unique within: the authenticated caller and
	// the operation. Both are required.
	Scope Scope
	// Key is the idempotency key: any non-empty string (it is hashed).
	Key string
	// Fingerprint identifies the request's content (see [Fingerprint] and
	// [FingerprintOf]). Required.
	Fingerprint string
	// LegacyPartition is for upgrades only: the partition key value under
	// which a version of this library before records got a partition of
	// their own wrote this key's record (the old Request.Partition). When
	// set, a first call also checks that place (one ConditionCheck in the
	// same transaction, or one extra read), so a key in flight across the
	// upgrade replays instead of running again. Leave it empty on a table
	// that never had such records, and stop setting it one Expiry after
	// the upgrade.
	LegacyPartition string
	// Invocation holds values this invocation generated (ids), mixed into
	// the ClientRequestToken. Optional.
	Invocation []string
}

// Response is the status, headers and body stored with the effect, and
// whether they answer an earlier call.
type Response struct {
	Status int
	// Header holds the stored headers (Content-Type, Location, ...); nil
	// when none were kept.
	Header http.Header
	// Body is the stored body, byte for byte: JSON unless Header's
	// Content-Type says otherwise.
	Body     json.RawMessage
	Replayed bool
}

// Effect is what one attempt writes and answers. In the transactional mode
// it holds the caller's named transaction items (at most 99: the record is
// the 100th, one more with Request.LegacyPartition); in the external mode
// Items must be empty.
type Effect struct {
	Items  txn.Items
	Status int
	// Header is stored and replayed with the body (Content-Type, Location).
	Header http.Header
	// Body is marshalled to JSON; a json.RawMessage or a []byte is stored
	// as it is.
	Body any
	// Release, in the external mode only, answers without storing: the key
	// is given back at once, for a request rejected before its effect
	// started (a validation failure), so that a corrected retry with the
	// same key runs.
	Release bool
}

// response is the stored form of the effect's answer.
func (e *Effect) response() (Response, error) {
	raw, err := marshalBody(e.Body)
	if err != nil {
		return Response{}, err
	}
	return Response{Status: e.Status, Header: e.Header.Clone(), Body: raw}, nil
}

// Plan is an effect planned for one request by an adapter's handler
// (idemhttp, idemqueue).
type Plan struct {
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
// Errors: [ErrKeyMissing] for an empty key, [ErrRequestInvalid] for a
// request without scope or fingerprint, [ErrKeyReused] for a key sent with
// another request, *[ResultTooLargeError] when the record with the effect's
// answer would exceed DynamoDB's item size limit (nothing is written),
// *[txn.CancelledError] when one of the effect's own items failed (read it
// by item name), *[ConfigError] when the table refused the record's key
// (its key names are not Options.Attributes'), and retry.ErrUnavailable
// when conflicts or
// throttling outlived the retries. A cancelled effect is not recorded, so a
// later call may succeed.
func (t *Table) Do(ctx context.Context, req Request, effect EffectFunc) (Response, error) {
	if err := req.check(); err != nil {
		return Response{}, err
	}
	scopeHash := req.Scope.Hash(req.Key)
	recKey := t.recordKey(scopeHash)
	// A fresh nonce per invocation: two invocations never share a token, even
	// when every id they write was chosen by the client.
	invocation := append([]string{newID("inv")}, req.Invocation...)
	var resp Response
	var items txn.Items
	err := retry.Do(ctx, t.o.Retry, func(attempt int) error {
		now := t.o.Clock()
		var err error
		if items, resp, err = t.attempt(req, recKey, effect, now); err != nil {
			return err
		}
		in := items.Input()
		in.ClientRequestToken = aws.String(clientRequestToken(scopeHash, req.Fingerprint, append(invocation, strconv.Itoa(attempt))...))
		_, err = t.db.TransactWriteItems(ctx, in)
		return err
	})
	if err == nil {
		return resp, nil
	}
	c, ok := txn.Cancelled(err, &items)
	if !ok {
		return Response{}, t.refused(err)
	}
	switch {
	case c.Failed(RecordItem):
		return t.replayBlocked(ctx, recKey, c.Item(RecordItem), req.Fingerprint)
	case c.Failed(legacyItem):
		return t.replayBlocked(ctx, t.legacyKey(req, scopeHash), c.Item(legacyItem), req.Fingerprint)
	case errors.Is(err, retry.ErrUnavailable):
		return Response{}, err
	case c.Code(RecordItem) == "ValidationError":
		return Response{}, t.refused(c)
	}
	return Response{}, c
}

// attempt builds one attempt's transaction: the effect's items, the record
// and, for an upgrade, the check of the record's former place.
func (t *Table) attempt(req Request, recKey itemKey, effect EffectFunc, now time.Time) (txn.Items, Response, error) {
	eff, err := effect(now)
	if err != nil {
		return txn.Items{}, Response{}, err
	}
	if eff.Release {
		return txn.Items{}, Response{}, errors.New("idempotency: Effect.Release is for the external mode; a transactional effect that must not be stored returns an error")
	}
	resp, err := eff.response()
	if err != nil {
		return txn.Items{}, Response{}, err
	}
	put, err := t.o.Attributes.put(t.name, newRecord(recKey, req.Scope, req.Fingerprint, resp, now, t.o.Expiry), now)
	if err != nil {
		return txn.Items{}, Response{}, fmt.Errorf("idempotency: record: %w", err)
	}
	if err := checkSize(put.Item); err != nil {
		return txn.Items{}, Response{}, err
	}
	items := eff.Items
	items.Add(RecordItem, types.TransactWriteItem{Put: put})
	if lk := t.legacyKey(req, recKey.SK[len(t.o.KeyPrefix):]); lk != (itemKey{}) {
		cc, err := t.o.Attributes.freeCheck(t.name, lk, now)
		if err != nil {
			return txn.Items{}, Response{}, err
		}
		items.Add(legacyItem, types.TransactWriteItem{ConditionCheck: cc})
	}
	return items, resp, items.Err()
}

func marshalBody(body any) (json.RawMessage, error) {
	switch b := body.(type) {
	case json.RawMessage:
		return b, nil
	case []byte:
		return b, nil
	}
	return json.Marshal(body)
}

// recordKey is where a key's record lives: a partition of its own, named
// by the scoped hash, so that nothing the caller chooses changes it.
func (t *Table) recordKey(scopeHash string) itemKey {
	k := t.o.KeyPrefix + scopeHash
	return itemKey{PK: k, SK: k}
}

// legacyKey is where a version before records had partitions of their own
// put req's record; the zero Key when req names no legacy partition (or
// the legacy place is the current one).
func (t *Table) legacyKey(req Request, scopeHash string) itemKey {
	k := itemKey{PK: req.LegacyPartition, SK: t.o.KeyPrefix + scopeHash}
	if req.LegacyPartition == "" || k == t.recordKey(scopeHash) {
		return itemKey{}
	}
	return k
}

// Key is the primary key of req's record, for reading it together with
// other items (BatchGetItem).
func (t *Table) Key(req Request) map[string]types.AttributeValue {
	return t.o.Attributes.key(t.recordKey(req.Scope.Hash(req.Key)))
}

// LegacyKey is the primary key of req's record at its former place
// (Request.LegacyPartition), or nil when req names none.
func (t *Table) LegacyKey(req Request) map[string]types.AttributeValue {
	k := t.legacyKey(req, req.Scope.Hash(req.Key))
	if k == (itemKey{}) {
		return nil
	}
	return t.o.Attributes.key(k)
}

// Decode reads a stored record item under the table's attribute names.
func (t *Table) Decode(item map[string]types.AttributeValue) (Record, error) {
	return t.o.Attributes.decode(item)
}

// Replay answers req from a stored record item: the stored response and
// true, or false when the record has expired at the table's clock (the
// call may run again), or [ErrKeyReused] when req's fingerprint differs,
// or *[InProgressError] for a pending external-mode call.
func (t *Table) Replay(item map[string]types.AttributeValue, req Request) (Response, bool, error) {
	rec, err := t.o.Attributes.decode(item)
	if err != nil {
		return Response{}, false, err
	}
	if rec.Expired(t.o.Clock()) {
		return Response{}, false, nil
	}
	if rec.Fingerprint != req.Fingerprint {
		return Response{}, false, ErrKeyReused
	}
	if rec.Pending() {
		return Response{}, false, &InProgressError{Until: time.Unix(rec.LockedUntil, 0)}
	}
	return Response{Status: rec.Status, Header: rec.Header, Body: rec.Body, Replayed: true}, true, nil
}

// Lookup reads req's record with one strongly consistent GetItem (two with
// Request.LegacyPartition, when the first finds none) and answers as
// [Table.Replay] does; false also when there is no record.
func (t *Table) Lookup(ctx context.Context, req Request) (Response, bool, error) {
	hash := req.Scope.Hash(req.Key)
	for _, k := range []itemKey{t.recordKey(hash), t.legacyKey(req, hash)} {
		if k == (itemKey{}) {
			continue
		}
		item, err := t.get(ctx, k)
		if err != nil {
			return Response{}, false, err
		}
		if len(item) > 0 {
			if resp, live, err := t.Replay(item, req); err != nil || live {
				return resp, live, err
			}
		}
	}
	return Response{}, false, nil
}

func (t *Table) get(ctx context.Context, k itemKey) (map[string]types.AttributeValue, error) {
	out, err := t.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(t.name), Key: t.o.Attributes.key(k), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return nil, t.refused(err)
	}
	return out.Item, nil
}

// replayBlocked answers from the record that blocked the write. It arrives
// in the cancellation reason (ALL_OLD); only if an endpoint omits it is it
// read with one strongly consistent GetItem.
func (t *Table) replayBlocked(ctx context.Context, recKey itemKey, item map[string]types.AttributeValue, fingerprint string) (Response, error) {
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
