package idempotency_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/idempotency"
)

// legacyRecord writes what a version before records had partitions of
// their own wrote for req: the same item in the partition the caller
// passed (then Request.Partition), here wallet#alice.
func (w *world) legacyRecord(t *testing.T, req idempotency.Request, fp string, pending bool) {
	t.Helper()
	now := w.records.Now()
	item := map[string]types.AttributeValue{
		"id": s("wallet#alice"), "kind": s("once#" + req.Scope.Hash(req.Key)), "EntityType": s("Idempotency"),
		"operation": s(req.Scope.Operation), "fingerprint": s(fp), "createdAt": s(now.UTC().Format(time.RFC3339Nano)),
		"responseStatus": n("201"), "responseBody": s(`{"amount":"30","legacy":true}`),
		"purge_at": n(strconv.FormatInt(now.Add(time.Hour).Unix(), 10)),
	}
	if pending {
		item["state"], item["lockOwner"] = s("pending"), s("own_old")
		item["inProgressUntil"] = n(strconv.FormatInt(now.Add(time.Minute).Unix(), 10))
		item["purge_at"] = item["inProgressUntil"]
	}
	if _, err := w.db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(w.table), Item: item}); err != nil {
		t.Fatal(err)
	}
}

func legacy(key, fp string) idempotency.Request {
	r := request(key, fp)
	r.LegacyPartition = "wallet#alice"
	return r
}

// TestLegacyRecordsAcrossTheUpgrade is a deploy with keys in flight: a
// record written by the previous layout still answers its key, in both
// modes, and nothing runs twice.
func TestLegacyRecordsAcrossTheUpgrade(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	w.legacyRecord(t, legacy("old", "fp"), "fp", false)
	w.reqs.Reset()
	resp, err := w.records.Do(ctx, legacy("old", "fp"), w.transfer("30"))
	if err != nil || !resp.Replayed || string(resp.Body) != `{"amount":"30","legacy":true}` {
		t.Fatalf("Do on a legacy record = %+v, %v; want its replay", resp, err)
	}
	if got := w.reqs.Snapshot(); got["TransactWriteItems"] != 1 || len(got) != 1 {
		t.Errorf("legacy replay requests = %v, want one TransactWriteItems", got)
	}
	if _, err := w.records.Do(ctx, legacy("old", "other"), w.transfer("31")); !errors.Is(err, idempotency.ErrKeyReused) {
		t.Errorf("legacy record, another payload: %v, want ErrKeyReused", err)
	}
	if r, ok, err := w.records.Lookup(ctx, legacy("old", "fp")); err != nil || !ok || !r.Replayed {
		t.Errorf("Lookup of a legacy record = %+v, %v, %v", r, ok, err)
	}
	if _, _, err := w.records.Begin(ctx, legacy("old", "other"), time.Minute); !errors.Is(err, idempotency.ErrKeyReused) {
		t.Errorf("Begin on a legacy record, another payload: %v", err)
	}
	if r, p, err := w.records.Begin(ctx, legacy("old", "fp"), time.Minute); err != nil || p != nil || !r.Replayed {
		t.Errorf("Begin on a legacy record = %+v, %v, %v; want its replay", r, p, err)
	}
	if got := w.balance(t, "alice"); got != "100" {
		t.Errorf("alice = %s, want 100: the legacy key must not run again", got)
	}

	w.legacyRecord(t, legacy("held", "fp"), "fp", true)
	if _, _, err := w.records.Begin(ctx, legacy("held", "fp"), time.Minute); !errors.Is(err, idempotency.ErrInProgress) {
		t.Errorf("Begin on a legacy pending record: %v, want ErrInProgress", err)
	}

	// Without LegacyPartition the old record is not seen: the reason
	// oncetable's payments keep it set across the upgrade.
	if r, err := w.records.Do(ctx, request("old", "fp"), w.transfer("30")); err != nil || r.Replayed {
		t.Errorf("without LegacyPartition: %+v, %v; want a fresh run", r, err)
	}
	// Once the legacy record has expired the key is new again everywhere.
	w.legacyRecord(t, legacy("late", "fp"), "fp", false)
	w.advance(time.Hour + time.Second)
	if r, err := w.records.Do(ctx, legacy("late", "fp"), w.transfer("1")); err != nil || r.Replayed {
		t.Errorf("expired legacy record: %+v, %v; want a fresh run", r, err)
	}
	if got := w.balance(t, "alice"); got != "69" {
		t.Errorf("alice = %s, want 69", got)
	}
}

// A first call under the new layout with LegacyPartition set costs the
// same one request; the record lands in its own partition, not the legacy
// one.
func TestLegacyCheckFirstCall(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	if _, err := w.records.Do(ctx, legacy("new", "fp"), w.transfer("5")); err != nil {
		t.Fatal(err)
	}
	if got := w.reqs.Snapshot(); got["TransactWriteItems"] != 1 || len(got) != 1 {
		t.Errorf("requests = %v, want one TransactWriteItems", got)
	}
	out, err := w.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(w.table), Key: w.records.LegacyKey(legacy("new", "fp")), ConsistentRead: aws.Bool(true)})
	if err != nil || len(out.Item) != 0 {
		t.Errorf("legacy place holds %v, %v; want nothing", out.Item, err)
	}
	if w.records.LegacyKey(request("new", "fp")) != nil {
		t.Error("LegacyKey without LegacyPartition: want nil")
	}
}
