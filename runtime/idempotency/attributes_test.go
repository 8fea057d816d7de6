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

// TestRecordUnderOwnNames stores a record under the wallets table's names
// and reads it back raw: its attributes are the configured ones, and a
// Request without a Partition puts the record in a partition of its own.
func TestRecordUnderOwnNames(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	req := request("own", "fp")
	req.Partition = ""
	if _, err := w.records.Do(ctx, req, transfer("5")); err != nil {
		t.Fatal(err)
	}
	key := w.records.Key(req)
	pk := key["pk"].(*types.AttributeValueMemberS).Value
	if sk := key["sk"].(*types.AttributeValueMemberS).Value; pk != sk || len(sk) != len("once#")+64 {
		t.Fatalf("record key %s/%s, want its own partition once#<hash>", pk, sk)
	}
	out, err := w.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("wallets"), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"pk", "sk", "ttl", "EntityType", "fingerprint", "responseStatus", "responseBody", "createdAt", "operation"} {
		if out.Item[name] == nil {
			t.Errorf("record lacks %s: %v", name, out.Item)
		}
	}
	for _, name := range []string{"PK", "SK", "expiresAt", "state"} {
		if out.Item[name] != nil {
			t.Errorf("record carries %s", name)
		}
	}
	if r, ok, err := w.records.Lookup(ctx, req); err != nil || !ok || !r.Replayed {
		t.Errorf("Lookup = %+v, %v, %v", r, ok, err)
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
		{"not a record", map[string]types.AttributeValue{"pk": s("a"), "sk": s("b"), "EntityType": s("Wallet"), "ttl": future}},
		{"status not a number", map[string]types.AttributeValue{"pk": s("a"), "sk": s("b"), "EntityType": s("Idempotency"), "ttl": future, "responseStatus": s("201")}},
		{"ttl not a number", map[string]types.AttributeValue{"pk": s("a"), "sk": s("b"), "EntityType": s("Idempotency"), "ttl": n("x")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, ok, err := w.records.Replay(tt.item, request("k", "fp")); err == nil || ok {
				t.Errorf("Replay = %v, %v; want an error", ok, err)
			}
		})
	}
	expired := map[string]types.AttributeValue{"pk": s("a"), "sk": s("b"), "EntityType": s("Idempotency"), "ttl": n("1"), "fingerprint": s("fp")}
	if _, ok, err := w.records.Replay(expired, request("k", "other")); ok || err != nil {
		t.Errorf("expired record: ok=%v err=%v; want absent, even with another fingerprint", ok, err)
	}
	if _, _, err := w.records.Begin(context.Background(), request("k", "fp"), 0); err == nil {
		t.Error("Begin with a zero window: want an error")
	}
	if _, _, err := w.records.Begin(context.Background(), request("", "fp"), time.Second); !errors.Is(err, idempotency.ErrKeyMissing) {
		t.Errorf("Begin without a key: %v", err)
	}
}
