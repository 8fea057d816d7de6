package idempotency

import (
	"errors"
	"fmt"
	"time"
)

// statePending is the state of a record whose external-mode call has not
// completed yet.
const statePending = "pending"

// ErrInProgress is wrapped by [*InProgressError].
var ErrInProgress = errors.New("idempotency: a request with this key is still in progress")

// InProgressError is a duplicate of an external-mode call that is still
// pending. Until is the first moment a retry can succeed: the pending
// record blocks the key before Until and not at or after it.
type InProgressError struct {
	Until time.Time
}

func (e *InProgressError) Error() string {
	return fmt.Sprintf("%v (until %s)", ErrInProgress, e.Until.UTC().Format(time.RFC3339))
}

func (e *InProgressError) Unwrap() error { return ErrInProgress }

// RetryAfter is how long from now a client should wait before trying again.
func (e *InProgressError) RetryAfter(now time.Time) time.Duration {
	return max(e.Until.Sub(now), time.Second)
}
