package idempotency_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/txn"
)

// TestStoreDecline: a transfer the balance refuses is stored under its key
// with one PutItem; the retry after a top-up gets the same refusal back
// (one TransactWriteItems, the record from ALL_OLD) and moves nothing.
func TestStoreDecline(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	req := request("k-late", "fp")
	_, err := w.records.Do(ctx, req, w.transfer("500"))
	var c *txn.CancelledError
	if !errors.As(err, &c) || !c.Failed("debit") {
		t.Fatalf("overdraft: err = %v, want the debit's cancellation", err)
	}
	declined := idempotency.Response{Status: http.StatusPaymentRequired,
		Header: http.Header{"Content-Type": {"application/problem+json"}}, Body: []byte(`{"code":"insufficient_funds"}`)}
	w.reqs.Reset()
	got, err := w.records.Store(ctx, req, declined)
	if err != nil || got.Replayed || got.Status != http.StatusPaymentRequired {
		t.Fatalf("Store = %+v, %v; want the decline, not replayed", got, err)
	}
	if n := w.reqs.Snapshot(); n["PutItem"] != 1 || len(n) != 1 {
		t.Errorf("Store requests = %v, want 1 PutItem", n)
	}

	// The top-up arrives; the late retry of the same request is refused
	// again, from the record, and moves nothing.
	w.advance(30 * time.Minute)
	if _, err := w.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(w.table),
		Item: map[string]types.AttributeValue{"id": s("wallet#alice"), "kind": s("wallet"), "balance": n("1000")}}); err != nil {
		t.Fatal(err)
	}
	before := w.balance(t, "alice")
	w.reqs.Reset()
	again, err := w.records.Do(ctx, req, w.transfer("500"))
	if err != nil || !again.Replayed || again.Status != http.StatusPaymentRequired || string(again.Body) != string(declined.Body) ||
		again.Header.Get("Content-Type") != "application/problem+json" {
		t.Fatalf("late retry = %+v, %v; want the stored 402 replayed with its Content-Type", again, err)
	}
	if n := w.reqs.Snapshot(); n["TransactWriteItems"] != 1 || len(n) != 1 {
		t.Errorf("late retry requests = %v, want 1 TransactWriteItems", n)
	}
	if after := w.balance(t, "alice"); after != before {
		t.Errorf("alice = %s after the replayed decline, want %s", after, before)
	}

	// Storing again answers the record that holds the key; another request
	// under the key is ErrKeyReused.
	if r, err := w.records.Store(ctx, req, declined); err != nil || !r.Replayed {
		t.Errorf("second Store = %+v, %v; want the stored record replayed", r, err)
	}
	if _, err := w.records.Store(ctx, request("k-late", "other"), declined); !errors.Is(err, idempotency.ErrKeyReused) {
		t.Errorf("Store with another fingerprint: %v, want ErrKeyReused", err)
	}

	// Once the record expires, the key runs again.
	w.advance(time.Hour + time.Second)
	if r, err := w.records.Do(ctx, req, w.transfer("500")); err != nil || r.Replayed || r.Status != 201 {
		t.Errorf("after expiry: %+v, %v; want a fresh run", r, err)
	}
}

// TestStoreDoesNotOverwriteSuccess: a decline stored under a key that a
// success already holds answers the success.
func TestStoreDoesNotOverwriteSuccess(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	req := request("k-won", "fp")
	first, err := w.records.Do(ctx, req, w.transfer("10"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := w.records.Store(ctx, req, idempotency.Response{Status: http.StatusPaymentRequired, Body: []byte(`{}`)})
	if err != nil || !got.Replayed || got.Status != first.Status || string(got.Body) != string(first.Body) {
		t.Errorf("Store over a success = %+v, %v; want the success %s replayed", got, err, first.Body)
	}
}
