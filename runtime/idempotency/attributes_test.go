package idempotency_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/idempotency"
)

// TestRecordUnderOwnNames stores a record under another team's names and
// reads it back raw: its attributes are the configured ones, none of
// oncetable's, and it lives in a partition of its own.
func TestRecordUnderOwnNames(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	req := request("own", "fp")
	if _, err := w.records.Do(ctx, req, w.transfer("5")); err != nil {
		t.Fatal(err)
	}
	key := w.records.Key(req)
	pk := key["id"].(*types.AttributeValueMemberS).Value
	if sk := key["kind"].(*types.AttributeValueMemberS).Value; pk != sk || len(sk) != len("once#")+64 {
		t.Fatalf("record key %s/%s, want its own partition once#<hash>", pk, sk)
	}
	out, err := w.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(w.table), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"id", "kind", "purge_at", "EntityType", "fingerprint", "responseStatus", "responseBody", "createdAt", "operation"} {
		if out.Item[name] == nil {
			t.Errorf("record lacks %s: %v", name, out.Item)
		}
	}
	for _, name := range []string{"PK", "SK", "expiresAt", "state"} {
		if out.Item[name] != nil {
			t.Errorf("record carries %s", name)
		}
	}
	rec, err := w.records.Decode(out.Item)
	if err != nil || rec.PK != pk || rec.Expired(w.records.Now()) || rec.Status != 201 {
		t.Errorf("Decode = %+v, %v; want the live record %s", rec, err, pk)
	}
	if r, ok, err := w.records.Lookup(ctx, req); err != nil || !ok || !r.Replayed {
		t.Errorf("Lookup = %+v, %v, %v", r, ok, err)
	}
	// Read under oncetable's default names, the item is refused, not
	// decoded into an empty, expired record.
	if _, err := idempotency.NewTable(w.db, w.table).Decode(out.Item); err == nil {
		t.Error("Decode under the default names: want an error")
	}
}

func TestReplayOfMalformedItems(t *testing.T) {
	w := newWorld(t)
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	n := func(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
	future := n("9999999999")
	tests := []struct {
		name string
		item map[string]types.AttributeValue
	}{
		{"not a record", map[string]types.AttributeValue{"id": s("a"), "kind": s("b"), "EntityType": s("Wallet"), "purge_at": future}},
		{"status not a number", map[string]types.AttributeValue{"id": s("a"), "kind": s("b"), "EntityType": s("Idempotency"), "purge_at": future, "responseStatus": s("201")}},
		{"ttl not a number", map[string]types.AttributeValue{"id": s("a"), "kind": s("b"), "EntityType": s("Idempotency"), "purge_at": n("x")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, ok, err := w.records.Replay(tt.item, request("k", "fp")); err == nil || ok {
				t.Errorf("Replay = %v, %v; want an error", ok, err)
			}
		})
	}
	expired := map[string]types.AttributeValue{"id": s("a"), "kind": s("b"), "EntityType": s("Idempotency"), "purge_at": n("1"), "fingerprint": s("fp")}
	if _, ok, err := w.records.Replay(expired, request("k", "other")); ok || err != nil {
		t.Errorf("expired record: ok=%v err=%v; want absent, even with another fingerprint", ok, err)
	}
	past, cancel := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel()
	if _, _, err := w.records.Begin(past, request("k", "fp"), 0); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Begin at a passed deadline: %v, want DeadlineExceeded", err)
	}
	if _, _, err := w.records.Begin(context.Background(), request("", "fp"), time.Second); !errors.Is(err, idempotency.ErrKeyMissing) {
		t.Errorf("Begin without a key: %v", err)
	}
}
