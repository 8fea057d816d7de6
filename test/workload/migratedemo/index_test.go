package migratedemo

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/migrate/orders"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/schema/provision"
	"github.com/oncetable/oncetable/runtime/store"
	"github.com/oncetable/oncetable/test/workload"
)

// TestCheckIndex: the lost-order checker reads OrdersByStatus across the
// shards and finds each kind of planted damage: an order missing from the
// index, one whose row has another status, one not yet cleaned up.
func TestCheckIndex(t *testing.T) {
	ctx := context.Background()
	eng := ddblocal.New()
	defer eng.Close()
	db := eng.Client()
	const table, n = "check-index", 4
	if err := provision.EnsureTableFor(ctx, db, table, schema.Schema{Orders: schema.OrdersV2}); err != nil {
		t.Fatal(err)
	}
	st := &workload.State{Orders: map[string]store.Order{}}
	for i := 0; i < 12; i++ {
		id, status := fmt.Sprintf("o%02d", i), []string{store.OrderCreated, store.OrderPaid}[i%2]
		o := store.Order{PK: "ORDER#" + id, SK: "ORDER#" + id, EntityType: store.TypeOrder, OrderID: id, Status: status,
			CreatedAt: "2026-12-01T10:00:00Z", UpdatedAt: fmt.Sprintf("2026-12-01T10:00:%02dZ", i)}
		putOrder(t, db, table, o, orders.Shard(id, n))
		st.Orders[id] = o
	}
	tests := []struct {
		name  string
		plant func(st *workload.State)
		want  string
		check func(IndexReport) bool
	}{
		{"clean", func(*workload.State) {}, "", func(r IndexReport) bool { return r.Lost() == 0 && r.Rows == 12 && r.Ghosts == 0 }},
		{"missing", func(st *workload.State) { st.Orders["o99"] = store.Order{OrderID: "o99", Status: store.OrderCreated} },
			"order o99 (created, shard", func(r IndexReport) bool { return r.Missing == 1 && r.Lost() == 1 }},
		{"stale status", func(st *workload.State) { o := st.Orders["o00"]; o.Status = store.OrderPaid; st.Orders["o00"] = o },
			"order o00 is", func(r IndexReport) bool { return r.Stale == 1 && r.Lost() == 1 }},
		{"stale update", func(st *workload.State) { o := st.Orders["o03"]; o.UpdatedAt = "later"; st.Orders["o03"] = o },
			"order o03 is", func(r IndexReport) bool { return r.Stale == 1 }},
		{"not cleaned up", func(st *workload.State) { o := st.Orders["o05"]; o.GSI1PK = "ORDERSTATUS#paid"; st.Orders["o05"] = o },
			"", func(r IndexReport) bool { return r.Retired == 1 && r.Lost() == 0 }},
		{"ghost row", func(st *workload.State) { delete(st.Orders, "o07") },
			"", func(r IndexReport) bool { return r.Ghosts == 1 && r.Lost() == 0 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			planted := &workload.State{Orders: map[string]store.Order{}}
			for k, v := range st.Orders {
				planted.Orders[k] = v
			}
			tt.plant(planted)
			rep, viol, err := CheckIndex(ctx, db, table, n, planted)
			if err != nil {
				t.Fatal(err)
			}
			var details []string
			for _, v := range viol {
				details = append(details, v.Detail)
			}
			got := strings.Join(details, "\n")
			if !tt.check(rep) || (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Fatalf("report %+v, violations %q; want %q", rep, got, tt.want)
			}
		})
	}
}

func putOrder(t *testing.T, db *dynamodb.Client, table string, o store.Order, shard int) {
	t.Helper()
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	_, err := db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
		"PK": s(o.PK), "SK": s(o.SK), "EntityType": s(o.EntityType), "orderId": s(o.OrderID), "status": s(o.Status),
		"createdAt": s(o.CreatedAt), "updatedAt": s(o.UpdatedAt), orders.ShardAttribute: &types.AttributeValueMemberN{Value: fmt.Sprint(shard)},
		"schemaVersion": &types.AttributeValueMemberN{Value: "2"}}})
	if err != nil {
		t.Fatal(err)
	}
}
