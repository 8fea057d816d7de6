package attr

import "testing"

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
