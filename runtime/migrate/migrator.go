package migrate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
)

// Migrator moves one migration through its phases on one table. Its
// methods that change anything hold the table's migration lease.
type Migrator struct {
	client API
	table  string
	m      Migration
	opts   Options
	shape  shaper
	// throttled counts the calls retried for throttling.
	throttled atomic.Int64
}

// New returns a Migrator of m on table, or an error if m is invalid.
func New(client API, table string, m Migration, opts ...func(*Options)) (*Migrator, error) {
	if err := m.validate(); err != nil {
		return nil, err
	}
	var o Options
	for _, f := range opts {
		f(&o)
	}
	o = o.withDefaults()
	return &Migrator{client: client, table: table, m: m, opts: o,
		shape: shaper{m: m, keyAttrs: []string{o.Schema.PartitionKey, o.Schema.SortKey}, version: o.VersionAttribute}}, nil
}

// Status reads the migration's phase state.
func (mg *Migrator) Status(ctx context.Context) (State, error) {
	var st State
	err := mg.call(ctx, func(ctx context.Context) (err error) {
		st, err = readState(ctx, mg.client, mg.table, mg.opts.Schema, mg.m.Name)
		return err
	})
	return st, err
}

// Advance moves the migration to the next phase, which must be to. It does
// not do the phase's work (see [Migrator.Run]); it refuses to leave
// backfill or cleanup before their sweeps finished, or verify before a
// verify passed.
func (mg *Migrator) Advance(ctx context.Context, to Phase) (State, error) {
	var st State
	err := mg.withLease(ctx, func(ctx context.Context) error {
		cur, err := mg.Status(ctx)
		if err != nil {
			return err
		}
		st, err = mg.advance(ctx, cur, to)
		return err
	})
	return st, err
}

func (mg *Migrator) advance(ctx context.Context, st State, to Phase) (State, error) {
	next, ok := st.Phase.next()
	if !ok || next != to {
		return State{}, mg.phaseError(st, to, fmt.Sprintf("the next phase is %q", next))
	}
	var reason string
	switch st.Phase {
	case Mirror:
		if age := mg.opts.Clock().Sub(st.Entered); age < mg.opts.MirrorGrace {
			reason = fmt.Sprintf("mirror has lasted %s of its %s grace", age, mg.opts.MirrorGrace)
		}
	case Backfill, Cleanup:
		done, err := mg.swept(ctx, st, jobFor(st.Phase))
		if err != nil {
			return State{}, err
		}
		if !done {
			reason = fmt.Sprintf("the %s has not finished every segment (run it)", jobFor(st.Phase))
		}
	case Verify:
		if st.VerifiedEpoch != st.Epoch {
			reason = "no verify has passed in this phase (run verify)"
		}
	}
	if reason != "" {
		return State{}, mg.phaseError(st, to, reason)
	}
	return mg.transition(ctx, st, to, st.VerifiedEpoch, "")
}

func (mg *Migrator) phaseError(st State, to Phase, reason string) *PhaseError {
	return &PhaseError{Migration: mg.m.Name, Current: st.Phase, Requested: to, Reason: reason}
}

func jobFor(p Phase) string {
	switch p {
	case Backfill:
		return "backfill"
	case Cleanup:
		return "cleanup"
	}
	return string(p)
}

// Rollback moves the migration one phase back. From mirror it removes the
// new shape's attributes (writers have stopped maintaining them); from
// cleanup it restores the old shape with Migration.Restore first. Done
// cannot be rolled back.
func (mg *Migrator) Rollback(ctx context.Context) (State, error) {
	var st State
	err := mg.withLease(ctx, func(ctx context.Context) error {
		cur, err := mg.Status(ctx)
		if err != nil {
			return err
		}
		st, err = mg.rollback(ctx, cur)
		return err
	})
	return st, err
}

func (mg *Migrator) rollback(ctx context.Context, st State) (State, error) {
	if st.Pending != "" {
		return mg.finishPending(ctx, st)
	}
	prev, ok := st.Phase.previous()
	if !ok {
		return State{}, mg.phaseError(st, prev, "there is no rollback from "+string(st.Phase))
	}
	if st.Phase == Cleanup && mg.m.Restore == nil {
		return State{}, mg.phaseError(st, prev, "the migration has no Restore to rebuild the retired attributes")
	}
	// Writers must switch to the earlier shapes before the sweep, so that
	// none of them recreates what it removes.
	pending := map[Phase]string{Mirror: mg.stripJob().name, Cleanup: mg.restoreJob().name}[st.Phase]
	to, err := mg.transition(ctx, st, prev, 0, pending)
	if err != nil || pending == "" {
		return to, err
	}
	return mg.finishPending(ctx, to)
}

// finishPending runs (or resumes) the rollback sweep st owes, then clears it.
func (mg *Migrator) finishPending(ctx context.Context, st State) (State, error) {
	var j job
	switch st.Pending {
	case mg.stripJob().name:
		j = mg.stripJob()
	case mg.restoreJob().name:
		j = mg.restoreJob()
	default:
		return st, fmt.Errorf("migrate: META item of %s owes an unknown sweep %q", mg.m.Name, st.Pending)
	}
	if _, err := mg.sweep(ctx, st, j); err != nil {
		return st, err
	}
	if err := mg.updateMeta(ctx, st, expression.Set(expression.Name(attrPending), expression.Value("")), "finish "+j.name); err != nil {
		return st, err
	}
	st.Pending = ""
	return st, nil
}

// Run moves the migration forward to phase target, doing each phase's work
// on the way: the backfill, a full verify, the cleanup. A run that stops
// (killed, a failed item, a mismatch) is resumed by running it again.
func (mg *Migrator) Run(ctx context.Context, target Phase) (State, error) {
	if target.index() < 0 {
		return State{}, fmt.Errorf("%w: unknown phase %q", ErrPhaseOrder, target)
	}
	var st State
	err := mg.withLease(ctx, func(ctx context.Context) error {
		var err error
		if st, err = mg.Status(ctx); err != nil {
			return err
		}
		if st.Pending != "" {
			if st, err = mg.finishPending(ctx, st); err != nil {
				return err
			}
		}
		if st.Phase.index() > target.index() {
			return mg.phaseError(st, target, "it is past that phase (use rollback)")
		}
		for {
			if st, err = mg.work(ctx, st); err != nil || st.Phase == target {
				return err
			}
			next, _ := st.Phase.next()
			if st, err = mg.advance(ctx, st, next); err != nil {
				return err
			}
		}
	})
	return st, err
}

// work does phase st's work and returns the state after it.
func (mg *Migrator) work(ctx context.Context, st State) (State, error) {
	switch st.Phase {
	case Backfill:
		_, err := mg.sweep(ctx, st, mg.backfillJob())
		return st, err
	case Verify:
		if st.VerifiedEpoch == st.Epoch {
			return st, nil
		}
		st, _, err := mg.verifyAndMark(ctx, st)
		return st, err
	case Cleanup:
		_, err := mg.sweep(ctx, st, mg.cleanupJob())
		return st, err
	}
	return st, nil
}

// Shape returns old, an item in the old shape, as a writer in phase p must
// write it: unchanged before mirror, with the new shape's attributes and
// the version added from mirror to cutover, without the retired attributes
// from cleanup on. A writer writes the whole item this way (a Put) or sets
// the same attributes in its Update.
func (mg *Migrator) Shape(p Phase, old Item) (Item, error) {
	return mg.shape.shape(p, old, formatKey(old, mg.shape.keyAttrs))
}

// Shaper is [Migrator.Shape] without a client, for writers that only need
// the shapes of a migration's phases.
type Shaper struct{ s shaper }

// NewShaper returns the shapes of m under opts (Schema and
// VersionAttribute matter), or an error if m is invalid.
func NewShaper(m Migration, opts ...func(*Options)) (Shaper, error) {
	if err := m.validate(); err != nil {
		return Shaper{}, err
	}
	var o Options
	for _, f := range opts {
		f(&o)
	}
	o = o.withDefaults()
	return Shaper{s: shaper{m: m, keyAttrs: []string{o.Schema.PartitionKey, o.Schema.SortKey}, version: o.VersionAttribute}}, nil
}

// Shape is [Migrator.Shape].
func (s Shaper) Shape(p Phase, old Item) (Item, error) {
	return s.s.shape(p, old, formatKey(old, s.s.keyAttrs))
}

// Retired lists the attributes the old shape has and the new one drops.
func (s Shaper) Retired() []string { return slices.Clone(s.s.m.Retire) }

// verifyAndMark runs verify in phase verify and records its outcome: a pass
// lets the migration go on to cutover, a failure takes that back.
func (mg *Migrator) verifyAndMark(ctx context.Context, st State) (State, Report, error) {
	rep, err := mg.verify(ctx)
	var ve *VerifyError
	switch {
	case errors.As(err, &ve):
		if _, merr := mg.markVerified(ctx, st, 0); merr != nil {
			return st, rep, errors.Join(err, merr)
		}
		st.VerifiedEpoch = 0
		return st, rep, err
	case err != nil:
		return st, rep, err
	}
	st, err = mg.markVerified(ctx, st, st.Epoch)
	return st, rep, err
}
