package money_test

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/oncetable/oncetable/runtime/money"
)

// Zero and negative integers get the same reason: the number is of the
// right kind, only not positive (bad-input catalogue).
func TestParseJSONReason(t *testing.T) {
	for _, tt := range []struct{ raw, want string }{
		{`0`, "must be a positive integer of minor units"},
		{`-5`, "must be a positive integer of minor units"},
		{`-0`, "must be a positive integer of minor units"},
		{`-5.5`, "must be a JSON integer of minor units"},
		{`-`, "must be a JSON integer of minor units"},
		{`12.5`, "must be a JSON integer of minor units"},
	} {
		_, err := money.ParseJSON(json.RawMessage(tt.raw), "EUR")
		var me *money.Error
		if !errors.As(err, &me) || me.Reason != tt.want {
			t.Errorf("ParseJSON(%s): %v, want reason %q", tt.raw, err, tt.want)
		}
	}
}

func TestParseJSON(t *testing.T) {
	tests := []struct {
		name     string
		raw      string
		currency string
		want     money.Amount
		wantErr  error
	}{
		{"cents", `1250`, "EUR", money.Amount{Minor: 1250, Currency: "EUR"}, nil},
		{"one", `1`, "JPY", money.Amount{Minor: 1, Currency: "JPY"}, nil},
		{"maximum", `1000000000000`, "USD", money.Amount{Minor: money.MaxMinor, Currency: "USD"}, nil},
		{"above maximum", `1000000000001`, "USD", money.Amount{}, money.ErrOverflow},
		{"beyond int64", `99999999999999999999999`, "USD", money.Amount{}, money.ErrOverflow},
		{"zero", `0`, "EUR", money.Amount{}, money.ErrInvalidAmount},
		{"negative", `-5`, "EUR", money.Amount{}, money.ErrInvalidAmount},
		{"float", `12.5`, "EUR", money.Amount{}, money.ErrInvalidAmount},
		{"float with zero fraction", `12.0`, "EUR", money.Amount{}, money.ErrInvalidAmount},
		{"exponent", `1e3`, "EUR", money.Amount{}, money.ErrInvalidAmount},
		{"string", `"1250"`, "EUR", money.Amount{}, money.ErrInvalidAmount},
		{"null", `null`, "EUR", money.Amount{}, money.ErrInvalidAmount},
		{"missing", ``, "EUR", money.Amount{}, money.ErrInvalidAmount},
		{"leading zero", `0012`, "EUR", money.Amount{}, money.ErrInvalidAmount},
		{"unknown currency", `100`, "EUX", money.Amount{}, money.ErrUnknownCurrency},
		{"lower-case currency", `100`, "eur", money.Amount{}, money.ErrUnknownCurrency},
		{"empty currency", `100`, "", money.Amount{}, money.ErrUnknownCurrency},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := money.ParseJSON(json.RawMessage(tt.raw), tt.currency)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("ParseJSON(%s, %q) error = %v, want %v", tt.raw, tt.currency, err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("ParseJSON(%s, %q) = %+v, want %+v", tt.raw, tt.currency, got, tt.want)
			}
			var me *money.Error
			if err != nil && !errors.As(err, &me) {
				t.Errorf("error %v is not a *money.Error", err)
			}
		})
	}
}

func TestString(t *testing.T) {
	tests := []struct {
		minor    int64
		currency money.Currency
		want     string
	}{
		{1250, "EUR", "12.50 EUR"},
		{5, "EUR", "0.05 EUR"},
		{1250, "JPY", "1250 JPY"},
		{1, "BHD", "0.001 BHD"},
		{-1234, "KWD", "-1.234 KWD"},
		{0, "USD", "0.00 USD"},
	}
	for _, tt := range tests {
		if got := money.Format(tt.minor, tt.currency); got != tt.want {
			t.Errorf("Format(%d, %s) = %q, want %q", tt.minor, tt.currency, got, tt.want)
		}
	}
}

func TestArithmetic(t *testing.T) {
	eur := func(m int64) money.Amount { return money.Amount{Minor: m, Currency: "EUR"} }
	tests := []struct {
		name    string
		op      func() (money.Amount, error)
		want    money.Amount
		wantErr error
	}{
		{"add", func() (money.Amount, error) { return eur(100).Add(eur(250)) }, eur(350), nil},
		{"add currencies differ", func() (money.Amount, error) { return eur(100).Add(money.Amount{Minor: 1, Currency: "USD"}) }, money.Amount{}, money.ErrCurrencyMismatch},
		{"add overflow", func() (money.Amount, error) { return eur(money.MaxMinor).Add(eur(1)) }, money.Amount{}, money.ErrOverflow},
		{"mul", func() (money.Amount, error) { return eur(250).Mul(3) }, eur(750), nil},
		{"mul overflow", func() (money.Amount, error) { return eur(money.MaxMinor/2 + 1).Mul(2) }, money.Amount{}, money.ErrOverflow},
		{"mul zero", func() (money.Amount, error) { return eur(1).Mul(0) }, money.Amount{}, money.ErrInvalidAmount},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.op()
			if !errors.Is(err, tt.wantErr) || got != tt.want {
				t.Errorf("got %+v, %v; want %+v, %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestCurrencyExponents(t *testing.T) {
	for code, want := range map[string]int{"EUR": 2, "USD": 2, "JPY": 0, "KRW": 0, "BHD": 3, "TND": 3, "XXX": -1} {
		if got := money.Currency(code).Exponent(); got != want {
			t.Errorf("%s exponent = %d, want %d", code, got, want)
		}
	}
}

func TestCurrencies(t *testing.T) {
	all := money.Currencies()
	if len(all) < 100 || !slices.IsSorted(all) {
		t.Fatalf("Currencies() = %d codes, sorted %v", len(all), slices.IsSorted(all))
	}
	for _, c := range all {
		if _, err := money.ParseCurrency(string(c)); err != nil {
			t.Errorf("Currencies() lists %s, which ParseCurrency refuses: %v", c, err)
		}
	}
}
