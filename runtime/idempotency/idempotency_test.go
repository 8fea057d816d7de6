package idempotency_test

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"

	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/keys"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

func TestValidateKey(t *testing.T) {
	tests := []struct {
		name string
		key  string
		want error
	}{
		{"uuid", "8e03978e-40d5-43e8-bc93-6894a57f9324", nil},
		{"printable punctuation", "order 42: retry #1 (~)", nil},
		{"max length", strings.Repeat("k", 255), nil},
		{"missing", "", idempotency.ErrKeyMissing},
		{"too long", strings.Repeat("k", 256), idempotency.ErrKeyInvalid},
		{"tab", "a\tb", idempotency.ErrKeyInvalid},
		{"newline", "a\nb", idempotency.ErrKeyInvalid},
		{"non-ascii", "clé", idempotency.ErrKeyInvalid},
		{"del", "a\x7f", idempotency.ErrKeyInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := idempotency.ValidateKey(tt.key); !errors.Is(err, tt.want) {
				t.Errorf("ValidateKey(%q) = %v, want %v", tt.key, err, tt.want)
			}
		})
	}
}

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

func TestExpiry(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	r := idempotency.New(keys.Key{PK: "USER#u1", SK: "IDEM#h"}, idempotency.Scope{"c", "debit"}, "fp", 201, []byte(`{}`), now, time.Hour)
	if r.ExpiresAt != now.Add(time.Hour).Unix() {
		t.Fatalf("ExpiresAt = %d", r.ExpiresAt)
	}
	for _, tt := range []struct {
		at   time.Time
		want bool
	}{{now, false}, {now.Add(time.Hour), false}, {now.Add(time.Hour + time.Second), true}} {
		if got := r.Expired(tt.at); got != tt.want {
			t.Errorf("Expired(%v) = %v, want %v", tt.at.Sub(now), got, tt.want)
		}
	}
	if err := r.Replay("fp"); err != nil {
		t.Errorf("Replay(same) = %v", err)
	}
	if err := r.Replay("other"); !errors.Is(err, idempotency.ErrKeyReused) {
		t.Errorf("Replay(other) = %v, want ErrKeyReused", err)
	}
}

func TestPutGolden(t *testing.T) {
	now := time.Unix(1_800_000_000, 0).UTC()
	r := idempotency.New(keys.Key{PK: "USER#u1", SK: "IDEM#h"}, idempotency.Scope{"c", "debit"}, "fp", 201, []byte(`{"debitId":"d1"}`), now, 0)
	put, err := r.Put("oncetable", now)
	if err != nil {
		t.Fatal(err)
	}
	var plain map[string]any
	if err := attributevalue.UnmarshalMap(put.Put.Item, &plain); err != nil {
		t.Fatal(err)
	}
	values := map[string]any{}
	for k, v := range put.Put.ExpressionAttributeValues {
		var x any
		_ = attributevalue.Unmarshal(v, &x)
		values[k] = x
	}
	got, _ := json.MarshalIndent(map[string]any{
		"Item": plain, "ConditionExpression": *put.Put.ConditionExpression,
		"Names": put.Put.ExpressionAttributeNames, "Values": values,
		"ReturnValuesOnConditionCheckFailure": put.Put.ReturnValuesOnConditionCheckFailure,
	}, "", "  ")
	golden := filepath.Join("testdata", "put.golden.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if string(got) != string(want) {
		t.Errorf("Put mismatch\ngot:\n%s\nwant:\n%s", got, want)
	}
	back, err := idempotency.FromItem(put.Put.Item)
	if err != nil || back != r {
		t.Errorf("FromItem round trip = %+v, %v; want %+v", back, err, r)
	}
}

func TestClientRequestToken(t *testing.T) {
	a := idempotency.ClientRequestToken("h", "fp", "dbt_1", "0")
	if len(a) != 36 || a != idempotency.ClientRequestToken("h", "fp", "dbt_1", "0") {
		t.Errorf("token %q not deterministic or not 36 chars", a)
	}
	if a == idempotency.ClientRequestToken("h", "fp", "dbt_2", "0") {
		t.Error("token ignores the invocation")
	}
}
