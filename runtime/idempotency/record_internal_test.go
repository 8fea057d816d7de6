package idempotency

import (
	"encoding/json"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

func TestExpiry(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	r := newRecord(itemKey{PK: "IDEM#h", SK: "IDEM#h"}, Scope{"c", "debit"}, "fp", Response{Status: 201, Body: []byte(`{}`)}, now, time.Hour)
	if r.ExpiresAt != now.Add(time.Hour).Unix() {
		t.Fatalf("ExpiresAt = %d", r.ExpiresAt)
	}
	// The record blocks its key for [now, now+1h): at the second its TTL
	// names a new call may run (InProgressError.Until is that moment).
	for _, tt := range []struct {
		at   time.Time
		want bool
	}{{now, false}, {now.Add(time.Hour - time.Nanosecond), false}, {now.Add(time.Hour), true}} {
		if got := r.Expired(tt.at); got != tt.want {
			t.Errorf("Expired(%v) = %v, want %v", tt.at.Sub(now), got, tt.want)
		}
	}
}

// TestPutGolden pins the record's write under oncetable's own names: its
// own partition (PK = SK = IDEM#<hash>), the stored headers as a map.
func TestPutGolden(t *testing.T) {
	now := time.Unix(1_800_000_000, 0).UTC()
	resp := Response{Status: 201, Header: http.Header{"Location": {"/debits/d1"}}, Body: []byte(`{"debitId":"d1"}`)}
	r := newRecord(itemKey{PK: "IDEM#h", SK: "IDEM#h"}, Scope{"c", "debit"}, "fp", resp, now, DefaultExpiry)
	a := defaultAttributes
	put, err := a.put("oncetable", r, now)
	if err != nil {
		t.Fatal(err)
	}
	var plain map[string]any
	if err := attributevalue.UnmarshalMap(put.Item, &plain); err != nil {
		t.Fatal(err)
	}
	values := map[string]any{}
	for k, v := range put.ExpressionAttributeValues {
		var x any
		_ = attributevalue.Unmarshal(v, &x)
		values[k] = x
	}
	got, _ := json.MarshalIndent(map[string]any{
		"Item": plain, "ConditionExpression": *put.ConditionExpression,
		"Names": put.ExpressionAttributeNames, "Values": values,
		"ReturnValuesOnConditionCheckFailure": put.ReturnValuesOnConditionCheckFailure,
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
	back, err := a.decode(put.Item)
	if err != nil || !reflect.DeepEqual(back, r) {
		t.Errorf("decode round trip = %+v, %v; want %+v", back, err, r)
	}
}

func TestClientRequestToken(t *testing.T) {
	a := clientRequestToken("h", "fp", "dbt_1", "0")
	if len(a) != 36 || a != clientRequestToken("h", "fp", "dbt_1", "0") {
		t.Errorf("token %q not deterministic or not 36 chars", a)
	}
	if a == clientRequestToken("h", "fp", "dbt_2", "0") {
		t.Error("token ignores the invocation")
	}
}

// TestBodyKinds stores UTF-8 bodies as Strings and others as Binary, and
// reads both back byte for byte.
func TestBodyKinds(t *testing.T) {
	for _, body := range [][]byte{[]byte(`{"a":1}`), []byte("plain text"), {0xff, 0x00, 0x81}, nil} {
		r := Record{PK: "p", SK: "s", Status: 200, Body: body, ExpiresAt: 1}
		back, err := defaultAttributes.decode(defaultAttributes.encode(r))
		if err != nil || string(back.Body) != string(body) {
			t.Errorf("body %q: back %q, %v", body, back.Body, err)
		}
	}
}
