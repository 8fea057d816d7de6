package population_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/oncetable/oncetable/runtime/ddbtest"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/schema/provision"
	"github.com/oncetable/oncetable/runtime/store"
	"github.com/oncetable/oncetable/test/population"
)

func TestGenerateIsSeededAndSkewed(t *testing.T) {
	cfg := population.Config{Users: 5000, Orders: 50_000, Seed: 7}
	a, b := population.Generate(cfg), population.Generate(cfg)
	if !reflect.DeepEqual(a.Orders, b.Orders) || !reflect.DeepEqual(a.Products, b.Products) {
		t.Fatal("two populations of one seed differ")
	}
	if c := population.Generate(population.Config{Users: 5000, Orders: 50_000, Seed: 8}); reflect.DeepEqual(a.Orders, c.Orders) {
		t.Error("another seed drew the same orders")
	}
	s := a.Stats()
	t.Logf("%+v", s)
	// 3 hot users take 15% together: 5% each, within sampling noise.
	if s.TopUserShare < 0.045 || s.TopUserShare > 0.055 {
		t.Errorf("the hottest user has %.3f of the orders, want about 0.05", s.TopUserShare)
	}
	// A long tail: the hottest user has hundreds of times the median.
	if s.MaxOrders < 100*max(s.MedianOrders, 1) {
		t.Errorf("max %d orders per user against a median of %d: no long tail", s.MaxOrders, s.MedianOrders)
	}
	if s.UsersWithoutOrders == 0 {
		t.Error("every user has an order: the Zipf tail is missing")
	}
	if s.OpenOrders == 0 || s.Unprocessed == 0 || s.Paid <= s.OpenOrders+s.Unprocessed {
		t.Errorf("life cycle mix %+v, want mostly paid with open and unprocessed backlogs", s)
	}
	// Higher skew concentrates more activity on the top of the tail.
	flat := population.Generate(population.Config{Users: 5000, Orders: 50_000, Seed: 7, UserSkew: 0.5}).Stats()
	if flat.UsersWithoutOrders >= s.UsersWithoutOrders {
		t.Errorf("UserSkew 0.5 leaves %d users without orders, skew 1.0 %d: skew has no effect", flat.UsersWithoutOrders, s.UsersWithoutOrders)
	}
}

func TestLoad(t *testing.T) {
	db, _ := ddbtest.Client(t, nil)
	table := ddbtest.TableName("population")
	ctx := context.Background()
	if err := provision.EnsureTableFor(ctx, db, table, schema.Default()); err != nil {
		t.Fatal(err)
	}
	st := store.New(db, func(o *store.Options) { o.Table = table })
	p := population.Generate(population.Config{Users: 30, Merchants: 3, ProductsPerMerchant: 4, Orders: 120})
	calls := 0
	if err := p.Load(ctx, st, population.LoadOptions{Before: func() { calls++ }}); err != nil {
		t.Fatal(err)
	}
	s := p.Stats()
	if want := s.Products + 2*s.Users + s.Orders + s.Unprocessed + 3*s.Paid; calls != want {
		t.Errorf("Before was called %d times, want one per flow (%d)", calls, want)
	}
	hot := p.Users[0]
	orders, err := st.UserOrders(ctx, hot, 100, "")
	if err != nil || len(orders.Items) != min(len(p.ByUser[hot]), 100) {
		t.Fatalf("the hot user's orders: %d, %v; want %d", len(orders.Items), err, len(p.ByUser[hot]))
	}
	unprocessed, err := st.UnprocessedPayments(ctx, 100, "")
	if err != nil || len(unprocessed.Items) != s.Unprocessed {
		t.Errorf("unprocessed payments: %d, %v; want %d", len(unprocessed.Items), err, s.Unprocessed)
	}
	for _, o := range p.Orders {
		if o.PaymentID == "pending" {
			t.Fatalf("order %s kept no payment id", o.ID)
		}
	}
	out, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table), Select: "COUNT"})
	if err != nil || out.Count == 0 {
		t.Fatalf("scan: %v", err)
	}
}
