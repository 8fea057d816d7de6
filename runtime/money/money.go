package money

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// MaxMinor is the largest amount, in minor units, that any single request or
// balance may carry: 10^12 minor units (ten billion EUR, one trillion JPY).
// It leaves int64 headroom for sums of many amounts without overflow.
const MaxMinor int64 = 1_000_000_000_000

// Sentinel errors; every error returned by this package wraps one of them
// inside an [*Error].
var (
	ErrInvalidAmount    = errors.New("money: invalid amount")
	ErrUnknownCurrency  = errors.New("money: unknown currency")
	ErrCurrencyMismatch = errors.New("money: currency mismatch")
	ErrOverflow         = errors.New("money: amount above maximum")
)

// Error says which input was rejected and why.
type Error struct {
	Input  string
	Reason string
	err    error
}

func (e *Error) Error() string {
	return fmt.Sprintf("%v: %q: %s", e.err, e.Input, e.Reason)
}

func (e *Error) Unwrap() error { return e.err }

const reasonNotPositive = "must be a positive integer of minor units"

// Amount is a positive quantity of minor units of one currency.
type Amount struct {
	Minor    int64
	Currency Currency
}

// New checks minor and currency and returns the amount.
func New(minor int64, currency string) (Amount, error) {
	c, err := ParseCurrency(currency)
	if err != nil {
		return Amount{}, err
	}
	if minor <= 0 {
		return Amount{}, &Error{Input: strconv.FormatInt(minor, 10), Reason: reasonNotPositive, err: ErrInvalidAmount}
	}
	if minor > MaxMinor {
		return Amount{}, &Error{Input: strconv.FormatInt(minor, 10), Reason: fmt.Sprintf("must not exceed %d minor units", MaxMinor), err: ErrOverflow}
	}
	return Amount{Minor: minor, Currency: c}, nil
}

// ParseJSON parses a raw JSON value that must be an integer literal of minor
// units (no sign, fraction or exponent, not a string) and pairs it with the
// currency code.
func ParseJSON(raw json.RawMessage, currency string) (Amount, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return Amount{}, &Error{Input: s, Reason: "amount is required", err: ErrInvalidAmount}
	}
	if neg := strings.TrimPrefix(s, "-"); neg != s && neg != "" && strings.Trim(neg, "0123456789") == "" {
		// A negative integer is the right kind of number, just not positive.
		return Amount{}, &Error{Input: s, Reason: reasonNotPositive, err: ErrInvalidAmount}
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return Amount{}, &Error{Input: s, Reason: "must be a JSON integer of minor units", err: ErrInvalidAmount}
		}
	}
	if len(s) > 1 && s[0] == '0' {
		return Amount{}, &Error{Input: s, Reason: "must be a JSON integer of minor units", err: ErrInvalidAmount}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n > MaxMinor {
		return Amount{}, &Error{Input: s, Reason: fmt.Sprintf("must not exceed %d minor units", MaxMinor), err: ErrOverflow}
	}
	return New(n, currency)
}

// Add returns a+b. Both must share a currency and the sum must not exceed
// [MaxMinor].
func (a Amount) Add(b Amount) (Amount, error) {
	if a.Currency != b.Currency {
		return Amount{}, &Error{Input: string(a.Currency) + "+" + string(b.Currency), Reason: "different currencies", err: ErrCurrencyMismatch}
	}
	if a.Minor > MaxMinor-b.Minor {
		return Amount{}, &Error{Input: a.String() + "+" + b.String(), Reason: fmt.Sprintf("sum exceeds %d minor units", MaxMinor), err: ErrOverflow}
	}
	return Amount{Minor: a.Minor + b.Minor, Currency: a.Currency}, nil
}

// Mul returns a*n for a positive count n, within [MaxMinor].
func (a Amount) Mul(n int64) (Amount, error) {
	if n <= 0 {
		return Amount{}, &Error{Input: strconv.FormatInt(n, 10), Reason: "multiplier must be positive", err: ErrInvalidAmount}
	}
	if a.Minor > MaxMinor/n {
		return Amount{}, &Error{Input: fmt.Sprintf("%s*%d", a, n), Reason: fmt.Sprintf("product exceeds %d minor units", MaxMinor), err: ErrOverflow}
	}
	return Amount{Minor: a.Minor * n, Currency: a.Currency}, nil
}

// String renders the amount in major units with the currency's exponent,
// such as "12.50 EUR", "1250 JPY" or "-0.005 BHD".
func (a Amount) String() string {
	return Format(a.Minor, a.Currency)
}

// Format renders any signed minor-unit quantity (a balance may be zero) in
// major units of c.
func Format(minor int64, c Currency) string {
	exp := c.Exponent()
	sign := ""
	u := uint64(minor)
	if minor < 0 {
		sign = "-"
		u = uint64(-minor)
	}
	digits := strconv.FormatUint(u, 10)
	if exp <= 0 {
		return sign + digits + " " + string(c)
	}
	for len(digits) <= exp {
		digits = "0" + digits
	}
	cut := len(digits) - exp
	return sign + digits[:cut] + "." + digits[cut:] + " " + string(c)
}
