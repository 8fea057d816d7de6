package migrate

import (
	"fmt"
	"slices"
	"time"
)

// Phase is a step of a migration.
type Phase string

// The phases, in order. None is before the migration starts.
const (
	None     Phase = "none"
	Mirror   Phase = "mirror"   // writers write both shapes; readers read the old
	Backfill Phase = "backfill" // the backfill copies existing items into the new shape
	Verify   Phase = "verify"   // verify compares both shapes
	Cutover  Phase = "cutover"  // readers read the new shape; writers still write both
	Cleanup  Phase = "cleanup"  // writers write the new shape only; the old is removed
	Done     Phase = "done"
)

var phases = []Phase{None, Mirror, Backfill, Verify, Cutover, Cleanup, Done}

// Phases lists the phases in order.
func Phases() []Phase { return slices.Clone(phases) }

// ParsePhase reads a phase name.
func ParsePhase(s string) (Phase, error) {
	if i := slices.Index(phases, Phase(s)); i >= 0 {
		return phases[i], nil
	}
	return "", fmt.Errorf("%w: unknown phase %q (want one of %v)", ErrPhaseOrder, s, phases)
}

func (p Phase) index() int { return slices.Index(phases, p) }

// WritesOld reports whether writers write the old shape in phase p.
func (p Phase) WritesOld() bool { return p.index() <= Cutover.index() }

// WritesNew reports whether writers write the new shape in phase p.
func (p Phase) WritesNew() bool { return p.index() >= Mirror.index() }

// ReadsNew reports whether readers read the new shape in phase p.
func (p Phase) ReadsNew() bool { return p.index() >= Cutover.index() }

func (p Phase) next() (Phase, bool) {
	i := p.index()
	if i < 0 || i+1 >= len(phases) {
		return "", false
	}
	return phases[i+1], true
}

func (p Phase) previous() (Phase, bool) {
	i := p.index()
	if i <= 0 || p == Done {
		return "", false
	}
	return phases[i-1], true
}

// State is a migration's phase state, as the META item holds it.
type State struct {
	Migration string
	Phase     Phase
	// Epoch counts the transitions; writers fence on it, so a rollback and
	// a new advance into the same phase name still fence a stale writer.
	Epoch   int64
	Entered time.Time
	// Holder made the last transition.
	Holder string
	// VerifiedEpoch is the epoch in which verify last passed.
	VerifiedEpoch int64
	// Pending names a rollback sweep that has not finished in this phase
	// (removing the new shape, or restoring the old); the next Rollback or
	// Run finishes it first.
	Pending string
}
