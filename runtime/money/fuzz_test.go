package money_test

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/oncetable/oncetable/runtime/money"
)

// FuzzParseJSON: no input panics; an accepted amount is exactly a plain
// decimal integer literal in 1..MaxMinor with a known currency, and a
// rejected one fails with one of the package's sentinels. Seed corpus:
// testdata/fuzz/FuzzParseJSON (run by plain go test).
func FuzzParseJSON(f *testing.F) {
	f.Fuzz(func(t *testing.T, raw, currency string) {
		a, err := money.ParseJSON(json.RawMessage(raw), currency)
		if err != nil {
			var me *money.Error
			if !errors.As(err, &me) || !(errors.Is(err, money.ErrInvalidAmount) || errors.Is(err, money.ErrOverflow) || errors.Is(err, money.ErrUnknownCurrency)) {
				t.Fatalf("ParseJSON(%q, %q) error %v is not a *money.Error with a sentinel", raw, currency, err)
			}
			return
		}
		if a.Minor < 1 || a.Minor > money.MaxMinor {
			t.Fatalf("ParseJSON(%q, %q) = %d, outside 1..%d", raw, currency, a.Minor, money.MaxMinor)
		}
		if got := strconv.FormatInt(a.Minor, 10); got != strings.TrimSpace(raw) {
			t.Fatalf("ParseJSON(%q, %q) accepted a literal that is not the plain integer %s", raw, currency, got)
		}
		if string(a.Currency) != currency || a.Currency.Exponent() < 0 {
			t.Fatalf("ParseJSON(%q, %q) currency = %q", raw, currency, a.Currency)
		}
		_ = a.String() // must not panic for any accepted amount
	})
}
