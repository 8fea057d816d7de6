package platform

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/config"
	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/obs"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/store"
	"github.com/oncetable/oncetable/runtime/txn"
)

// DefaultShards is how many items each platform account's total is spread
// over. Each shard is its own partition, so concurrent totallers (one per
// stream shard, times the mapping's parallelization factor) that start on
// different shards never conflict, and the report reads every account's
// shards in one BatchGetItem (4 accounts x 16 = 64 keys of its 100).
const DefaultShards = config.DefaultPlatformShards

// MaxShards bounds Options.Shards: Read then takes one BatchGetItem per
// account.
const MaxShards = config.MaxPlatformShards

// MaxEntriesPerTransaction is how many entries one TransactWriteItems
// marks: with one total item per platform account it stays under
// DynamoDB's 100 items per transaction.
const MaxEntriesPerTransaction = 100 - 8

// TxDB is the part of the DynamoDB client the Totaller uses.
type TxDB interface {
	TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error)
}

// Options configures a Totaller.
type Options struct {
	// Table is the single table. Required.
	Table string
	// Schema names its attributes. Default: schema.Default.
	Schema schema.Schema
	// Shards is the number of shards of each account's total, 1..MaxShards;
	// it must be the one Read is given. Default: DefaultShards.
	Shards int
	// MaxConflicts is how many transaction conflicts one transaction
	// retries (each on the next shard) before the batch fails. Default: 8.
	MaxConflicts int
	// Backoff is the wait after conflict n (1, 2, ...). Default: 10 ms
	// doubling, at most 500 ms.
	Backoff func(n int) time.Duration
	// Logger receives entries that cannot be totalled. Default: slog.Default().
	Logger *slog.Logger
	// Metrics receives each batch's counts (obs.TotalsNamespace). Default:
	// nil, none.
	Metrics *obs.Metrics
}

func (o Options) withDefaults() Options {
	o.Schema = o.Schema.WithDefaults()
	o.Shards = cmp.Or(o.Shards, DefaultShards)
	o.MaxConflicts = cmp.Or(o.MaxConflicts, 8)
	if o.Backoff == nil {
		o.Backoff = func(n int) time.Duration { return min(500*time.Millisecond, 10*time.Millisecond<<max(0, n-1)) }
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

// ErrOptions is wrapped by the error of New's options out of range.
var ErrOptions = errors.New("platform: bad options")

// Totaller adds the platform legs of ledger entries to the stored totals,
// exactly once per entry.
type Totaller struct {
	db TxDB
	o  Options
	b  store.Builder
}

// New returns a Totaller writing through db. It panics on options that
// cannot work (no table, shards out of range): they are a deploy error.
func New(db TxDB, opts ...func(*Options)) *Totaller {
	var o Options
	for _, f := range opts {
		f(&o)
	}
	o = o.withDefaults()
	if o.Table == "" || o.Shards < 1 || o.Shards > MaxShards {
		panic(fmt.Errorf("%w: table %q, shards %d (1..%d)", ErrOptions, o.Table, o.Shards, MaxShards))
	}
	return &Totaller{db: db, o: o, b: store.NewBuilder(o.Table, o.Schema)}
}

// Entry is what the totaller needs of a ledger entry: its key and its
// platform legs, in its currency.
type Entry struct {
	Key      keys.Key
	Currency string
	Legs     []store.Leg
}

// EntryOf is e's Entry: its platform legs (as its kind implies for an
// entry stored without legs).
func EntryOf(k keys.Key, e store.LedgerEntry) Entry {
	var legs []store.Leg
	for _, l := range e.Posting() {
		if IsPlatform(l.Account) {
			legs = append(legs, l)
		}
	}
	return Entry{Key: k, Currency: e.Currency, Legs: legs}
}

// IsPlatform reports whether account is one of the platform's.
func IsPlatform(account string) bool { return strings.HasPrefix(account, "platform:") }

// Result counts what a Total did.
type Result struct {
	// Totalled entries had their legs added now; Already had been totalled
	// before (a redelivery); Missing were not in the table.
	Totalled, Already, Missing int
	// Transactions is the TransactWriteItems calls sent, Conflicts those
	// cancelled by a conflict.
	Transactions, Conflicts int
}

func (r *Result) add(o Result) {
	r.Totalled += o.Totalled
	r.Already += o.Already
	r.Missing += o.Missing
	r.Transactions += o.Transactions
	r.Conflicts += o.Conflicts
}

// ConflictError is a transaction that still conflicted after
// Options.MaxConflicts attempts; Shard is the last shard tried.
type ConflictError struct {
	Shard    int
	Attempts int
	Err      error
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("platform: totals transaction conflicted %d times (last on shard %d): %v", e.Attempts, e.Shard, e.Err)
}

func (e *ConflictError) Unwrap() error { return e.Err }

// Total adds the legs of entries to the totals, each entry once: entries
// already totalled are left out. It writes at most
// MaxEntriesPerTransaction entries per transaction, in order; on an error
// the entries of earlier transactions are totalled and the rest are not,
// so calling Total again with the same entries is safe.
func (t *Totaller) Total(ctx context.Context, entries []Entry) (Result, error) {
	var res Result
	seen := map[keys.Key]bool{}
	unique := entries[:0:0]
	for _, e := range entries {
		if !seen[e.Key] {
			seen[e.Key] = true
			unique = append(unique, e)
		}
	}
	for chunk := range slices.Chunk(unique, MaxEntriesPerTransaction) {
		r, err := t.total(ctx, chunk)
		res.add(r)
		if err != nil {
			return res, err
		}
	}
	return res, nil
}

// ShardOf is the shard a transaction starting with key tries first: a hash
// of the key, so totallers of different stream shards start apart.
func (t *Totaller) ShardOf(k keys.Key) int {
	h := fnv.New32a()
	h.Write([]byte(k.PK))
	h.Write([]byte{0})
	h.Write([]byte(k.SK))
	return int(h.Sum32() % uint32(t.o.Shards))
}

func (t *Totaller) total(ctx context.Context, chunk []Entry) (Result, error) {
	var res Result
	left := chunk
	shard := t.ShardOf(chunk[0].Key)
	for len(left) > 0 {
		tx, err := t.transaction(left, shard)
		if err != nil {
			return res, err
		}
		if tx.Len() == 0 {
			break
		}
		res.Transactions++
		_, err = t.db.TransactWriteItems(ctx, tx.Input())
		if err == nil {
			res.Totalled += len(left)
			return res, nil
		}
		c, ok := txn.Cancelled(err, tx)
		if !ok {
			return res, fmt.Errorf("platform: totals transaction: %w", err)
		}
		kept := left[:0:0]
		for i, e := range left {
			if !c.Failed(entryName(i)) {
				kept = append(kept, e)
				continue
			}
			if c.Item(entryName(i)) == nil {
				res.Missing++
				t.o.Logger.Error("platform: ledger entry not in the table; its legs are not totalled", "pk", e.Key.PK, "sk", e.Key.SK)
			} else {
				res.Already++
			}
		}
		if len(kept) < len(left) {
			left = kept
			continue
		}
		if !conflicted(c) {
			return res, fmt.Errorf("platform: totals transaction: %w", err)
		}
		res.Conflicts++
		if res.Conflicts >= t.o.MaxConflicts {
			return res, &ConflictError{Shard: shard, Attempts: res.Conflicts, Err: err}
		}
		select {
		case <-ctx.Done():
			return res, ctx.Err()
		case <-time.After(t.o.Backoff(res.Conflicts)):
		}
		shard = (shard + 1) % t.o.Shards
	}
	return res, nil
}

func conflicted(c *txn.CancelledError) bool {
	for _, n := range c.Names {
		if c.Code(n) == "TransactionConflict" {
			return true
		}
	}
	return false
}

func entryName(i int) string { return fmt.Sprintf("entry %d", i) }

// transaction marks entries as totalled on shard and adds their legs to
// each account's shard item, one item per account with one attribute per
// currency (ADD works on top-level attributes only).
func (t *Totaller) transaction(entries []Entry, shard int) (*txn.Items, error) {
	sums := map[string]map[string]int64{} // account -> currency -> sum
	tx := &txn.Items{}
	for i, e := range entries {
		upd := expression.Set(expression.Name(store.TotalledAttribute), expression.Value(shard))
		cond := t.b.Exists().And(expression.AttributeNotExists(expression.Name(store.TotalledAttribute)))
		item, err := t.b.Update(e.Key, upd, cond)
		if err != nil {
			return nil, fmt.Errorf("platform: build the update of %s: %w", e.Key.SK, err)
		}
		tx.Add(entryName(i), item)
		for _, l := range e.Legs {
			if sums[l.Account] == nil {
				sums[l.Account] = map[string]int64{}
			}
			sums[l.Account][e.Currency] += l.Amount
		}
	}
	for _, account := range slices.Sorted(maps.Keys(sums)) {
		upd := expression.Set(expression.Name(t.o.Schema.EntityType), expression.Value(store.TypePlatformTotal)).
			Set(expression.Name(accountAttribute), expression.Value(account)).
			Set(expression.Name(shardAttribute), expression.Value(shard))
		for cur, sum := range sums[account] {
			upd = upd.Add(expression.Name(cur), expression.Value(sum))
		}
		item, err := t.add(keys.PlatformTotal(account, shard), upd)
		if err != nil {
			return nil, fmt.Errorf("platform: build the total of %s: %w", account, err)
		}
		tx.Add("total "+account, item)
	}
	return tx, tx.Err()
}

// add is an unconditional transaction Update of a total item: ADD
// creates it on its first use.
func (t *Totaller) add(k keys.Key, upd expression.UpdateBuilder) (types.TransactWriteItem, error) {
	expr, err := expression.NewBuilder().WithUpdate(upd).Build()
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{Update: &types.Update{
		TableName: aws.String(t.o.Table), Key: t.b.Key(k), UpdateExpression: expr.Update(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}}, nil
}

// Attributes of a total item besides its currencies.
const (
	accountAttribute = "account"
	shardAttribute   = "shard"
)

// Handle is the Lambda handler of the totaller's stream mapping: it totals
// the ledger entries the batch inserts. Records of other items are
// skipped. When a record cannot be read, or a transaction fails, the
// answer names its first record in BatchItemFailures, so the mapping
// retries from there (what was totalled before is not counted again). The
// error is non-nil only when ctx ends.
func (t *Totaller) Handle(ctx context.Context, batch events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	var entries []Entry
	var records []int // the record of each entry
	failAt := -1
	for i, r := range batch.Records {
		e, ok, err := entryOfRecord(r, t.o.Schema)
		if err != nil {
			t.o.Logger.Error("platform: unreadable ledger entry record", "eventId", r.EventID, "err", err)
			failAt = i
			break
		}
		if ok {
			entries = append(entries, e)
			records = append(records, i)
		}
	}
	done := 0
	var sum Result
	defer func() { t.emit(sum) }()
	for chunk := range slices.Chunk(entries, MaxEntriesPerTransaction) {
		res, err := t.Total(ctx, chunk)
		sum.add(res)
		if err != nil {
			if ctx.Err() != nil {
				return events.DynamoDBEventResponse{}, ctx.Err()
			}
			t.o.Logger.Error("platform: totals not written", "err", err)
			failAt = records[done]
			break
		}
		done += len(chunk)
	}
	var resp events.DynamoDBEventResponse
	if failAt >= 0 {
		resp.BatchItemFailures = []events.DynamoDBBatchItemFailure{{ItemIdentifier: batch.Records[failAt].Change.SequenceNumber}}
	}
	return resp, nil
}

// emit records a batch's counts.
func (t *Totaller) emit(r Result) {
	if t.o.Metrics == nil {
		return
	}
	t.o.Metrics.Totals(t.o.Table, obs.TotalsEntries, float64(r.Totalled))
	t.o.Metrics.Totals(t.o.Table, obs.TotalsRedelivered, float64(r.Already))
	t.o.Metrics.Totals(t.o.Table, obs.TotalsConflicts, float64(r.Conflicts))
	t.o.Metrics.Totals(t.o.Table, obs.TotalsMissing, float64(r.Missing))
}
