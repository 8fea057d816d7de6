package idemhttp

import (
	"errors"
	"testing"

	"github.com/oncetable/oncetable/runtime/idempotency"
)

// FuzzValidateKey: no header value panics; an accepted Idempotency-Key is
// exactly 1..MaxKeyLength bytes of printable ASCII, a refused one fails
// with idempotency.ErrKeyMissing or ErrKeyInvalid; a key and its
// Structured Field string form parse alike. Seed corpus:
// testdata/fuzz/FuzzValidateKey (the second argument is unused).
func FuzzValidateKey(f *testing.F) {
	f.Fuzz(func(t *testing.T, key string, _ []byte) {
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
		case err != nil && !errors.Is(err, idempotency.ErrKeyMissing) && !errors.Is(err, ErrKeyInvalid):
			t.Fatalf("ValidateKey(%q) = %v, not a sentinel", key, err)
		}
	})
}
