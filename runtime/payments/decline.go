package payments

import (
	"context"
	"errors"
)

// declines are the refusals of a flow that started: the state it found
// said no. Each is stored under the request's key ([Service.Decline]), so
// a retry is refused the same way even after the state changed (a top-up
// after insufficient funds). Validation failures and missing entities are
// not declines: nothing started, and a corrected retry must run.
var declines = []error{ErrInsufficientFunds, ErrAlreadyPaid, ErrAmountMismatch, ErrCurrencyMismatch, ErrBalanceLimit, ErrPriceMismatch, ErrNotCharged,
	ErrHoldNotOpen, ErrHoldExpired, ErrExceedsHold, ErrTooManyHolds, ErrNotPaid, ErrExceedsRefundable,
	ErrOrderCancelled, ErrRefundRequired, ErrInvalidTransition}

// Declined reports whether err is a decline, whose answer is stored under
// the request's key.
func Declined(err error) bool {
	for _, d := range declines {
		if errors.Is(err, d) {
			return true
		}
	}
	return false
}

// Decline stores resp, the answer to a declined flow, under idem's key
// (one conditional PutItem), so that a retry with the key replays it. When
// the key already holds a record (a concurrent duplicate that succeeded or
// was declined first), Decline answers that record, replayed; another
// request under the key is ErrIdempotencyKeyReused.
func (s *Service) Decline(ctx context.Context, idem Idem, resp Response) (Response, error) {
	return s.Keep(ctx, idem, resp)
}

// Keep stores resp under idem's key with one conditional PutItem: the
// answer of a declined flow, or of a request that is not a money flow
// (creating a user) made idempotent by its key. A key that already holds a
// record is answered from it, replayed, or is ErrIdempotencyKeyReused.
func (s *Service) Keep(ctx context.Context, idem Idem, resp Response) (Response, error) {
	return s.records.Store(ctx, s.idemRequest(idem, ""), resp)
}

// Replay reads idem's record with one strongly consistent GetItem: its
// stored response, replayed, and true; false when the key holds none.
func (s *Service) Replay(ctx context.Context, idem Idem) (Response, bool, error) {
	return s.records.Lookup(ctx, s.idemRequest(idem, ""))
}
