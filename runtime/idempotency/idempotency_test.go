package idempotency_test

import (
	"strings"
	"testing"

	"github.com/oncetable/oncetable/runtime/idempotency"
)

func TestFingerprintIsCanonical(t *testing.T) {
	a, err := idempotency.Fingerprint("POST", "/users/u1/debits", []byte(`{"amount": 100, "currency":"EUR"}`))
	if err != nil {
		t.Fatal(err)
	}
	same := []string{`{"currency":"EUR","amount":100}`, "\n{ \"currency\" : \"EUR\",\n \"amount\":100 }\n"}
	for _, body := range same {
		b, _ := idempotency.Fingerprint("POST", "/users/u1/debits", []byte(body))
		if b != a {
			t.Errorf("fingerprint of %q = %s, want %s", body, b, a)
		}
	}
	differ := []struct{ method, route, body string }{
		{"POST", "/users/u1/debits", `{"amount":101,"currency":"EUR"}`},
		{"POST", "/users/u1/debits", `{"amount":100.0,"currency":"EUR"}`},
		{"POST", "/users/u2/debits", `{"amount":100,"currency":"EUR"}`},
		{"POST", "/users/u1/credits", `{"amount":100,"currency":"EUR"}`},
		{"PUT", "/users/u1/debits", `{"amount":100,"currency":"EUR"}`},
	}
	for _, d := range differ {
		b, _ := idempotency.Fingerprint(d.method, d.route, []byte(d.body))
		if b == a {
			t.Errorf("fingerprint of %+v equals the original", d)
		}
	}
	if _, err := idempotency.Fingerprint("POST", "/x", []byte(`{"a":`)); err == nil {
		t.Error("malformed body: want error")
	}
}

func TestScopeSeparatesCallersAndOperations(t *testing.T) {
	k := "same-key"
	hashes := map[string]bool{}
	for _, s := range []idempotency.Scope{{"alice", "debit"}, {"bob", "debit"}, {"alice", "credit"}, {"alic", "edebit"}} {
		h := s.Hash(k)
		if hashes[h] {
			t.Errorf("scope %+v collides", s)
		}
		hashes[h] = true
		if strings.Contains(h, k) || len(h) != 64 {
			t.Errorf("hash %q leaks the key or has wrong length", h)
		}
	}
}
