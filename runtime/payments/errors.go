package payments

import (
	"errors"
	"fmt"
	"strings"

	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/money"
	"github.com/oncetable/oncetable/runtime/store"
)

// Sentinel errors of the money flows. Each flow reads the per-item
// CancellationReasons of its transaction and returns one of these, wrapped
// with the entity and id.
var (
	ErrNotFound             = store.ErrNotFound
	ErrAlreadyExists        = store.ErrAlreadyExists
	ErrInsufficientFunds    = errors.New("insufficient funds")
	ErrAlreadyPaid          = errors.New("order already paid")
	ErrAmountMismatch       = errors.New("amount does not match the order")
	ErrCurrencyMismatch     = errors.New("currency does not match the balance or the order")
	ErrBalanceLimit         = errors.New("balance would exceed the maximum")
	ErrIdempotencyKeyReused = idempotency.ErrKeyReused
	ErrInvalidOrder         = errors.New("invalid order")
	ErrPriceMismatch        = errors.New("unit price differs from the catalogue")
	ErrNotCharged           = errors.New("order not charged")
	ErrSameAccount          = errors.New("the two accounts of a transfer are the same")
	ErrHoldNotOpen          = errors.New("hold is not open")
	ErrHoldExpired          = errors.New("hold expired")
	ErrExceedsHold          = errors.New("amount exceeds the hold")
	ErrTooManyHolds         = errors.New("too many open holds")
	ErrInvalidHold          = errors.New("invalid hold")
	ErrNotPaid              = errors.New("order not paid")
	ErrExceedsRefundable    = errors.New("amount exceeds what is left to refund")
	ErrOrderCancelled       = errors.New("order cancelled")
	ErrRefundRequired       = errors.New("order is paid: refund it instead of cancelling it")
	ErrInvalidTransition    = errors.New("order cannot make that fulfilment step")
)

// TransitionError is a fulfilment step (ship, deliver) asked of an order in
// a status it does not leave: not paid yet, a step skipped, taken back or
// taken twice, or an order refunded in full. Nothing was written.
type TransitionError struct {
	OrderID string
	// Status is the order's; To the status asked for, which only an order
	// in one of From reaches.
	Status string
	To     string
	From   []string
}

func (e *TransitionError) Error() string {
	return fmt.Sprintf("%v: order %q is %s, and only an order that is %s becomes %s", ErrInvalidTransition, e.OrderID, e.Status, strings.Join(e.From, " or "), e.To)
}

func (e *TransitionError) Unwrap() error { return ErrInvalidTransition }

// RefundableError is a refund of more than an order has left to refund
// (its total less its refunds). Nothing was written.
type RefundableError struct {
	OrderID    string
	Refundable money.Amount
	Requested  money.Amount
}

func (e *RefundableError) Error() string {
	if e.Refundable.Minor == 0 {
		return fmt.Sprintf("%v: order %q is refunded in full", ErrExceedsRefundable, e.OrderID)
	}
	return fmt.Sprintf("%v: order %q has %s left to refund, refund of %s", ErrExceedsRefundable, e.OrderID, e.Refundable, e.Requested)
}

func (e *RefundableError) Unwrap() error { return ErrExceedsRefundable }

// ExceedsHoldError is a capture of more than its hold holds. Nothing was
// written.
type ExceedsHoldError struct {
	Held      money.Amount
	Requested money.Amount
}

func (e *ExceedsHoldError) Error() string {
	return fmt.Sprintf("%v: held %s, capture of %s", ErrExceedsHold, e.Held, e.Requested)
}

func (e *ExceedsHoldError) Unwrap() error { return ErrExceedsHold }

// RecipientError is a transfer that the recipient's balance refused: the
// recipient does not exist (ErrNotFound), keeps another currency
// (ErrCurrencyMismatch) or would exceed the maximum (ErrBalanceLimit).
// Nothing was written.
type RecipientError struct {
	UserID string
	Err    error
}

func (e *RecipientError) Error() string { return fmt.Sprintf("recipient %q: %v", e.UserID, e.Err) }

func (e *RecipientError) Unwrap() error { return e.Err }

// PriceMismatchError is an order line whose unit price is not its catalogue
// product's. Nothing was written.
type PriceMismatchError struct {
	Line      int // 1-based
	ProductID string
	Catalogue money.Amount
	Got       money.Amount
}

func (e *PriceMismatchError) Error() string {
	return fmt.Sprintf("%v: items[%d] (product %q) has unit price %s, the catalogue %s", ErrPriceMismatch, e.Line-1, e.ProductID, e.Got, e.Catalogue)
}

func (e *PriceMismatchError) Unwrap() error { return ErrPriceMismatch }

// InsufficientFundsError is a debit or settle that the balance does not
// cover. Nothing was written.
type InsufficientFundsError struct {
	Available money.Amount
	Requested money.Amount
}

func (e *InsufficientFundsError) Error() string {
	return fmt.Sprintf("%v: available %s, requested %s", ErrInsufficientFunds,
		money.Format(e.Available.Minor, e.Available.Currency), e.Requested)
}

func (e *InsufficientFundsError) Unwrap() error { return ErrInsufficientFunds }

// AmountMismatchError says what the order expected.
type AmountMismatchError struct {
	Expected money.Amount
	Got      money.Amount
}

func (e *AmountMismatchError) Error() string {
	return fmt.Sprintf("%v: order total is %s, request says %s", ErrAmountMismatch, e.Expected, e.Got)
}

func (e *AmountMismatchError) Unwrap() error { return ErrAmountMismatch }
