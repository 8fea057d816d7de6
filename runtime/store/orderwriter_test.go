package store_test

import (
	"context"
	"errors"
	"maps"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/internal/dbtest"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/store"
	"github.com/oncetable/oncetable/runtime/txn"
)

// countingDB counts the GetItem requests (the phase reads of stage both).
type countingDB struct {
	store.DB
	gets int
}

func (c *countingDB) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	c.gets++
	return c.DB.GetItem(ctx, in, o...)
}

// TestOrderWriterPerStage: the store chooses its order writer once from the
// layout. v1 and v2 write one shape without reading any phase and without a
// fence; stage both reads the migration's phase (none before it starts) and
// fences its transactions; an unknown stage is an ErrOrderLayout on every
// write and read.
func TestOrderWriterPerStage(t *testing.T) {
	env := dbtest.NewFor(t, schema.Schema{Orders: schema.OrdersBoth})
	order := map[string]types.AttributeValue{
		"orderId": &types.AttributeValueMemberS{Value: "o-1"}, "GSI1PK": &types.AttributeValueMemberS{Value: "ORDERSTATUS#created"},
		"GSI1SK": &types.AttributeValueMemberS{Value: "2026-01-01T00:00:00Z#o-1"}}
	tests := []struct {
		stage      schema.OrderIndexes
		gets       int  // phase reads of one write and one read
		fenced     bool // the write carries the fence's ConditionCheck
		shards     bool // reads by status go to the shards
		keepsGSI1  bool // a new order keeps GSI1PK
		hasShard   bool // a new order gets its shard
		wantLayout error
	}{
		{stage: schema.OrdersV1, keepsGSI1: true},
		{stage: schema.OrdersV2, shards: true, hasShard: true},
		{stage: schema.OrdersBoth, gets: 1, fenced: true, keepsGSI1: true},
		{stage: "v3", wantLayout: store.ErrOrderLayout},
	}
	for _, tt := range tests {
		t.Run(string(tt.stage), func(t *testing.T) {
			db := &countingDB{DB: env.Client}
			st := store.New(db, func(o *store.Options) {
				o.Table, o.Clock = env.Table, env.Clock.Now
				o.Orders = store.OrderLayout{Stage: tt.stage}
			})
			var tx txn.Items
			var shaped map[string]types.AttributeValue
			err := st.Orders().Write(context.Background(), func(sh store.OrderShape) (err error) {
				if shaped, err = sh.New(maps.Clone(order)); err != nil {
					return err
				}
				return sh.Guard(&tx)
			})
			if !errors.Is(err, tt.wantLayout) || (tt.wantLayout == nil && err != nil) {
				t.Fatalf("Write: %v, want %v", err, tt.wantLayout)
			}
			shards, err := st.Orders().ReadsShards(context.Background())
			if !errors.Is(err, tt.wantLayout) || (tt.wantLayout == nil && err != nil) {
				t.Fatalf("ReadsShards: %v, want %v", err, tt.wantLayout)
			}
			if tt.wantLayout != nil {
				return
			}
			_, gsi1 := shaped["GSI1PK"]
			_, shard := shaped["shard"]
			if db.gets != tt.gets || (tx.Len() == 1) != tt.fenced || shards != tt.shards || gsi1 != tt.keepsGSI1 || shard != tt.hasShard {
				t.Errorf("got %d phase reads, fenced %v, shards %v, GSI1PK %v, shard %v; want %d, %v, %v, %v, %v",
					db.gets, tx.Len() == 1, shards, gsi1, shard, tt.gets, tt.fenced, tt.shards, tt.keepsGSI1, tt.hasShard)
			}
		})
	}
}
