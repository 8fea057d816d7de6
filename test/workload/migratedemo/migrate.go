package migratedemo

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/migrate"
	"github.com/oncetable/oncetable/runtime/migrate/orders"
	"github.com/oncetable/oncetable/runtime/retry"
)

// errKilled is the cause of the backfill's cancelled context.
var errKilled = errors.New("migratedemo: backfill killed on purpose")

// progress keeps the last report of each sweep job and calls onPage.
type progress struct {
	mu     sync.Mutex
	last   map[string]migrate.Report
	onPage func(migrate.Progress)
}

func (p *progress) observe(pr migrate.Progress) {
	p.mu.Lock()
	p.last[pr.Job] = pr.Report
	f := p.onPage
	p.mu.Unlock()
	if f != nil {
		f(pr)
	}
}

func (p *progress) take(job string) migrate.Report {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := p.last[job]
	delete(p.last, job)
	return r
}

// migrate runs orders-by-status-v2 from none to done: a killed and resumed
// backfill, a verify, a rollback from verify, then forward to done.
func (d *demo) migrate(ctx context.Context) error {
	m, err := orders.ByStatus(d.cfg.Shards, keys.Default)
	if err != nil {
		return err
	}
	pr := &progress{last: map[string]migrate.Report{}}
	// The migrator's own client, without the SDK's retries: the toolkit's
	// retries ride out the faults and count the throttled calls.
	db := d.live.Engine.Client(func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 })
	mg, err := migrate.New(db, d.live.Table, m, func(o *migrate.Options) {
		o.Holder, o.Budget, o.PageSize, o.Progress = "migrate-demo", d.cfg.Budget, 50, pr.observe
		o.Retry = retry.Policy{MaxAttempts: 12, Base: 20 * time.Millisecond, Cap: time.Second}
	})
	if err != nil {
		return err
	}
	if err := d.run(ctx, mg, migrate.Mirror); err != nil {
		return err
	}
	if err := d.killedBackfill(ctx, mg, pr); err != nil {
		return err
	}
	if err := d.verify(ctx, mg, pr, "verify passed"); err != nil {
		return err
	}
	st, err := d.rollback(ctx, mg)
	if err != nil {
		return err
	}
	d.logf("migrate rollback: verify -> %s (epoch %d): readers stay on GSI1, the verify pass is forgotten", st.Phase, st.Epoch)
	if err := d.dwell(ctx, string(st.Phase)); err != nil {
		return err
	}
	if err := d.verify(ctx, mg, pr, "verified"); err != nil {
		return err
	}
	for _, p := range []migrate.Phase{migrate.Cutover, migrate.Cleanup, migrate.Done} {
		if err := d.run(ctx, mg, p); err != nil {
			return err
		}
	}
	if r := pr.take("cleanup"); r.Matched > 0 {
		d.logf("  cleanup removed GSI1PK/GSI1SK from %d orders (%d already clean), %d throttled calls retried, %.0f capacity units", r.Written, r.Skipped, r.Throttled, r.Consumed)
	}
	return nil
}

// runTo is `migrate run -to p`, run again (it resumes) when it stopped
// because the table stayed unavailable through its retries, as an operator
// would run it again.
func (d *demo) runTo(ctx context.Context, mg *migrate.Migrator, p migrate.Phase) (migrate.State, error) {
	for attempt := 1; ; attempt++ {
		st, err := mg.Run(ctx, p)
		var ue *retry.UnavailableError
		if err == nil || !errors.As(err, &ue) || attempt == 3 {
			if err != nil {
				return st, fmt.Errorf("migratedemo: run -to %s: %w", p, err)
			}
			return st, nil
		}
		d.logf("migrate run -to %s stopped: the table stayed %s through %d attempts; running it again (it resumes)", p, ue.Kind, ue.Attempts)
	}
}

// rollback is `migrate rollback` from verify. Before it is run again
// after a failure, the status says whether it happened.
func (d *demo) rollback(ctx context.Context, mg *migrate.Migrator) (migrate.State, error) {
	for attempt := 1; ; attempt++ {
		st, err := mg.Rollback(ctx)
		var ue *retry.UnavailableError
		if err == nil || !errors.As(err, &ue) || attempt == 3 {
			if err != nil {
				return st, fmt.Errorf("migratedemo: rollback from verify: %w", err)
			}
			return st, nil
		}
		if cur, serr := mg.Status(ctx); serr == nil && cur.Phase == migrate.Backfill {
			return cur, nil
		}
		d.logf("migrate rollback stopped: the table stayed %s through %d attempts; running it again", ue.Kind, ue.Attempts)
	}
}

// run is `migrate run -to p`, then the phase's dwell.
func (d *demo) run(ctx context.Context, mg *migrate.Migrator, p migrate.Phase) error {
	st, err := d.runTo(ctx, mg, p)
	if err != nil {
		return err
	}
	d.logf("migrate run -to %s: phase %s (epoch %d)", p, st.Phase, st.Epoch)
	return d.dwell(ctx, string(st.Phase))
}

// killedBackfill starts the backfill, cancels it after its first pages,
// and runs it again, which resumes from the segments' checkpoints.
func (d *demo) killedBackfill(ctx context.Context, mg *migrate.Migrator, pr *progress) error {
	kctx, kill := context.WithCancelCause(ctx)
	defer kill(nil)
	pr.mu.Lock()
	pr.onPage = func(p migrate.Progress) {
		if p.Job == "backfill" && p.Report.Written >= 10 {
			kill(errKilled)
		}
	}
	pr.mu.Unlock()
	_, err := mg.Run(kctx, migrate.Backfill)
	pr.mu.Lock()
	pr.onPage = nil
	pr.mu.Unlock()
	killed := pr.take("backfill")
	if err == nil || !errors.Is(context.Cause(kctx), errKilled) {
		return fmt.Errorf("migratedemo: the backfill was not killed mid-sweep (err %v): it finished first; give it more items", err)
	}
	st, serr := mg.Status(ctx)
	if serr != nil {
		return serr
	}
	d.logf("migrate run -to backfill: killed mid-sweep (context cancelled) after %d items scanned, %d written; phase %s (epoch %d)",
		killed.Scanned, killed.Written, st.Phase, st.Epoch)
	items := d.itemCount(ctx)
	if st, err = d.runTo(ctx, mg, migrate.Backfill); err != nil {
		return err
	}
	r := pr.take("backfill")
	d.logf("migrate run -to backfill: resumed from the checkpoints: %d items scanned (table ~%d items), %d written, %d skipped (already in the new shape), %d throttled calls retried, %.0f capacity units",
		r.Scanned, items, r.Written, r.Skipped, r.Throttled, r.Consumed)
	return d.dwell(ctx, string(st.Phase))
}

// verify is `migrate run -to verify` (the backfill's remainder, then a full
// verify that must pass).
func (d *demo) verify(ctx context.Context, mg *migrate.Migrator, pr *progress, word string) error {
	st, err := d.runTo(ctx, mg, migrate.Verify)
	if err != nil {
		return err
	}
	if st.VerifiedEpoch != st.Epoch {
		return fmt.Errorf("migratedemo: run -to verify returned without a pass (%+v)", st)
	}
	if b := pr.take("backfill"); b.Scanned > 0 {
		d.logf("  backfill of epoch %d: %d scanned, %d written, %d skipped, %d throttled calls retried", st.Epoch, b.Scanned, b.Written, b.Skipped, b.Throttled)
	}
	r := pr.take("verify")
	d.logf("migrate run -to verify: %s: %d orders in both shapes agree (epoch %d)", word, r.Matched, st.Epoch)
	d.verified = fmt.Sprintf("%s passed verify in epoch %d: %d orders, every one in both shapes", orders.Name, st.Epoch, r.Matched)
	return d.dwell(ctx, string(st.Phase))
}

// itemCount is the table's item count as DescribeTable reports it.
func (d *demo) itemCount(ctx context.Context) int64 {
	out, err := d.live.DB.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(d.live.Table)})
	if err != nil {
		return -1
	}
	return aws.ToInt64(out.Table.ItemCount)
}
