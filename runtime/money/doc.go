// Package money is the value type for amounts: int64 minor units plus an
// ISO 4217 currency. There are no floats anywhere in it.
//
// Amounts reach the API as JSON integers of minor units ({"amount": 1250,
// "currency": "EUR"} is 12.50 EUR). [ParseJSON] accepts exactly that and
// rejects fractions, exponents, strings, zero, negatives, unknown currencies
// and anything above [MaxMinor]. [Amount.String] renders the amount with the
// currency's minor-unit exponent, for logs and humans, never for arithmetic.
//
// It is not for exchange rates, rounding or formatting for a locale.
package money
