package payments_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/internal/dbtest"
	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/payments"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/schema/provision"
	"github.com/oncetable/oncetable/runtime/store"
)

// lower is a schema and layout with nothing of oncetable's names: lower-case
// keys, indexes and prefixes (which keep the prefixes' sort order the reads
// rely on).
var (
	lower = schema.Schema{PartitionKey: "pk", SortKey: "sk", EntityType: "type", TTLAttribute: "ttl",
		GSI1: schema.Index{Name: "by-status", PartitionKey: "gpk", SortKey: "gsk", Projection: schema.ProjectAll},
		Unprocessed: schema.Index{Name: "todo", PartitionKey: "tpk", SortKey: "tsk", Projection: schema.ProjectInclude, Sparse: true,
			NonKeyAttributes: []string{"type", "paymentId", "orderId", "userId", "amount", "currency", "status", schema.CreatedAt}},
		Featured: schema.Index{Name: "featured", PartitionKey: "fpk", SortKey: "fsk", Projection: schema.ProjectAll, Sparse: true},
	}
	lowerKeys = keys.Layout{UserPrefix: "user#", OrderPrefix: "order#", ItemPrefix: "item#", ProductPrefix: "prod#",
		PaymentPrefix: "payment#", LedgerPrefix: "ledger#", AddressPrefix: "profile#addr#", IdemPrefix: "idem#",
		ProfileSK: "profile", UserOrderPrefix: "order#", OrderStatusPrefix: "status#",
		UnprocessedPartition: "payment#todo", FeaturedPartition: "prod#featured"}
)

// TestFlowsOnAnotherSchema runs every flow on a table laid out by lower:
// the schema and the prefixes are values given at construction.
func TestFlowsOnAnotherSchema(t *testing.T) {
	env := dbtest.New(t)
	ctx := context.Background()
	name := env.Table + "-lower"
	if err := provision.EnsureTableFor(ctx, env.Client, name, lower); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		env.Client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	st := store.New(env.Client, func(o *store.Options) {
		o.Table, o.Clock, o.Schema, o.Keys = name, env.Clock.Now, lower, lowerKeys
	})
	svc := payments.New(st)
	if _, err := st.CreateUser(ctx, store.NewUser{UserID: "u1", Name: "U", Email: "u@example.com"}); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name string
		run  func() (payments.Response, error)
	}{
		{"credit", func() (payments.Response, error) {
			return svc.Credit(ctx, idem(payments.FlowCredit, "c1", "/users/u1/credits", 5000), "u1", eur(5000))
		}},
		{"debit", func() (payments.Response, error) {
			return svc.Debit(ctx, idem(payments.FlowDebit, "d1", "/users/u1/debits", 1000), "u1", eur(1000))
		}},
		{"create order", func() (payments.Response, error) {
			in := payments.NewOrder{OrderID: "o1", Currency: "EUR", Items: []payments.NewItem{{ProductID: "p1", Quantity: 2, UnitPrice: eur(500)}}}
			return svc.CreateOrder(ctx, idem(payments.FlowCreateOrder, "o1", "/users/u1/orders", "o1"), "u1", in)
		}},
		{"charge order", func() (payments.Response, error) {
			return svc.Charge(ctx, idem(payments.FlowCharge, "ch0", "/orders/o1/payments", 1000), "o1", eur(1000))
		}},
		{"settle", func() (payments.Response, error) {
			return svc.Settle(ctx, idem(payments.FlowSettle, "s1", "/orders/o1/settle", nil), "o1", nil)
		}},
		{"create order 2", func() (payments.Response, error) {
			in := payments.NewOrder{OrderID: "o2", Currency: "EUR", Items: []payments.NewItem{{ProductID: "p1", Quantity: 1, UnitPrice: eur(700)}}}
			return svc.CreateOrder(ctx, idem(payments.FlowCreateOrder, "o2", "/users/u1/orders", "o2"), "u1", in)
		}},
		{"charge", func() (payments.Response, error) {
			return svc.Charge(ctx, idem(payments.FlowCharge, "ch1", "/orders/o2/payments", 700), "o2", eur(700))
		}},
	}
	for _, st := range steps {
		first, err := st.run()
		if err != nil || first.Replayed {
			t.Fatalf("%s: %+v, %v", st.name, first, err)
		}
		again, err := st.run()
		if err != nil || !again.Replayed || string(again.Body) != string(first.Body) {
			t.Fatalf("%s replay: %+v, %v", st.name, again, err)
		}
	}
	if _, err := svc.Debit(ctx, idem(payments.FlowDebit, "d2", "/users/u1/debits", 99999), "u1", eur(99999)); !errors.Is(err, payments.ErrInsufficientFunds) {
		t.Errorf("overdraft: %v, want ErrInsufficientFunds", err)
	}
	checkReads(t, ctx, st)
	checkRawItems(t, ctx, env.Client, name)
}

func checkReads(t *testing.T, ctx context.Context, st *store.Store) {
	t.Helper()
	if b, err := st.Balance(ctx, "u1"); err != nil || b.Balance != 3000 {
		t.Errorf("balance = %+v, %v; want 3000 (5000 - 1000 - 1000 settled)", b, err)
	}
	v, err := st.UserView(ctx, "u1")
	if err != nil || len(v.RecentOrders) != 2 || v.User.UserID != "u1" {
		t.Errorf("user view = %+v, %v; want u1 with 2 orders", v, err)
	}
	if p, err := st.Ledger(ctx, "u1", 10, ""); err != nil || len(p.Items) != 3 {
		t.Errorf("ledger = %+v, %v; want 3 entries", p, err)
	}
	o, err := st.Order(ctx, "o2")
	if err != nil || len(o.Items) != 1 || len(o.Payments) != 1 {
		t.Errorf("order o2 = %+v, %v; want 1 item and 1 payment", o, err)
	}
	if p, err := st.OrdersByStatus(ctx, store.OrderPaid, 10, ""); err != nil || len(p.Items) != 1 || p.Items[0].OrderID != "o1" {
		t.Errorf("paid orders = %+v, %v; want o1", p, err)
	}
	if p, err := st.UnprocessedPayments(ctx, 10, ""); err != nil || len(p.Items) != 2 {
		t.Errorf("unprocessed = %+v, %v; want the two payments (o1's, which settle needed, and o2's)", p, err)
	}
}

// checkRawItems reads the table without the store: every item is keyed
// pk/sk with the lower-case prefixes, and no default name is left.
func checkRawItems(t *testing.T, ctx context.Context, db *dynamodb.Client, name string) {
	t.Helper()
	out, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Items) == 0 {
		t.Fatal("no items")
	}
	records := 0
	for _, item := range out.Items {
		if sk, ok := item["sk"].(*types.AttributeValueMemberS); ok && strings.HasPrefix(sk.Value, "idem#") && item["ttl"] != nil && item["type"] != nil {
			records++
		}
		pk, _ := item["pk"].(*types.AttributeValueMemberS)
		if pk == nil || (!strings.HasPrefix(pk.Value, "user#") && !strings.HasPrefix(pk.Value, "order#") && !strings.HasPrefix(pk.Value, "idem#")) {
			t.Errorf("item %v: pk is not one of the lower-case partitions", item["pk"])
		}
		for _, def := range []string{"PK", "SK", "EntityType", "expiresAt", "GSI1PK", "UnprocessedPK"} {
			if _, ok := item[def]; ok {
				t.Errorf("item %s/%v carries the default attribute %s", pk.Value, item["sk"], def)
			}
		}
	}
	if records != 7 {
		t.Errorf("%d idempotency records under idem# with ttl and type, want 7 (one per successful flow)", records)
	}
}
