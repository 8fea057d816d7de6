package orders

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/migrate"
)

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

func TestTransformAndRestore(t *testing.T) {
	m, err := ByStatus(8, keys.Default)
	if err != nil {
		t.Fatal(err)
	}
	created := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	pk, sk := keys.OrderStatusGSI("created", created, "o1")
	v1 := migrate.Item{"EntityType": s("Order"), "orderId": s("o1"), "status": s("created"), "createdAt": s(keys.Timestamp(created)), "GSI1PK": s(pk), "GSI1SK": s(sk)}
	tests := []struct {
		name    string
		item    migrate.Item
		wantErr bool
	}{
		{"an order", v1, false},
		{"no orderId", migrate.Item{"EntityType": s("Order")}, true},
		{"a forged orderId", migrate.Item{"orderId": s("o1#USER")}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			add, err := m.Transform(tt.item)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Transform err = %v, want error %v", err, tt.wantErr)
			}
			if want := (&types.AttributeValueMemberN{Value: fmt.Sprint(Shard("o1", 8))}); err == nil && (len(add) != 1 || !migrate.Equal(add[ShardAttribute], want)) {
				t.Fatalf("Transform = %v, want only shard %s", add, want.Value)
			}
		})
	}
	back, err := m.Restore(v1)
	if err != nil || !migrate.Equal(back["GSI1PK"], s(pk)) || !migrate.Equal(back["GSI1SK"], s(sk)) {
		t.Fatalf("Restore = %v, %v; want GSI1PK %s GSI1SK %s", back, err, pk, sk)
	}
	if !m.Match(v1) || m.Match(migrate.Item{"EntityType": s("User")}) {
		t.Fatal("Match selects the wrong items")
	}
}

func TestShardSpread(t *testing.T) {
	counts := make([]int, 4)
	for i := 0; i < 4000; i++ {
		counts[Shard(keys.NewID("ord"), 4)]++
	}
	for i, c := range counts {
		if c < 800 || c > 1200 {
			t.Errorf("shard %d holds %d of 4000 orders, want about 1000 (%v)", i, c, counts)
		}
	}
	if _, err := ByStatus(0, keys.Default); !errors.Is(err, migrate.ErrInvalidMigration) {
		t.Errorf("ByStatus(0) = %v", err)
	}
}
