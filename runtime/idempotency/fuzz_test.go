package idempotency

import (
	"errors"
	"testing"
)

// FuzzKey: no key panics; the core accepts every non-empty key (any bytes,
// any length: it is hashed, never stored) and refuses only the empty one
// with ErrKeyMissing; every accepted key hashes to 64 hex digits. The
// fingerprint of any body either fails or is stable under
// re-canonicalisation. Seed corpus: testdata/fuzz/FuzzKey.
func FuzzKey(f *testing.F) {
	f.Fuzz(func(t *testing.T, key string, body []byte) {
		err := Request{Scope: Scope{Caller: "iam:fuzz", Operation: "credit"}, Key: key, Fingerprint: "fp"}.check()
		switch {
		case key == "" && !errors.Is(err, ErrKeyMissing):
			t.Fatalf("check of the empty key = %v, want ErrKeyMissing", err)
		case key != "" && err != nil:
			t.Fatalf("check(%q) = %v, want nil: the core accepts any non-empty key", key, err)
		}
		if h := (Scope{Caller: "iam:fuzz", Operation: "credit"}).Hash(key); len(h) != 64 {
			t.Fatalf("Scope.Hash(%q) = %q, want 64 hex digits", key, h)
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
