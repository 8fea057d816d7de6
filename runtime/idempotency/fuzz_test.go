package idempotency

import (
	"errors"
	"testing"
)

// FuzzValidateKey: no key panics; an accepted key is 1..MaxKeyLength bytes
// of printable ASCII, a rejected one fails with ErrKeyMissing or
// ErrKeyInvalid. The fingerprint of any body either fails or is stable
// under re-canonicalisation. Seed corpus: testdata/fuzz/FuzzValidateKey.
func FuzzValidateKey(f *testing.F) {
	f.Fuzz(func(t *testing.T, key string, body []byte) {
		err := ValidateKey(key)
		printable := len(key) >= 1 && len(key) <= MaxKeyLength
		for i := 0; i < len(key); i++ {
			if key[i] < 0x20 || key[i] > 0x7e {
				printable = false
			}
		}
		switch {
		case err == nil && !printable:
			t.Fatalf("ValidateKey(%q) accepted a key that is not 1..%d printable ASCII bytes", key, MaxKeyLength)
		case err != nil && printable:
			t.Fatalf("ValidateKey(%q) = %v, want nil", key, err)
		case err != nil && !errors.Is(err, ErrKeyMissing) && !errors.Is(err, ErrKeyInvalid):
			t.Fatalf("ValidateKey(%q) = %v, not a sentinel", key, err)
		}
		if err == nil {
			s := Scope{Caller: "iam:fuzz", Operation: "credit"}
			if h := s.Hash(key); len(h) != 64 {
				t.Fatalf("Scope.Hash(%q) = %q, want 64 hex digits", key, h)
			}
		}
		c, err := canonical(body)
		if err != nil {
			return
		}
		again, err := canonical(c)
		if err != nil || string(again) != string(c) {
			t.Fatalf("canonical is not idempotent on %q: %q then %q (%v)", body, c, again, err)
		}
	})
}
