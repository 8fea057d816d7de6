package idempotency

import (
	"errors"
	"fmt"
	"time"
)

// StatePending is the State of a record whose external-mode call has not
// completed yet.
const StatePending = "pending"

// ErrInProgress is wrapped by [*InProgressError].
var ErrInProgress = errors.New("idempotency: a request with this key is still in progress")

// InProgressError is a duplicate of an external-mode call that is still
// pending. Until is when the pending record stops blocking the key.
type InProgressError struct {
	Until time.Time
}

func (e *InProgressError) Error() string {
	return fmt.Sprintf("%v (until %s)", ErrInProgress, e.Until.UTC().Format(time.RFC3339))
}

func (e *InProgressError) Unwrap() error { return ErrInProgress }
