package migrate

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/retry"
)

// Report counts what a sweep did.
type Report struct {
	Scanned int // items the Scan returned, internal ones excluded
	Matched int // items the job handled
	Written int // items it changed
	Skipped int // items already as the job leaves them
	// Consumed is the capacity units the sweep used, as DynamoDB reported.
	Consumed float64
	// Throttled counts the calls retried because they were throttled.
	Throttled int
}

func (r *Report) add(o Report) {
	r.Scanned += o.Scanned
	r.Matched += o.Matched
	r.Written += o.Written
	r.Skipped += o.Skipped
	r.Consumed += o.Consumed
	r.Throttled += o.Throttled
}

// job is one kind of sweep: a Scan of every segment calling op on each
// matched item that selects accepts.
type job struct {
	name       string
	selects    func(Item) bool
	op         func(ctx context.Context, it Item, key string) (wrote bool, units float64, err error)
	checkpoint bool // false for read-only jobs (verify), which always scan in full
}

// sweep runs j over every segment in parallel, resuming from the segments'
// checkpoints of st's epoch. Items whose op fails with a *TransformError
// stop their segment there; the other segments go on.
func (mg *Migrator) sweep(ctx context.Context, st State, j job) (Report, error) {
	var (
		mu      sync.Mutex
		total   Report
		failed  []*TransformError
		errs    []error
		wg      sync.WaitGroup
		lim     = newLimiter(mg.opts.Budget)
		started = time.Now()
		before  = mg.throttled.Load()
	)
	finished := 0
	for seg := 0; seg < mg.opts.Segments; seg++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := &segment{mg: mg, st: st, j: j, n: seg, lim: lim}
			s.progress = func(r Report, done bool) {
				mu.Lock()
				defer mu.Unlock()
				total.add(r)
				total.Throttled = int(mg.throttled.Load() - before)
				if done {
					finished++
				}
				if mg.opts.Progress != nil {
					mg.opts.Progress(Progress{Job: j.name, Segment: seg, Report: total, Elapsed: time.Since(started), Segments: mg.opts.Segments, Finished: finished})
				}
			}
			te, err := s.run(ctx)
			mu.Lock()
			defer mu.Unlock()
			if te != nil {
				failed = append(failed, te)
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("segment %d: %w", seg, err))
			}
		}()
	}
	wg.Wait()
	total.Throttled = int(mg.throttled.Load() - before)
	if len(errs) > 0 {
		return total, fmt.Errorf("migrate: %s of %s: %w", j.name, mg.m.Name, errors.Join(errs...))
	}
	if len(failed) > 0 {
		return total, &ItemsError{Job: j.name, Items: failed}
	}
	return total, nil
}

// segment is one Scan segment of a sweep.
type segment struct {
	mg       *Migrator
	st       State
	j        job
	n        int
	lim      *limiter
	progress func(r Report, done bool)
}

func (s *segment) run(ctx context.Context) (*TransformError, error) {
	start, done, err := s.mg.loadCheckpoint(ctx, s.st, s.j, s.n)
	if err != nil || done {
		return nil, err
	}
	for {
		out, rep, err := s.scan(ctx, start)
		if err != nil {
			return nil, err
		}
		last, te, err := s.page(ctx, out.Items, start, &rep)
		if te != nil || err != nil {
			s.progress(rep, false)
			return te, errors.Join(err, s.mg.saveCheckpoint(ctx, s.st, s.j, s.n, last, false))
		}
		next, done := out.LastEvaluatedKey, len(out.LastEvaluatedKey) == 0
		if err := s.mg.saveCheckpoint(ctx, s.st, s.j, s.n, next, done); err != nil {
			return nil, err
		}
		s.progress(rep, done)
		if done {
			return nil, nil
		}
		start = next
	}
}

func (s *segment) scan(ctx context.Context, start Item) (*dynamodb.ScanOutput, Report, error) {
	mg := s.mg
	in := &dynamodb.ScanInput{TableName: aws.String(mg.table), Segment: aws.Int32(int32(s.n)), TotalSegments: aws.Int32(int32(mg.opts.Segments)),
		Limit: aws.Int32(mg.opts.PageSize), ExclusiveStartKey: start, ConsistentRead: aws.Bool(true), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal}
	if mg.m.Filter != nil {
		e, err := expression.NewBuilder().WithFilter(*mg.m.Filter).Build()
		if err != nil {
			return nil, Report{}, fmt.Errorf("migrate: filter of %s: %w", mg.m.Name, err)
		}
		in.FilterExpression, in.ExpressionAttributeNames, in.ExpressionAttributeValues = e.Filter(), e.Names(), e.Values()
	}
	var out *dynamodb.ScanOutput
	err := mg.call(ctx, func(ctx context.Context) (err error) {
		out, err = mg.client.Scan(ctx, in)
		return err
	})
	if err != nil {
		return nil, Report{}, err
	}
	u := units(out.ConsumedCapacity, 0.5)
	return out, Report{Consumed: u}, s.lim.take(ctx, u)
}

// page handles one page's items; it returns the key of the last item
// handled, where a resume would start after.
func (s *segment) page(ctx context.Context, items []Item, start Item, rep *Report) (Item, *TransformError, error) {
	mg, last := s.mg, start
	for _, it := range items {
		pk := getS(it, mg.opts.Schema.PartitionKey)
		if strings.HasPrefix(pk, internalPrefix) {
			last = mg.keyOf(it)
			continue
		}
		rep.Scanned++
		if mg.m.Match(it) && (s.j.selects == nil || s.j.selects(it)) {
			rep.Matched++
			wrote, u, err := s.j.op(ctx, it, formatKey(it, mg.shape.keyAttrs))
			var te *TransformError
			if errors.As(err, &te) {
				return last, te, nil
			}
			if err != nil {
				return last, nil, err
			}
			rep.Consumed += u
			if wrote {
				rep.Written++
			} else {
				rep.Skipped++
			}
			if err := s.lim.take(ctx, u); err != nil {
				return last, nil, err
			}
		}
		last = mg.keyOf(it)
	}
	return last, nil, nil
}

func (mg *Migrator) keyOf(it Item) Item {
	return Item{mg.opts.Schema.PartitionKey: it[mg.opts.Schema.PartitionKey], mg.opts.Schema.SortKey: it[mg.opts.Schema.SortKey]}
}

// call runs fn with the retry policy, counting throttled retries.
func (mg *Migrator) call(ctx context.Context, fn func(context.Context) error) error {
	p := mg.opts.Retry
	user := p.OnRetry
	p.OnRetry = func(k retry.Kind, attempt int) {
		if k == retry.Throttled {
			mg.throttled.Add(1)
		}
		if user != nil {
			user(k, attempt)
		}
	}
	return retry.Do(ctx, p, func(int) error { return fn(ctx) })
}

// units reads a ConsumedCapacity, or def when the service sent none.
func units(c *types.ConsumedCapacity, def float64) float64 {
	if c == nil || c.CapacityUnits == nil {
		return def
	}
	return *c.CapacityUnits
}

// limiter is a token bucket of capacity units refilled at rate per second,
// with one second of burst. take goes into debt and sleeps it off, so a
// large item is never refused.
type limiter struct {
	mu     sync.Mutex
	rate   float64
	tokens float64
	last   time.Time
}

func newLimiter(rate float64) *limiter { return &limiter{rate: rate, tokens: rate, last: time.Now()} }

func (l *limiter) take(ctx context.Context, n float64) error {
	l.mu.Lock()
	now := time.Now()
	l.tokens = min(l.rate, l.tokens+now.Sub(l.last).Seconds()*l.rate)
	l.last = now
	l.tokens -= n
	wait := time.Duration(-l.tokens / l.rate * float64(time.Second))
	l.mu.Unlock()
	if wait <= 0 {
		return nil
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-t.C:
		return nil
	}
}
