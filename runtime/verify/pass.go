package verify

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"sort"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/store"
)

// A pass is [Table] spread over several calls, for a live table that one
// process cannot scan in one go (a Lambda function has 15 minutes): [Step]
// scans from a [Cursor] until a deadline and returns the facts it read as a
// [Chunk]; once the cursor is done, [Check] joins every chunk of the pass
// and runs the checks. The caller keeps the cursor and the chunks between
// calls (runtime/reconcile keeps them in the table).
//
// A live table changes under a scan that takes minutes, so a pass can see
// one item of a transaction and not the other. [Confirm] re-reads the
// partitions of each violation, strongly consistent, and keeps those that
// are still there. An effect created less than Options.InFlight before
// the pass started is not checked for its idempotency record: the scan
// may have passed the record's partition before the effect's transaction
// committed, and no re-read can find a record the effect does not name.
// The next pass checks it.

// Cursor is how far a pass has come, and what it has counted so far.
type Cursor struct {
	// Started is when the pass began.
	Started  time.Time       `json:"started" dynamodbav:"started"`
	Segments []SegmentCursor `json:"segments" dynamodbav:"segments"`
	Tally    Tally           `json:"tally" dynamodbav:"tally"`
}

// SegmentCursor is one Scan segment's position: Start is the
// LastEvaluatedKey of its last page (nil before its first), Done says it
// has no more pages.
type SegmentCursor struct {
	Start *Key `json:"start,omitempty" dynamodbav:"start,omitempty"`
	Done  bool `json:"done" dynamodbav:"done"`
}

// Tally is what a pass has read so far.
type Tally struct {
	Items, Users, LedgerEntries, Orders, Summaries, Payments, Records, Other int64
	Pages                                                                    int64
	ConsumedRCU                                                              float64
	// Newest is the newest record of a success seen (counts.Newest).
	Newest time.Time
	// Platform is, per "account currency", the platform's stored totals
	// and the legs of the entries marked totalled; Untotalled counts the
	// entries not totalled yet.
	Platform   map[string]PlatformSum `json:"platform,omitempty" dynamodbav:"platform,omitempty"`
	Untotalled int64
}

// NewCursor starts a pass of segments parallel Scan segments at started.
func NewCursor(segments int, started time.Time) Cursor {
	return Cursor{Started: started, Segments: make([]SegmentCursor, max(1, segments))}
}

// Done reports whether every segment has read its last page.
func (c Cursor) Done() bool {
	for _, s := range c.Segments {
		if !s.Done {
			return false
		}
	}
	return len(c.Segments) > 0
}

// Chunk is the facts one Step read, encoded (gob, gzip). Its size is
// about 30 bytes per money item.
type Chunk []byte

// ErrBadCursor is returned for a cursor without segments.
var ErrBadCursor = errors.New("verify: cursor has no segments")

// Step scans the segments c has left, in parallel, until until has passed
// (each segment finishes the page it is reading) or the pass is done. The
// options are [Table]'s; Segments is the cursor's. The returned cursor
// includes what Step read; on an error it is c, unchanged.
func Step(ctx context.Context, db DB, c Cursor, until time.Time, opts ...func(*Options)) (Chunk, Cursor, error) {
	o := options(opts)
	if o.Table == "" {
		return nil, c, ErrNoTable
	}
	if len(c.Segments) == 0 {
		return nil, c, ErrBadCursor
	}
	next := Cursor{Started: c.Started, Segments: append([]SegmentCursor(nil), c.Segments...), Tally: c.Tally}
	st := &step{o: o, db: db, rd: newReader(newBuilder(o), o.Keys), pace: &pacer{rate: o.MaxRCU, clock: o.Clock}, until: until, cur: &next}
	var wg sync.WaitGroup
	errs := make(chan error, len(c.Segments))
	for i, s := range c.Segments {
		if s.Done {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := st.segment(ctx, i); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return nil, c, err
	}
	chunk, err := encodeFacts(st.facts)
	if err != nil {
		return nil, c, err
	}
	return chunk, next, nil
}

func options(opts []func(*Options)) Options {
	var o Options
	for _, f := range opts {
		f(&o)
	}
	return o.withDefaults()
}

type step struct {
	o     Options
	db    DB
	rd    *reader
	pace  *pacer
	until time.Time

	mu    sync.Mutex
	cur   *Cursor
	facts []fact
}

func (s *step) segment(ctx context.Context, seg int) error {
	sc := s.schema()
	s.mu.Lock()
	pos := s.cur.Segments[seg]
	total := len(s.cur.Segments)
	s.mu.Unlock()
	in := &dynamodb.ScanInput{TableName: aws.String(s.o.Table), Segment: aws.Int32(int32(seg)), TotalSegments: aws.Int32(int32(total)),
		ConsistentRead: aws.Bool(s.o.ConsistentRead), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal}
	if s.o.PageSize > 0 {
		in.Limit = aws.Int32(s.o.PageSize)
	}
	if pos.Start != nil {
		in.ExclusiveStartKey = map[string]types.AttributeValue{
			sc.pk: &types.AttributeValueMemberS{Value: pos.Start.PK}, sc.sk: &types.AttributeValueMemberS{Value: pos.Start.SK}}
	}
	for !s.o.Clock().After(s.until) {
		if err := s.pace.wait(ctx); err != nil {
			return err
		}
		out, err := s.db.Scan(ctx, in)
		if err != nil {
			return fmt.Errorf("verify: scan %s segment %d: %w", s.o.Table, seg, err)
		}
		var units float64
		if out.ConsumedCapacity != nil {
			units = aws.ToFloat64(out.ConsumedCapacity.CapacityUnits)
		}
		s.pace.spend(units)
		var c counts
		var facts []fact
		for _, item := range out.Items {
			facts = s.rd.facts(item, &c, facts)
		}
		s.mu.Lock()
		s.facts = append(s.facts, facts...)
		s.cur.Tally.add(c, units)
		p := &s.cur.Segments[seg]
		if len(out.LastEvaluatedKey) == 0 {
			p.Done, p.Start = true, nil
		} else {
			k := s.rd.key(out.LastEvaluatedKey)
			p.Start = &Key{PK: k.PK, SK: k.SK}
		}
		done := p.Done
		s.mu.Unlock()
		if done {
			return nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	return nil
}

type keyNames struct{ pk, sk string }

func (s *step) schema() keyNames {
	return keyNames{s.o.Schema.PartitionKey, s.o.Schema.SortKey}
}

func (t *Tally) add(c counts, units float64) {
	t.Items += c.Items
	t.Users += c.Users
	t.LedgerEntries += c.LedgerEntries
	t.Orders += c.Orders
	t.Summaries += c.Summaries
	t.Payments += c.Payments
	t.Records += c.Records
	t.Other += c.Other
	t.Untotalled += c.Untotalled
	t.Platform = platformSums(t.Platform).merge(c.Platform)
	t.Pages++
	t.ConsumedRCU += units
	if c.Newest.After(t.Newest) {
		t.Newest = c.Newest
	}
}

func encodeFacts(facts []fact) (Chunk, error) {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if err := gob.NewEncoder(zw).Encode(facts); err != nil {
		return nil, fmt.Errorf("verify: encode chunk: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("verify: encode chunk: %w", err)
	}
	return b.Bytes(), nil
}

func decodeFacts(c Chunk) ([]fact, error) {
	zr, err := gzip.NewReader(bytes.NewReader(c))
	if err != nil {
		return nil, fmt.Errorf("verify: decode chunk: %w", err)
	}
	var facts []fact
	if err := gob.NewDecoder(zr).Decode(&facts); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("verify: decode chunk: %w", err)
	}
	return facts, nil
}

// Check joins the chunks of a finished pass and checks them, as [Table]
// does at the end of its scan. Effects created after c.Started less
// Options.InFlight are not checked for their record (see [Confirm]).
func Check(c Cursor, chunks []Chunk, opts ...func(*Options)) (*Report, error) {
	o := options(opts)
	if o.Table == "" {
		return nil, ErrNoTable
	}
	if o.Buckets <= 0 {
		o.Buckets = max(1, int((c.Tally.Items+ItemsPerBucket-1)/ItemsPerBucket))
	}
	sp, err := newSpill(o.SpillDir, o.Buckets)
	if err != nil {
		return nil, err
	}
	defer sp.close()
	for _, ch := range chunks {
		facts, err := decodeFacts(ch)
		if err != nil {
			return nil, err
		}
		if err := sp.add(facts); err != nil {
			return nil, err
		}
	}
	t := c.Tally
	rep := &Report{Table: o.Table, Counts: map[Kind]int{}, Segments: len(c.Segments), Buckets: o.Buckets, ConsistentRead: o.ConsistentRead,
		Users: t.Users, LedgerEntries: t.LedgerEntries, Orders: t.Orders, Summaries: t.Summaries, Payments: t.Payments,
		Records: t.Records, OtherItems: t.Other, Items: t.Items, Pages: t.Pages, ConsumedRCU: t.ConsumedRCU, Untotalled: t.Untotalled}
	recent := recentBetween(t.Newest, o.RecordExpiry, c.settled(o))
	err = sp.each(func(kind byte, g *group) {
		checkGroup(kind, youngClaimsOut(g, c.Started), recent, o.RecordExpiry, rep.add(o.MaxViolations))
	})
	if err != nil {
		return nil, err
	}
	checkPlatform(t.Platform, t.Untotalled, rep.add(o.MaxViolations))
	rep.sortViolations()
	rep.Elapsed = o.Clock().Sub(c.Started)
	rep.finish()
	return rep, nil
}

// youngClaimsOut leaves out of g the credit and debit records created at
// or after started: a live scan may have read the partition of their
// ledger entry before their transaction committed. The next pass checks
// them.
func youngClaimsOut(g *group, started time.Time) *group {
	if started.IsZero() {
		return g
	}
	end := keys.Timestamp(started)
	kept := g.facts[:0:0]
	for _, f := range g.facts {
		if f.Kind == fClaimLedger && (f.At == "" || f.At >= end) {
			continue
		}
		kept = append(kept, f)
	}
	return &group{id: g.id, facts: kept}
}

// settled is the time before which every effect a live pass c checks
// for its record had committed (the zero time when c is no live pass).
func (c Cursor) settled(o Options) time.Time {
	if c.Started.IsZero() || o.InFlight < 0 {
		return c.Started
	}
	return c.Started.Add(-o.InFlight)
}

// recentBetween is recentSince, cut at before: a live pass does not check
// what was created after it started.
func recentBetween(newest time.Time, expiry time.Duration, before time.Time) func(string) bool {
	recent := recentSince(newest, expiry)
	if before.IsZero() {
		return recent
	}
	end := keys.Timestamp(before)
	return func(at string) bool { return recent(at) && at < end }
}

func (r *Report) add(maxViolations int) func(Violation) {
	return func(v Violation) {
		r.Counts[v.Kind]++
		if len(r.Violations) < maxViolations {
			r.Violations = append(r.Violations, v)
		} else {
			r.Truncated = true
		}
	}
}

func (r *Report) sortViolations() {
	sort.SliceStable(r.Violations, func(i, j int) bool { return kindOrder(r.Violations[i].Kind) < kindOrder(r.Violations[j].Kind) })
}

// QueryDB is the part of *dynamodb.Client [Confirm] uses.
type QueryDB interface {
	Query(ctx context.Context, in *dynamodb.QueryInput, optFns ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
}

// Confirm re-reads, strongly consistent, every partition that rep's
// listed violations involve (their keys' partitions, the user's and the
// order's), checks them again under c's window, and returns the report of
// the violations found again: those of rep that the table still shows
// (matched by kind, user, order and transaction). A violation of a live
// scan that a transaction in flight explains is gone on the second read.
// Its ConsumedRCU is the re-reads'.
func Confirm(ctx context.Context, db QueryDB, rep *Report, c Cursor, opts ...func(*Options)) (*Report, error) {
	o := options(opts)
	if rep.OK || len(rep.Violations) == 0 {
		out := &Report{Table: o.Table, Counts: map[Kind]int{}, Segments: 1, Buckets: 1, ConsistentRead: true}
		out.finish()
		return out, nil
	}
	parts := map[string]bool{}
	want := map[violationID]bool{}
	for _, v := range rep.Violations {
		for _, k := range v.Keys {
			parts[k.PK] = true
		}
		if v.UserID != "" {
			parts[o.Keys.UserPrefix+v.UserID] = true
		}
		if v.OrderID != "" {
			parts[o.Keys.OrderPrefix+v.OrderID] = true
		}
		want[idOf(v)] = true
	}
	return checkPartitions(ctx, db, o, parts, c, func(v Violation) bool { return want[idOf(v)] })
}

// Partitions reads the partitions pks (such as "USER#alice"),
// strongly consistent, and checks them alone: a user's balance against
// its ledger, its records, its quarantined late writes. A record in a
// partition of its own brings its user's partition in. It is the check
// of one account that a stream consumer runs (runtime/regionwatch).
func Partitions(ctx context.Context, db QueryDB, pks []string, opts ...func(*Options)) (*Report, error) {
	o := options(opts)
	parts := map[string]bool{}
	for _, pk := range pks {
		parts[pk] = true
	}
	return checkPartitions(ctx, db, o, parts, Cursor{}, func(Violation) bool { return true })
}

// violationID is what Confirm matches a violation found again by.
type violationID struct {
	kind                   Kind
	user, order, txn, what string
}

func idOf(v Violation) violationID {
	what := ""
	if v.UserID == "" && v.OrderID == "" && v.Transaction == "" && len(v.Keys) > 0 {
		what = v.Keys[0].PK + " " + v.Keys[0].SK
	}
	return violationID{v.Kind, v.UserID, v.OrderID, v.Transaction, what}
}

// checkPartitions reads parts, strongly consistent, checks their groups
// under c's window and reports the violations keep keeps.
func checkPartitions(ctx context.Context, db QueryDB, o Options, parts map[string]bool, c Cursor, keep func(Violation) bool) (*Report, error) {
	out := &Report{Table: o.Table, Counts: map[Kind]int{}, Segments: 1, Buckets: 1, ConsistentRead: true}
	names := make([]string, 0, len(parts))
	for p := range parts {
		names = append(names, p)
	}
	sort.Strings(names)
	rd := newReader(newBuilder(o), o.Keys)
	var cnt counts
	groups := map[string]*group{}
	// A record in a partition of its own names its user: the user's
	// partition, where its ledger entry is, is read too. So is a transfer
	// leg's counterparty's, where the other leg is: a scan that saw one
	// leg of a transfer committed between its pages reads both.
	for i := 0; i < len(names); i++ {
		pk := names[i]
		units, err := queryPartition(ctx, db, o, pk, func(item map[string]types.AttributeValue) {
			for _, f := range rd.facts(item, &cnt, nil) {
				other := f.User
				if f.Kind == fTransferLeg {
					other = f.Other
				}
				if (f.Kind == fClaimLedger || f.Kind == fTransferLeg) && other != "" && !parts[o.Keys.UserPrefix+other] {
					parts[o.Keys.UserPrefix+other] = true
					names = append(names, o.Keys.UserPrefix+other)
				}
				g := groups[f.groupKey()]
				if g == nil {
					g = &group{id: f.ID}
					groups[f.groupKey()] = g
				}
				g.facts = append(g.facts, f)
			}
		})
		if err != nil {
			return nil, err
		}
		out.ConsumedRCU += units
	}
	out.Items = cnt.Items
	newest := c.Tally.Newest
	if cnt.Newest.After(newest) {
		newest = cnt.Newest
	}
	recent := recentBetween(newest, o.RecordExpiry, c.settled(o))
	gk := make([]string, 0, len(groups))
	for k := range groups {
		gk = append(gk, k)
	}
	sort.Strings(gk)
	add := out.add(o.MaxViolations)
	for _, k := range gk {
		g := groups[k]
		sort.Slice(g.facts, func(i, j int) bool {
			a, b := g.facts[i], g.facts[j]
			if a.Kind != b.Kind {
				return a.Kind < b.Kind
			}
			if a.Key.PK != b.Key.PK {
				return a.Key.PK < b.Key.PK
			}
			return a.Key.SK < b.Key.SK
		})
		checkGroup(k[0], youngClaimsOut(g, c.Started), recent, o.RecordExpiry, func(v Violation) {
			if keep(v) {
				add(v)
			}
		})
	}
	out.sortViolations()
	out.finish()
	return out, nil
}

func queryPartition(ctx context.Context, db QueryDB, o Options, pk string, each func(map[string]types.AttributeValue)) (float64, error) {
	expr, err := expression.NewBuilder().WithKeyCondition(expression.Key(o.Schema.PartitionKey).Equal(expression.Value(pk))).Build()
	if err != nil {
		return 0, fmt.Errorf("verify: confirm: %w", err)
	}
	in := &dynamodb.QueryInput{TableName: aws.String(o.Table), KeyConditionExpression: expr.KeyCondition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(), ConsistentRead: aws.Bool(true),
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal}
	var units float64
	for {
		out, err := db.Query(ctx, in)
		if err != nil {
			return units, fmt.Errorf("verify: confirm: query %s: %w", pk, err)
		}
		if out.ConsumedCapacity != nil {
			units += aws.ToFloat64(out.ConsumedCapacity.CapacityUnits)
		}
		for _, item := range out.Items {
			each(item)
		}
		if len(out.LastEvaluatedKey) == 0 {
			return units, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

func newBuilder(o Options) store.Builder { return store.NewBuilder(o.Table, o.Schema) }
