package payments

import (
	"errors"
	"fmt"

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
)

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
