package reconcile

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/obs"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/verify"
)

// Keys and entity types of the reconciliation's items.
const (
	// Partition holds the checkpoint.
	Partition    = "CONTROL#reconcile"
	CheckpointSK = "CHECKPOINT"
	// ChunkPartitionPrefix + the pass number holds the facts of that
	// pass's unfinished steps.
	ChunkPartitionPrefix = "CONTROL#reconcile#pass#"
	EntityCheckpoint     = "ReconcileCheckpoint"
	EntityChunk          = "ReconcileChunk"
)

// Defaults of Options.
const (
	DefaultSegments = 4
	DefaultMaxRCU   = 100
	DefaultBudget   = 10 * time.Minute
	DefaultMargin   = 30 * time.Second
	DefaultChunkTTL = 7 * 24 * time.Hour
	// DefaultConfirmDelay outlasts any flow's transactions and retries.
	DefaultConfirmDelay = 2 * time.Second
	// MaxChunkBytes bounds the facts one chunk item holds, under
	// DynamoDB's 400 KB item limit.
	MaxChunkBytes = 350_000
)

// ErrNoTable is returned when Options.Table is empty.
var ErrNoTable = errors.New("reconcile: no table name")

// DB is the part of *dynamodb.Client the reconciliation uses.
type DB interface {
	verify.DB
	verify.QueryDB
	GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
}

var _ DB = (*dynamodb.Client)(nil)

// Options configures a [Reconciler]. Every field but Table has a default.
type Options struct {
	// Table is the live table. Required.
	Table string
	// Schema names the key, entity-type and TTL attributes. Default:
	// schema.Default().
	Schema schema.Schema
	// Segments is the number of parallel Scan segments of a new pass (a
	// pass keeps the count it started with). Default: DefaultSegments.
	Segments int
	// MaxRCU caps the read capacity a step consumes per second (the
	// verifier's pacing on ConsumedCapacity). Default: DefaultMaxRCU.
	MaxRCU float64
	// PageSize is the Limit of each Scan page. Default: 0 (1 MB pages).
	PageSize int32
	// Budget is the longest an invocation scans. The invocation's context
	// deadline less Margin cuts it shorter. Default: DefaultBudget.
	Budget time.Duration
	// Margin is kept back from the context's deadline to write the chunk
	// and the checkpoint (and, at the end of a pass, to check and confirm).
	// Default: DefaultMargin.
	Margin time.Duration
	// ChunkTTL is how long a chunk item outlives its step; the table's TTL
	// deletes it. Default: DefaultChunkTTL.
	ChunkTTL time.Duration
	// ConfirmDelay separates the two re-reads that confirm a violation.
	// Default: DefaultConfirmDelay.
	ConfirmDelay time.Duration
	// RecordExpiry is IDEMPOTENCY_EXPIRY (verify.Options.RecordExpiry).
	// Default: the verifier's 24h.
	RecordExpiry time.Duration
	// InFlight is how long a flow's transaction may commit after the time
	// it stamps on its items (verify.Options.InFlight): an effect younger
	// than that at a pass's start is checked for its idempotency record by
	// the next pass. Default: verify.DefaultInFlight.
	InFlight time.Duration
	// Owner names this invocation in the lease. Default: random.
	Owner string
	// Metrics receives the EMF lines. Default: none.
	Metrics *obs.Metrics
	// Log receives a line per step and every confirmed violation. Default:
	// JSON on stderr.
	Log *slog.Logger
	// Clock returns the current time. Default: time.Now.
	Clock func() time.Time
}

func (o Options) withDefaults() Options {
	o.Schema = o.Schema.WithDefaults()
	if o.Segments <= 0 {
		o.Segments = DefaultSegments
	}
	if o.MaxRCU == 0 {
		o.MaxRCU = DefaultMaxRCU
	}
	if o.Budget <= 0 {
		o.Budget = DefaultBudget
	}
	if o.Margin <= 0 {
		o.Margin = DefaultMargin
	}
	if o.ChunkTTL <= 0 {
		o.ChunkTTL = DefaultChunkTTL
	}
	if o.ConfirmDelay <= 0 {
		o.ConfirmDelay = DefaultConfirmDelay
	}
	if o.Owner == "" {
		var b [8]byte
		rand.Read(b[:])
		o.Owner = hex.EncodeToString(b[:])
	}
	if o.Log == nil {
		o.Log = slog.New(slog.NewJSONHandler(os.Stderr, nil))
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	return o
}

// Checkpoint is the reconciliation's state, one item in the table.
type Checkpoint struct {
	// Pass numbers the pass in progress, from 1.
	Pass int64 `dynamodbav:"pass"`
	// Version counts the advances; each is conditional on the last.
	Version int64         `dynamodbav:"version"`
	Cursor  verify.Cursor `dynamodbav:"cursor"`
	// Steps are the accepted steps of the pass in progress whose facts
	// are in chunk items.
	Steps []StepRef `dynamodbav:"steps"`
	// LeaseOwner holds the checkpoint until LeaseUntil (Unix ms).
	LeaseOwner string `dynamodbav:"leaseOwner"`
	LeaseUntil int64  `dynamodbav:"leaseUntil"`
	// Last is the verdict of the last finished pass.
	Last *Verdict `dynamodbav:"last,omitempty"`
}

// StepRef names the chunk items of one accepted step.
type StepRef struct {
	ID     string `dynamodbav:"id"`
	Chunks int    `dynamodbav:"chunks"`
}

// Verdict is what a finished pass found.
type Verdict struct {
	Pass     int64     `dynamodbav:"pass" json:"pass"`
	Started  time.Time `dynamodbav:"started" json:"started"`
	Finished time.Time `dynamodbav:"finished" json:"finished"`
	Items    int64     `dynamodbav:"items" json:"items"`
	// ConsumedRCU is the scan's and the re-reads'.
	ConsumedRCU float64 `dynamodbav:"consumedRCU" json:"consumedRCU"`
	// Found counts what the scan saw, Confirmed what the re-read kept.
	Found     int            `dynamodbav:"found" json:"found"`
	Confirmed int            `dynamodbav:"confirmed" json:"confirmed"`
	Kinds     map[string]int `dynamodbav:"kinds,omitempty" json:"kinds,omitempty"`
}

// Outcome is what one invocation did.
type Outcome struct {
	// Skipped: another invocation holds the lease; nothing was read.
	Skipped bool
	// Lost: the lease passed to another before this step's checkpoint was
	// written; the step's work is discarded and nothing was published.
	Lost bool
	Pass int64
	// Items and ConsumedRCU are this step's.
	Items       int64
	ConsumedRCU float64
	// Verdict is set when this invocation finished a pass, with the
	// confirmed violations in Confirmed.
	Verdict   *Verdict
	Confirmed *verify.Report
}

// Reconciler runs the verifier over a live table, a step per invocation.
type Reconciler struct {
	db DB
	o  Options
}

// New returns a Reconciler of the table opts name.
func New(db DB, opts ...func(*Options)) (*Reconciler, error) {
	var o Options
	for _, f := range opts {
		f(&o)
	}
	o = o.withDefaults()
	if o.Table == "" {
		return nil, ErrNoTable
	}
	return &Reconciler{db: db, o: o}, nil
}

// Run is one invocation: it takes the checkpoint's lease, scans from the
// cursor until its budget is spent, and advances the checkpoint
// conditionally on the version it read and on still holding the lease, so
// two overlapping invocations never both advance it. When the pass ends,
// it checks the whole pass, re-reads the violations to confirm them,
// publishes the verdict and starts the next pass.
func (r *Reconciler) Run(ctx context.Context) (*Outcome, error) {
	start := r.o.Clock()
	cp, err := r.load(ctx, start)
	if err != nil {
		return nil, err
	}
	until := start.Add(r.o.Budget)
	if dl, ok := ctx.Deadline(); ok && dl.Add(-r.o.Margin).Before(until) {
		until = dl.Add(-r.o.Margin)
	}
	held, err := r.lease(ctx, cp, start, until.Add(r.o.Margin))
	if err != nil {
		return nil, err
	}
	if !held {
		r.o.Metrics.Reconcile(r.o.Table, obs.ReconcileSkipped, 1)
		r.o.Log.Info("reconcile: skipped, another invocation holds the lease", "table", r.o.Table, "pass", cp.Pass, "owner", cp.LeaseOwner)
		return &Outcome{Skipped: true, Pass: cp.Pass}, nil
	}
	vopts := r.verifyOptions()
	if cp.Cursor.Started.IsZero() {
		cp.Cursor = verify.NewCursor(r.o.Segments, start)
	}
	chunk, next, err := verify.Step(ctx, r.db, cp.Cursor, until, vopts)
	if err != nil {
		r.release(cp)
		return nil, err
	}
	out := &Outcome{Pass: cp.Pass, Items: next.Tally.Items - cp.Cursor.Tally.Items, ConsumedRCU: next.Tally.ConsumedRCU - cp.Cursor.Tally.ConsumedRCU}
	if !next.Done() {
		return r.advance(ctx, cp, next, chunk, out)
	}
	return r.finish(ctx, cp, next, chunk, out)
}

func (r *Reconciler) verifyOptions() func(*verify.Options) {
	return func(v *verify.Options) {
		v.Table, v.Schema, v.MaxRCU, v.PageSize, v.RecordExpiry, v.Clock = r.o.Table, r.o.Schema, r.o.MaxRCU, r.o.PageSize, r.o.RecordExpiry, r.o.Clock
		v.InFlight = r.o.InFlight
	}
}

func (r *Reconciler) key(pk, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{r.o.Schema.PartitionKey: &types.AttributeValueMemberS{Value: pk}, r.o.Schema.SortKey: &types.AttributeValueMemberS{Value: sk}}
}

// load reads the checkpoint, creating the first one.
func (r *Reconciler) load(ctx context.Context, now time.Time) (*Checkpoint, error) {
	for range 2 {
		out, err := r.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(r.o.Table), Key: r.key(Partition, CheckpointSK), ConsistentRead: aws.Bool(true)})
		if err != nil {
			return nil, fmt.Errorf("reconcile: read checkpoint: %w", err)
		}
		if out.Item != nil {
			var cp Checkpoint
			if err := attributevalue.UnmarshalMap(out.Item, &cp); err != nil {
				return nil, fmt.Errorf("reconcile: decode checkpoint: %w", err)
			}
			return &cp, nil
		}
		cp := &Checkpoint{Pass: 1, Cursor: verify.NewCursor(r.o.Segments, now)}
		item, err := r.item(cp)
		if err != nil {
			return nil, err
		}
		cond, err := expression.NewBuilder().WithCondition(expression.AttributeNotExists(expression.Name(r.o.Schema.PartitionKey))).Build()
		if err != nil {
			return nil, err
		}
		_, err = r.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(r.o.Table), Item: item,
			ConditionExpression: cond.Condition(), ExpressionAttributeNames: cond.Names()})
		if err == nil {
			return cp, nil
		}
		if !conditionFailed(err) {
			return nil, fmt.Errorf("reconcile: create checkpoint: %w", err)
		}
		// another invocation created it first: read theirs
	}
	return nil, errors.New("reconcile: the checkpoint was created and is gone")
}

func (r *Reconciler) item(cp *Checkpoint) (map[string]types.AttributeValue, error) {
	item, err := attributevalue.MarshalMap(cp)
	if err != nil {
		return nil, fmt.Errorf("reconcile: encode checkpoint: %w", err)
	}
	for k, v := range r.key(Partition, CheckpointSK) {
		item[k] = v
	}
	item[r.o.Schema.EntityType] = &types.AttributeValueMemberS{Value: EntityCheckpoint}
	return item, nil
}

// lease takes the checkpoint until until if its version is still cp's and
// no other holds it; false: another does.
func (r *Reconciler) lease(ctx context.Context, cp *Checkpoint, now, until time.Time) (bool, error) {
	cond := expression.Name("version").Equal(expression.Value(cp.Version)).And(
		expression.Or(expression.Name("leaseOwner").Equal(expression.Value("")), expression.Name("leaseUntil").LessThan(expression.Value(now.UnixMilli()))))
	upd := expression.Set(expression.Name("leaseOwner"), expression.Value(r.o.Owner)).Set(expression.Name("leaseUntil"), expression.Value(until.UnixMilli()))
	expr, err := expression.NewBuilder().WithCondition(cond).WithUpdate(upd).Build()
	if err != nil {
		return false, err
	}
	_, err = r.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(r.o.Table), Key: r.key(Partition, CheckpointSK),
		ConditionExpression: expr.Condition(), UpdateExpression: expr.Update(), ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values()})
	switch {
	case err == nil:
		cp.LeaseOwner, cp.LeaseUntil = r.o.Owner, until.UnixMilli()
		return true, nil
	case conditionFailed(err):
		return false, nil
	}
	return false, fmt.Errorf("reconcile: take the lease: %w", err)
}

// release gives the lease back after a failed step, if still held.
func (r *Reconciler) release(cp *Checkpoint) {
	expr, err := expression.NewBuilder().WithCondition(expression.Name("leaseOwner").Equal(expression.Value(r.o.Owner))).
		WithUpdate(expression.Set(expression.Name("leaseOwner"), expression.Value("")).Set(expression.Name("leaseUntil"), expression.Value(0))).Build()
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(r.o.Table), Key: r.key(Partition, CheckpointSK),
		ConditionExpression: expr.Condition(), UpdateExpression: expr.Update(), ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values()})
}

// commit writes next in place of cp: version cp.Version+1, the lease
// cleared, on condition that cp's version is current and this invocation
// still holds the lease. False: it does not.
func (r *Reconciler) commit(ctx context.Context, cp, next *Checkpoint) (bool, error) {
	next.Version, next.LeaseOwner, next.LeaseUntil = cp.Version+1, "", 0
	item, err := r.item(next)
	if err != nil {
		return false, err
	}
	cond, err := expression.NewBuilder().WithCondition(expression.Name("version").Equal(expression.Value(cp.Version)).
		And(expression.Name("leaseOwner").Equal(expression.Value(r.o.Owner)))).Build()
	if err != nil {
		return false, err
	}
	_, err = r.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(r.o.Table), Item: item,
		ConditionExpression: cond.Condition(), ExpressionAttributeNames: cond.Names(), ExpressionAttributeValues: cond.Values()})
	switch {
	case err == nil:
		return true, nil
	case conditionFailed(err):
		return false, nil
	}
	return false, fmt.Errorf("reconcile: write checkpoint: %w", err)
}

func chunkPartition(pass int64) string { return ChunkPartitionPrefix + fmt.Sprintf("%09d", pass) }

// advance stores the step's facts and moves the cursor on.
func (r *Reconciler) advance(ctx context.Context, cp *Checkpoint, cur verify.Cursor, chunk verify.Chunk, out *Outcome) (*Outcome, error) {
	id := fmt.Sprintf("%06d#%s", cp.Version+1, r.o.Owner)
	n, err := r.writeChunks(ctx, cp.Pass, id, chunk)
	if err != nil {
		r.release(cp)
		return nil, err
	}
	next := &Checkpoint{Pass: cp.Pass, Cursor: cur, Steps: append(append([]StepRef(nil), cp.Steps...), StepRef{ID: id, Chunks: n}), Last: cp.Last}
	ok, err := r.commit(ctx, cp, next)
	if err != nil {
		return nil, err
	}
	if !ok {
		out.Lost = true
		r.o.Log.Warn("reconcile: lost the lease before the checkpoint; the step is discarded", "table", r.o.Table, "pass", cp.Pass)
		return out, nil
	}
	r.stepMetrics(out)
	done := 0
	for _, s := range cur.Segments {
		if s.Done {
			done++
		}
	}
	r.o.Log.Info("reconcile: step", "table", r.o.Table, "pass", cp.Pass, "items", out.Items, "consumedRCU", out.ConsumedRCU,
		"passItems", cur.Tally.Items, "segmentsDone", done, "segments", len(cur.Segments))
	return out, nil
}

func (r *Reconciler) stepMetrics(out *Outcome) {
	r.o.Metrics.Reconcile(r.o.Table, obs.ReconcileItems, float64(out.Items))
	r.o.Metrics.Reconcile(r.o.Table, obs.ReconcileConsumedRCU, out.ConsumedRCU)
}

func (r *Reconciler) writeChunks(ctx context.Context, pass int64, id string, chunk verify.Chunk) (int, error) {
	expires := strconv.FormatInt(r.o.Clock().Add(r.o.ChunkTTL).Unix(), 10)
	n := 0
	for off := 0; off < len(chunk) || n == 0; off += MaxChunkBytes {
		part := chunk[off:min(off+MaxChunkBytes, len(chunk))]
		item := r.key(chunkPartition(pass), fmt.Sprintf("STEP#%s#%04d", id, n))
		item[r.o.Schema.EntityType] = &types.AttributeValueMemberS{Value: EntityChunk}
		item["facts"] = &types.AttributeValueMemberB{Value: part}
		item[r.o.Schema.TTLAttribute] = &types.AttributeValueMemberN{Value: expires}
		if _, err := r.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(r.o.Table), Item: item}); err != nil {
			return 0, fmt.Errorf("reconcile: write chunk: %w", err)
		}
		n++
	}
	return n, nil
}

// readChunks reads the chunks of the accepted steps of cp's pass, in
// order; a step's parts are joined again.
func (r *Reconciler) readChunks(ctx context.Context, cp *Checkpoint) ([]verify.Chunk, float64, error) {
	want := map[string]int{}
	for _, s := range cp.Steps {
		want[s.ID] = s.Chunks
	}
	parts := map[string][][]byte{}
	expr, err := expression.NewBuilder().WithKeyCondition(expression.Key(r.o.Schema.PartitionKey).Equal(expression.Value(chunkPartition(cp.Pass)))).Build()
	if err != nil {
		return nil, 0, err
	}
	in := &dynamodb.QueryInput{TableName: aws.String(r.o.Table), KeyConditionExpression: expr.KeyCondition(), ExpressionAttributeNames: expr.Names(),
		ExpressionAttributeValues: expr.Values(), ConsistentRead: aws.Bool(true), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal}
	var units float64
	for {
		out, err := r.db.Query(ctx, in)
		if err != nil {
			return nil, units, fmt.Errorf("reconcile: read chunks: %w", err)
		}
		if out.ConsumedCapacity != nil {
			units += aws.ToFloat64(out.ConsumedCapacity.CapacityUnits)
		}
		for _, item := range out.Items {
			sk, _ := item[r.o.Schema.SortKey].(*types.AttributeValueMemberS)
			b, _ := item["facts"].(*types.AttributeValueMemberB)
			if sk == nil || b == nil {
				continue
			}
			rest, _ := strings.CutPrefix(sk.Value, "STEP#")
			i := strings.LastIndexByte(rest, '#')
			if i < 0 {
				continue
			}
			if _, ok := want[rest[:i]]; ok {
				parts[rest[:i]] = append(parts[rest[:i]], b.Value) // sort keys come in order
			}
		}
		if len(out.LastEvaluatedKey) == 0 {
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	ids := make([]string, 0, len(want))
	for id := range want {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	chunks := make([]verify.Chunk, 0, len(ids))
	for _, id := range ids {
		if len(parts[id]) != want[id] {
			return nil, units, fmt.Errorf("reconcile: step %s of pass %d has %d of its %d chunks (expired? ChunkTTL is %s)", id, cp.Pass, len(parts[id]), want[id], r.o.ChunkTTL)
		}
		var c []byte
		for _, p := range parts[id] {
			c = append(c, p...)
		}
		chunks = append(chunks, c)
	}
	return chunks, units, nil
}

// finish checks the pass that this step ended, confirms its violations,
// starts the next pass and publishes the verdict.
func (r *Reconciler) finish(ctx context.Context, cp *Checkpoint, cur verify.Cursor, chunk verify.Chunk, out *Outcome) (*Outcome, error) {
	chunks, units, err := r.readChunks(ctx, cp)
	if err != nil {
		r.release(cp)
		return nil, err
	}
	vopts := r.verifyOptions()
	rep, err := verify.Check(cur, append(chunks, chunk), vopts)
	if err != nil {
		r.release(cp)
		return nil, err
	}
	// Two re-reads ConfirmDelay apart: what a flow in progress shows for a
	// moment (a pending idempotency record, a transaction of the moment)
	// is gone by the second.
	confirmed, err := verify.Confirm(ctx, r.db, rep, cur, vopts)
	if err == nil && !confirmed.OK {
		select {
		case <-ctx.Done():
			err = ctx.Err()
		case <-time.After(r.o.ConfirmDelay):
			var again *verify.Report
			if again, err = verify.Confirm(ctx, r.db, confirmed, cur, vopts); err == nil {
				again.ConsumedRCU += confirmed.ConsumedRCU
				confirmed = again
			}
		}
	}
	if err != nil {
		r.release(cp)
		return nil, err
	}
	now := r.o.Clock()
	v := &Verdict{Pass: cp.Pass, Started: cur.Started, Finished: now, Items: rep.Items, ConsumedRCU: rep.ConsumedRCU + units + confirmed.ConsumedRCU,
		Found: rep.Total(), Confirmed: confirmed.Total()}
	if v.Confirmed > 0 {
		v.Kinds = map[string]int{}
		for k, n := range confirmed.Counts {
			v.Kinds[string(k)] = n
		}
	}
	next := &Checkpoint{Pass: cp.Pass + 1, Cursor: verify.NewCursor(r.o.Segments, now), Last: v}
	ok, err := r.commit(ctx, cp, next)
	if err != nil {
		return nil, err
	}
	if !ok {
		out.Lost = true
		r.o.Log.Warn("reconcile: lost the lease before the verdict; the pass is discarded", "table", r.o.Table, "pass", cp.Pass)
		return out, nil
	}
	out.Verdict, out.Confirmed = v, confirmed
	out.ConsumedRCU += units + confirmed.ConsumedRCU
	r.stepMetrics(out)
	m := r.o.Metrics
	m.Reconcile(r.o.Table, obs.ReconcileViolations, float64(v.Confirmed))
	m.Reconcile(r.o.Table, obs.ReconcileUnconfirmed, float64(v.Found-v.Confirmed))
	m.Reconcile(r.o.Table, obs.ReconcilePassSeconds, now.Sub(cur.Started).Seconds())
	m.Reconcile(r.o.Table, obs.ReconcilePassCompleted, 1)
	for _, x := range confirmed.Violations {
		r.o.Log.Error("reconcile: violation", "table", r.o.Table, "pass", cp.Pass, "kind", string(x.Kind), "detail", x.Detail,
			"transaction", x.Transaction, "userId", x.UserID, "orderId", x.OrderID, "keys", x.Keys)
	}
	r.o.Log.Info("reconcile: pass finished", "table", r.o.Table, "pass", cp.Pass, "items", v.Items, "consumedRCU", v.ConsumedRCU,
		"found", v.Found, "confirmed", v.Confirmed, "seconds", now.Sub(cur.Started).Seconds())
	return out, nil
}

// Status reads the checkpoint: the pass in progress and the last verdict.
func (r *Reconciler) Status(ctx context.Context) (*Checkpoint, error) {
	out, err := r.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(r.o.Table), Key: r.key(Partition, CheckpointSK), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return nil, fmt.Errorf("reconcile: read checkpoint: %w", err)
	}
	if out.Item == nil {
		return nil, nil
	}
	var cp Checkpoint
	if err := attributevalue.UnmarshalMap(out.Item, &cp); err != nil {
		return nil, fmt.Errorf("reconcile: decode checkpoint: %w", err)
	}
	return &cp, nil
}

func conditionFailed(err error) bool {
	var ccf *types.ConditionalCheckFailedException
	return errors.As(err, &ccf)
}
