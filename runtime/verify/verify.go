package verify

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/store"
)

// DB is the part of *dynamodb.Client the verifier uses.
type DB interface {
	Scan(ctx context.Context, in *dynamodb.ScanInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error)
	DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
}

var _ DB = (*dynamodb.Client)(nil)

// Options configures [Table]. Every field but Table has a default.
type Options struct {
	// Table is the name of the table to check. Required.
	Table string
	// Schema names the key, entity-type and TTL attributes. Default:
	// schema.Default().
	Schema schema.Schema
	// Keys are the key prefixes. Default: keys.Default.
	Keys keys.Layout
	// Segments is the number of parallel Scan segments. Default: 4.
	Segments int
	// MaxRCU caps the read capacity the scan consumes, in units per second
	// averaged over the scan (each segment may run one page over).
	// Default: 200. Negative: no cap.
	MaxRCU float64
	// PageSize is the Limit of each Scan page; smaller pages pace more
	// smoothly under a low MaxRCU. Default: 0 (DynamoDB's 1 MB pages).
	PageSize int32
	// ConsistentRead reads strongly consistent, at twice the cost. A
	// restored table is at rest: the default, false, reads it exactly.
	ConsistentRead bool
	// Buckets is the number of spill files the facts are joined in.
	// Default: one per 200,000 items of DescribeTable's ItemCount, at
	// least 1.
	Buckets int
	// SpillDir is where the spill files go, removed at the end. Default:
	// os.TempDir().
	SpillDir string
	// MaxViolations bounds the violations a Report lists; Counts counts
	// them all. Default: 1000.
	MaxViolations int
	// RecordExpiry is how long an idempotency record outlives its effect
	// (IDEMPOTENCY_EXPIRY). Every effect younger than that, counted back
	// from the newest record in the table, must have its record.
	// Default: 24h. Negative: effects are not checked for records.
	RecordExpiry time.Duration
	// InFlight bounds how long after the time a flow stamps on its items
	// its transaction may still commit. A live pass ([Check], [Confirm])
	// checks an effect for its idempotency record only when the effect is
	// older than the pass's start by this much: the scan may have read the
	// record's partition before a younger one's transaction committed, and
	// the effect does not name its record's partition, so no re-read can
	// find it. Default: DefaultInFlight. Negative: no margin.
	InFlight time.Duration
	// Progress, if set, is called every ProgressEvery during the scan and
	// once at its end.
	Progress func(Progress)
	// ProgressEvery is the interval of Progress. Default: 5s.
	ProgressEvery time.Duration
	// Clock returns the current time. Default: time.Now.
	Clock func() time.Time
}

// DefaultInFlight is Options.InFlight's default: three times the money
// functions' timeout (constructs/gofunction, 10s), so that a transaction
// stamped in an invocation was sent, and committed or refused, before.
const DefaultInFlight = 30 * time.Second

// ErrNoTable is returned when Options.Table is empty.
var ErrNoTable = errors.New("verify: no table name")

func (o Options) withDefaults() Options {
	o.Schema = o.Schema.WithDefaults()
	o.Keys = o.Keys.WithDefaults()
	if o.Segments <= 0 {
		o.Segments = 4
	}
	if o.MaxRCU == 0 {
		o.MaxRCU = 200
	}
	if o.MaxViolations <= 0 {
		o.MaxViolations = 1000
	}
	if o.RecordExpiry == 0 {
		o.RecordExpiry = 24 * time.Hour
	}
	if o.InFlight == 0 {
		o.InFlight = DefaultInFlight
	}
	if o.ProgressEvery <= 0 {
		o.ProgressEvery = 5 * time.Second
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	return o
}

// ItemsPerBucket is how many items of the table's estimated count each
// spill bucket is sized for.
const ItemsPerBucket = 200_000

// Progress is how far a scan has come.
type Progress struct {
	Items          int64         `json:"items"`
	Pages          int64         `json:"pages"`
	ConsumedRCU    float64       `json:"consumedRCU"`
	SegmentsDone   int           `json:"segmentsDone"`
	Segments       int           `json:"segments"`
	EstimatedItems int64         `json:"estimatedItems"` // DescribeTable's ItemCount (updated about every 6 hours)
	Elapsed        time.Duration `json:"elapsedNs"`
}

// Table checks the money invariants of a table. It returns an error when
// the table could not be read; violations are in the Report.
func Table(ctx context.Context, db DB, opts ...func(*Options)) (*Report, error) {
	var o Options
	for _, f := range opts {
		f(&o)
	}
	o = o.withDefaults()
	if o.Table == "" {
		return nil, ErrNoTable
	}
	start := o.Clock()
	desc, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(o.Table)})
	if err != nil {
		return nil, fmt.Errorf("verify: describe table %s: %w", o.Table, err)
	}
	estimate := aws.ToInt64(desc.Table.ItemCount)
	if o.Buckets <= 0 {
		o.Buckets = max(1, int((estimate+ItemsPerBucket-1)/ItemsPerBucket))
	}
	sp, err := newSpill(o.SpillDir, o.Buckets)
	if err != nil {
		return nil, err
	}
	defer sp.close()
	s := &scan{o: o, db: db, sp: sp, rd: newReader(store.NewBuilder(o.Table, o.Schema), o.Keys),
		pace: &pacer{rate: o.MaxRCU, clock: o.Clock}, start: start, estimate: estimate}
	if err := s.run(ctx); err != nil {
		return nil, err
	}
	rep := &Report{Table: o.Table, Counts: map[Kind]int{}, Segments: o.Segments, Buckets: o.Buckets, ConsistentRead: o.ConsistentRead,
		Users: s.counts.Users, LedgerEntries: s.counts.LedgerEntries, Orders: s.counts.Orders, Summaries: s.counts.Summaries,
		Payments: s.counts.Payments, Records: s.counts.Records, OtherItems: s.counts.Other, Items: s.counts.Items,
		Pages: s.pages.Load(), ConsumedRCU: s.rcu(), Untotalled: s.counts.Untotalled}
	recent := recentSince(s.counts.Newest, o.RecordExpiry)
	err = sp.each(func(kind byte, g *group) {
		checkGroup(kind, g, recent, o.RecordExpiry, func(v Violation) {
			rep.Counts[v.Kind]++
			if len(rep.Violations) < o.MaxViolations {
				rep.Violations = append(rep.Violations, v)
			} else {
				rep.Truncated = true
			}
		})
	})
	if err != nil {
		return nil, err
	}
	checkPlatform(s.counts.Platform, s.counts.Untotalled, rep.add(o.MaxViolations))
	sort.SliceStable(rep.Violations, func(i, j int) bool { return kindOrder(rep.Violations[i].Kind) < kindOrder(rep.Violations[j].Kind) })
	rep.Elapsed = o.Clock().Sub(start)
	rep.finish()
	return rep, nil
}

// recentSince says whether a time (keys.Timestamp's form) is within
// expiry before newest: an effect that recent must still have its record.
// With no record in the table, or expiry negative, nothing is.
func recentSince(newest time.Time, expiry time.Duration) func(string) bool {
	if newest.IsZero() || expiry < 0 {
		return func(string) bool { return false }
	}
	cutoff := keys.Timestamp(newest.Add(-expiry))
	return func(at string) bool { return at != "" && at > cutoff }
}

func kindOrder(k Kind) int {
	for i, x := range Kinds {
		if x == k {
			return i
		}
	}
	return len(Kinds)
}

// scan is one parallel Scan of the table into the spill.
type scan struct {
	o        Options
	db       DB
	sp       *spill
	rd       *reader
	pace     *pacer
	start    time.Time
	estimate int64

	mu       sync.Mutex
	counts   counts
	units    float64
	segsDone int
	pages    atomic.Int64
}

func (s *scan) rcu() float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.units
}

func (s *scan) run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make(chan error, s.o.Segments)
	var wg sync.WaitGroup
	for seg := range s.o.Segments {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.segment(ctx, int32(seg)); err != nil {
				errs <- err
				cancel()
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	if s.o.Progress != nil {
		tick := time.NewTicker(s.o.ProgressEvery)
		defer tick.Stop()
	loop:
		for {
			select {
			case <-done:
				break loop
			case <-tick.C:
				s.o.Progress(s.progress())
			}
		}
		s.o.Progress(s.progress())
	}
	<-done
	close(errs)
	return <-errs
}

func (s *scan) progress() Progress {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Progress{Items: s.counts.Items, Pages: s.pages.Load(), ConsumedRCU: s.units, SegmentsDone: s.segsDone,
		Segments: s.o.Segments, EstimatedItems: s.estimate, Elapsed: s.o.Clock().Sub(s.start)}
}

func (s *scan) segment(ctx context.Context, seg int32) error {
	in := &dynamodb.ScanInput{TableName: aws.String(s.o.Table), Segment: aws.Int32(seg), TotalSegments: aws.Int32(int32(s.o.Segments)),
		ConsistentRead: aws.Bool(s.o.ConsistentRead), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal}
	if s.o.PageSize > 0 {
		in.Limit = aws.Int32(s.o.PageSize)
	}
	var facts []fact
	for {
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
		facts = facts[:0]
		for _, item := range out.Items {
			facts = s.rd.facts(item, &c, facts)
		}
		if err := s.sp.add(facts); err != nil {
			return err
		}
		s.pages.Add(1)
		s.mu.Lock()
		s.counts.add(c)
		s.units += units
		if len(out.LastEvaluatedKey) == 0 {
			s.segsDone++
		}
		s.mu.Unlock()
		if len(out.LastEvaluatedKey) == 0 {
			return nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// pacer spaces requests so that the capacity they consume averages at
// most rate units per second: each page's units push the next request's
// earliest start back by units/rate.
type pacer struct {
	mu    sync.Mutex
	rate  float64 // negative: no pacing
	clock func() time.Time
	next  time.Time
}

func (p *pacer) wait(ctx context.Context) error {
	if p.rate < 0 {
		return ctx.Err()
	}
	p.mu.Lock()
	d := p.next.Sub(p.clock())
	p.mu.Unlock()
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (p *pacer) spend(units float64) {
	if p.rate < 0 || units <= 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.clock()
	if p.next.Before(now) {
		p.next = now
	}
	p.next = p.next.Add(time.Duration(units / p.rate * float64(time.Second)))
}
