package migrate

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Sentinel errors, each wrapped by the typed errors below.
var (
	ErrInvalidMigration = errors.New("migrate: invalid migration")
	ErrUnknownMigration = errors.New("migrate: unknown migration")
	ErrPhaseOrder       = errors.New("migrate: phase out of order")
	ErrLeaseHeld        = errors.New("migrate: another migrator holds the lease")
	ErrInvalidTransform = errors.New("migrate: invalid transform result")
	ErrItems            = errors.New("migrate: items failed")
	ErrMismatch         = errors.New("migrate: old and new shapes differ")
	ErrStalePhase       = errors.New("migrate: phase kept changing under the writer")
	ErrConcurrentChange = errors.New("migrate: phase state changed concurrently")
)

// PhaseError is a transition the state does not allow.
type PhaseError struct {
	Migration string
	Current   Phase
	Requested Phase
	Reason    string
}

func (e *PhaseError) Error() string {
	return fmt.Sprintf("%v: %s is in phase %s, cannot go to %s: %s", ErrPhaseOrder, e.Migration, e.Current, e.Requested, e.Reason)
}

func (e *PhaseError) Unwrap() error { return ErrPhaseOrder }

// LeaseHeldError names the migrator that holds the lease.
type LeaseHeldError struct {
	Holder string
	Until  time.Time
}

func (e *LeaseHeldError) Error() string {
	return fmt.Sprintf("%v: %q until %s", ErrLeaseHeld, e.Holder, e.Until.UTC().Format(time.RFC3339))
}

func (e *LeaseHeldError) Unwrap() error { return ErrLeaseHeld }

// TransformError is a transform that failed on one item.
type TransformError struct {
	Key string
	Err error
}

func (e *TransformError) Error() string { return fmt.Sprintf("item %s: %v", e.Key, e.Err) }
func (e *TransformError) Unwrap() error { return e.Err }

// ItemsError lists the items a sweep (backfill, cleanup, rollback) stopped
// at. Their segments are checkpointed before them, so a rerun resumes there.
type ItemsError struct {
	Job   string
	Items []*TransformError
}

func (e *ItemsError) Error() string {
	msgs := make([]string, len(e.Items))
	for i, it := range e.Items {
		msgs[i] = it.Error()
	}
	return fmt.Sprintf("%v: %s stopped at %d item(s): %s", ErrItems, e.Job, len(e.Items), strings.Join(msgs, "; "))
}

func (e *ItemsError) Unwrap() error { return ErrItems }

// Mismatch is one item whose new shape differs from what the transform
// makes of its old shape.
type Mismatch struct {
	Key       string
	Attribute string // "" when the whole item is not migrated
	Want, Got string
	Reason    string
}

func (m Mismatch) String() string {
	if m.Attribute == "" {
		return fmt.Sprintf("%s: %s", m.Key, m.Reason)
	}
	return fmt.Sprintf("%s: %s %s: want %s, got %s", m.Key, m.Attribute, m.Reason, m.Want, m.Got)
}

// VerifyError reports every mismatch verify found.
type VerifyError struct {
	Checked    int
	Mismatches []Mismatch
}

func (e *VerifyError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v: %d of %d item(s)", ErrMismatch, len(e.Mismatches), e.Checked)
	for _, m := range e.Mismatches {
		b.WriteString("\n  " + m.String())
	}
	return b.String()
}

func (e *VerifyError) Unwrap() error { return ErrMismatch }
