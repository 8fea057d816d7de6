package retry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// Kind classifies a transient failure.
type Kind string

// Kinds of transient failure.
const (
	// Throttled: DynamoDB refused the request; nothing was written.
	Throttled Kind = "throttled"
	// Conflict: a transaction met another on one of its items (or is
	// still in progress); nothing of it was written.
	Conflict Kind = "conflict"
	// ServerFail: a 5xx or a transport failure; the outcome is unknown (a
	// write may have been applied). [Do] sends the call again, [DoWrite]
	// does not.
	ServerFail Kind = "server_error"
)

// ErrUnavailable is wrapped by [*UnavailableError].
var ErrUnavailable = errors.New("retry: service temporarily unavailable")

// UnavailableError is a transient failure that outlived its retries.
type UnavailableError struct {
	Kind       Kind
	Attempts   int
	RetryAfter time.Duration
	Cause      error
}

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("%v after %d attempts (%s): %v", ErrUnavailable, e.Attempts, e.Kind, e.Cause)
}

func (e *UnavailableError) Unwrap() []error { return []error{ErrUnavailable, e.Cause} }

// Policy bounds the retries. The zero value means the defaults below.
type Policy struct {
	// MaxAttempts counts the first call; default 5.
	MaxAttempts int
	// Base is the first backoff ceiling; default 10ms. It doubles per attempt.
	Base time.Duration
	// Cap is the largest backoff ceiling; default 200ms.
	Cap time.Duration
	// RetryAfter is the hint returned once retries are exhausted; default 1s.
	RetryAfter time.Duration
	// OnRetry, if set, is called before each retry (for metrics).
	OnRetry func(kind Kind, attempt int)
}

func (p Policy) withDefaults() Policy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = 5
	}
	if p.Base <= 0 {
		p.Base = 10 * time.Millisecond
	}
	if p.Cap <= 0 {
		p.Cap = 200 * time.Millisecond
	}
	if p.RetryAfter <= 0 {
		p.RetryAfter = time.Second
	}
	return p
}

// Backoff returns the full-jitter delay before retry number attempt (1-based).
func (p Policy) Backoff(attempt int) time.Duration {
	p = p.withDefaults()
	ceil := p.Base << min(attempt-1, 20)
	if ceil > p.Cap || ceil <= 0 {
		ceil = p.Cap
	}
	return time.Duration(rand.Int64N(int64(ceil)) + 1)
}

// Classify reports whether err is transient and of which kind.
func Classify(err error) (Kind, bool) {
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) {
		// A conflict anywhere makes the whole outcome uncertain (a concurrent
		// duplicate may be committing), so it is retried even when another
		// item's condition failed: the next attempt gives a definite answer.
		for _, r := range tce.CancellationReasons {
			switch code(r.Code) {
			case "TransactionConflict":
				return Conflict, true
			case "ThrottlingError", "ProvisionedThroughputExceeded", "RequestLimitExceeded":
				return Throttled, true
			}
		}
		return "", false
	}
	var tip *types.TransactionInProgressException
	if errors.As(err, &tip) {
		return Conflict, true
	}
	// A transport failure (reset, EOF) leaves the outcome unknown; every
	// write here is idempotent, so sending it again is how to learn it.
	var send *smithyhttp.RequestSendError
	if errors.As(err, &send) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.ErrUnexpectedEOF) {
		return ServerFail, true
	}
	var api smithy.APIError
	if errors.As(err, &api) {
		switch api.ErrorCode() {
		case "ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded":
			return Throttled, true
		case "TransactionConflictException":
			return Conflict, true
		case "InternalServerError", "ServiceUnavailable", "InternalFailure":
			return ServerFail, true
		}
		if api.ErrorFault() == smithy.FaultServer {
			return ServerFail, true
		}
	}
	return "", false
}

func code(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// Do calls fn until it succeeds, fails for a non-transient reason, the
// context ends, or the attempts are used up. fn receives the attempt number
// (0 first). fn must be safe to send again after an unknown outcome: a
// read, a TransactWriteItems with a ClientRequestToken, or a write whose
// replay leaves the same result.
func Do(ctx context.Context, p Policy, fn func(attempt int) error) error {
	return do(ctx, p, fn, true)
}

// DoWrite is [Do] for a write that is not safe to send again after an
// unknown outcome (a conditional Put whose replay would fail its own
// condition): throttling and conflicts, which wrote nothing, are retried;
// a 5xx or a transport failure is returned at once, as an
// [*UnavailableError] of kind ServerFail.
func DoWrite(ctx context.Context, p Policy, fn func(attempt int) error) error {
	return do(ctx, p, fn, false)
}

func do(ctx context.Context, p Policy, fn func(attempt int) error, resendUnknown bool) error {
	p = p.withDefaults()
	var err error
	var kind Kind
	for attempt := 0; attempt < p.MaxAttempts; attempt++ {
		if attempt > 0 {
			if p.OnRetry != nil {
				p.OnRetry(kind, attempt)
			}
			if Sleep(ctx, p.Backoff(attempt)) != nil {
				return &UnavailableError{Kind: kind, Attempts: attempt, RetryAfter: p.RetryAfter, Cause: err}
			}
		}
		err = fn(attempt)
		if err == nil {
			return nil
		}
		var transient bool
		kind, transient = Classify(err)
		if !transient {
			return err
		}
		if kind == ServerFail && !resendUnknown {
			return &UnavailableError{Kind: kind, Attempts: attempt + 1, RetryAfter: p.RetryAfter, Cause: err}
		}
	}
	return &UnavailableError{Kind: kind, Attempts: p.MaxAttempts, RetryAfter: p.RetryAfter, Cause: err}
}

// Sleep waits d, or less when ctx ends first; it then answers ctx.Err().
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
