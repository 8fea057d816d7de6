package attr

import (
	"testing"

	"github.com/cockroachdb/apd/v3"
)

// canonicalSlow is CanonicalNumber without the fast path.
func canonicalSlow(text string) (string, error) {
	d, err := ParseNumber(text)
	if err != nil {
		return "", err
	}
	return formatNumber(d), nil
}

func FuzzCanonicalNumberFastPath(f *testing.F) {
	for _, s := range []string{"0", "-0", "1", "-1", "10", "100", "007", "12.5", "12.50", "0.5", "-0.5", "0.05", "0.0", "1.", ".5",
		"-", "", " 1", "1e2", "+1", "12345678901234567890123456789012345678", "123456789012345678901234567890123456789",
		"1234567890123456789012345678901234567.8", "0.00000000000000000000000000000000000001", "-0.10", "--1", "1-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got, err := CanonicalNumber(text)
		want, werr := canonicalSlow(text)
		if (err == nil) != (werr == nil) || got != want || (err != nil && err.Error() != werr.Error()) {
			t.Fatalf("CanonicalNumber(%q) = %q, %v; want %q, %v", text, got, err, want, werr)
		}
	})
}

func FuzzSmallIntArithmetic(f *testing.F) {
	for _, p := range [][2]string{{"1", "2"}, {"-5", "5"}, {"999999999999999999", "999999999999999999"}, {"-999999999999999999", "1"},
		{"0", "0"}, {"12.5", "1"}, {"1000000000000000000", "1"}, {"7", "-8"}} {
		f.Add(p[0], p[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		ca, err := CanonicalNumber(a)
		if err != nil {
			return
		}
		cb, err := CanonicalNumber(b)
		if err != nil {
			return
		}
		if got, want := compareNumbers(ca, cb), Decimal(ca).Cmp(Decimal(cb)); got != want {
			t.Fatalf("compare(%s, %s) = %d, want %d", ca, cb, got, want)
		}
		for _, sub := range []bool{false, true} {
			got, gerr := arithmetic(Value{T: N, S: ca}, Value{T: N, S: cb}, sub)
			want, werr := slowArithmetic(ca, cb, sub)
			if (gerr == nil) != (werr == nil) || got.S != want {
				t.Fatalf("arithmetic(%s, %s, sub=%v) = %q, %v; want %q, %v", ca, cb, sub, got.S, gerr, want, werr)
			}
		}
	})
}

// slowArithmetic is arithmetic without the integer fast path.
func slowArithmetic(a, b string, subtract bool) (string, error) {
	var r apd.Decimal
	var err error
	if subtract {
		_, err = arith.Sub(&r, Decimal(a), Decimal(b))
	} else {
		_, err = arith.Add(&r, Decimal(a), Decimal(b))
	}
	if err != nil {
		return "", err
	}
	if err := checkRange(&r); err != nil {
		return "", err
	}
	return formatNumber(&r), nil
}
