package httpapi_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/oncetable/oncetable/runtime/freeze"
	"github.com/oncetable/oncetable/runtime/httpapi"
	"github.com/oncetable/oncetable/runtime/internal/dbtest"
)

// items is every item of the table, as a count.
func items(t *testing.T, env *dbtest.Env) int32 {
	t.Helper()
	out, err := env.Client.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(env.Table), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	return out.Count
}

// TestKillSwitch over the engine: a frozen flow answers 503 problem+json
// with Retry-After, writes nothing and takes no Idempotency-Key (the same
// key succeeds after the unfreeze); other flows and reads keep working; a
// freeze of all stops every flow; each change reaches the handler within
// the switch's cache TTL (5s, on the injected clock); refusals are counted
// as the Frozen metric.
func TestKillSwitch(t *testing.T) {
	ctx := context.Background()
	env := dbtest.New(t)
	var log bytes.Buffer
	api := httpapi.New(env.Client, httpapi.Config{Auth: testAuth, Table: env.Table, Clock: env.Clock.Now, Log: &log,
		CursorSecret: []byte("test secret of at least 32 bytes!!"), Freeze: true})
	h := &harness{env: env, api: api, log: &log}
	operator := freeze.New(env.Client, func(o *freeze.Options) { o.Table, o.Clock = env.Table, env.Clock.Now })

	h.do(t, "POST", "/users", `{"userId":"alice","name":"Alice","email":"alice@example.com"}`, nil)
	if r := h.do(t, "POST", "/users/alice/credits", `{"amount":10000,"currency":"EUR"}`, key("cr-1")); r.StatusCode != 201 {
		t.Fatalf("credit before any freeze: %d %s", r.StatusCode, r.Body)
	}
	if err := operator.Freeze(ctx, "debit", "alice@ops", "processor incident"); err != nil {
		t.Fatal(err)
	}
	env.Clock.Advance(5 * time.Second)

	before := items(t, env)
	r := h.do(t, "POST", "/users/alice/debits", `{"amount":2500,"currency":"EUR"}`, key("db-1"))
	if r.StatusCode != 503 || r.Headers["Content-Type"] != "application/problem+json" || r.Headers["Retry-After"] != "30" ||
		field(t, r.Body, "type") != "urn:oncetable:problem:frozen" || field(t, r.Body, "code") != "frozen" {
		t.Errorf("frozen debit: %d %v %s, want 503 problem+json frozen with Retry-After 30", r.StatusCode, r.Headers, r.Body)
	}
	if strings.Contains(r.Body, "processor incident") {
		t.Errorf("the refusal shows the operators' reason: %s", r.Body)
	}
	if after := items(t, env); after != before {
		t.Errorf("a frozen debit wrote: %d items before, %d after", before, after)
	}
	if r := h.do(t, "POST", "/users/alice/credits", `{"amount":100,"currency":"EUR"}`, key("cr-2")); r.StatusCode != 201 {
		t.Errorf("credit with only debit frozen: %d %s", r.StatusCode, r.Body)
	}
	if r := h.do(t, "GET", "/users/alice/balance", "", nil); r.StatusCode != 200 || field(t, r.Body, "balance") != 10100.0 {
		t.Errorf("balance while frozen: %d %s", r.StatusCode, r.Body)
	}

	if err := operator.Freeze(ctx, freeze.All, "alice@ops", "ledger check"); err != nil {
		t.Fatal(err)
	}
	env.Clock.Advance(5 * time.Second)
	if r := h.do(t, "POST", "/users/alice/credits", `{"amount":100,"currency":"EUR"}`, key("cr-3")); r.StatusCode != 503 {
		t.Errorf("credit with all frozen: %d %s, want 503", r.StatusCode, r.Body)
	}
	if r := h.do(t, "GET", "/users/alice/ledger", "", nil); r.StatusCode != 200 {
		t.Errorf("ledger read with all frozen: %d %s, want 200", r.StatusCode, r.Body)
	}

	for _, scope := range []string{freeze.All, "debit"} {
		if err := operator.Unfreeze(ctx, scope, "bob@ops", "resolved"); err != nil {
			t.Fatal(err)
		}
	}
	if r := h.do(t, "POST", "/users/alice/debits", `{"amount":2500,"currency":"EUR"}`, key("db-1")); r.StatusCode != 503 {
		t.Errorf("debit before the cache TTL after the unfreeze: %d, want 503 (the stated bound is the TTL)", r.StatusCode)
	}
	env.Clock.Advance(5 * time.Second)
	r = h.do(t, "POST", "/users/alice/debits", `{"amount":2500,"currency":"EUR"}`, key("db-1"))
	if r.StatusCode != 201 || r.Headers["Idempotent-Replayed"] != "" {
		t.Errorf("debit with the refused key after the unfreeze: %d %v %s, want a first 201", r.StatusCode, r.Headers, r.Body)
	}
	if n := strings.Count(log.String(), `"Frozen":1`); n != 3 {
		t.Errorf("%d Frozen metrics logged, want 3 (the refused requests)", n)
	}
	if !strings.Contains(log.String(), `"outcome":"frozen"`) {
		t.Errorf("no request log line with outcome frozen")
	}
}
