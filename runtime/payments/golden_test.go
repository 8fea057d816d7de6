package payments_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/home"
	"github.com/oncetable/oncetable/runtime/money"
	"github.com/oncetable/oncetable/runtime/payments"
	"github.com/oncetable/oncetable/runtime/store"
	"github.com/oncetable/oncetable/runtime/txn"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// recorder is a store.DB that records TransactWriteItems and answers
// BatchGetItem with a fixed order; it needs no database.
type recorder struct {
	store.DB
	tx    *dynamodb.TransactWriteItemsInput
	order map[string]types.AttributeValue
}

func (r *recorder) TransactWriteItems(_ context.Context, in *dynamodb.TransactWriteItemsInput, _ ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	r.tx = in
	return &dynamodb.TransactWriteItemsOutput{}, nil
}

func (r *recorder) BatchGetItem(_ context.Context, in *dynamodb.BatchGetItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	return &dynamodb.BatchGetItemOutput{Responses: map[string][]map[string]types.AttributeValue{"oncetable": {r.order}}}, nil
}

func plain(av map[string]types.AttributeValue) any {
	if av == nil {
		return nil
	}
	var m map[string]any
	if err := attributevalue.UnmarshalMap(av, &m); err != nil {
		panic(err)
	}
	return m
}

// render turns a transaction into stable, readable JSON: generated ids and
// the token are replaced by placeholders.
func render(t *testing.T, in *dynamodb.TransactWriteItemsInput) []byte {
	t.Helper()
	var items []any
	for _, it := range in.TransactItems {
		var row map[string]any
		switch {
		case it.Put != nil:
			row = map[string]any{"Put": plain(it.Put.Item), "Condition": it.Put.ConditionExpression, "Names": it.Put.ExpressionAttributeNames,
				"Values": plain(it.Put.ExpressionAttributeValues), "OnConditionFailure": it.Put.ReturnValuesOnConditionCheckFailure}
		case it.Update != nil:
			row = map[string]any{"Update": plain(it.Update.Key), "Expression": it.Update.UpdateExpression, "Condition": it.Update.ConditionExpression,
				"Names": it.Update.ExpressionAttributeNames, "Values": plain(it.Update.ExpressionAttributeValues), "OnConditionFailure": it.Update.ReturnValuesOnConditionCheckFailure}
		case it.ConditionCheck != nil:
			row = map[string]any{"ConditionCheck": plain(it.ConditionCheck.Key), "Condition": it.ConditionCheck.ConditionExpression,
				"Names": it.ConditionCheck.ExpressionAttributeNames, "Values": plain(it.ConditionCheck.ExpressionAttributeValues),
				"OnConditionFailure": it.ConditionCheck.ReturnValuesOnConditionCheckFailure}
		default:
			t.Fatalf("unexpected transaction item %+v", it)
		}
		items = append(items, row)
	}
	token := ""
	if in.ClientRequestToken != nil {
		token = *in.ClientRequestToken
	}
	b, err := json.MarshalIndent(map[string]any{"TransactItems": items, "ClientRequestTokenLength": len(token)}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return regexp.MustCompile(`\b(cr|db|st|pay)_[0-9a-z]{26}\b`).ReplaceAll(b, []byte("${1}_<generated>"))
}

func TestTransactionGolden(t *testing.T) {
	now := time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)
	eur := func(m int64) money.Amount { return money.Amount{Minor: m, Currency: "EUR"} }
	order, _ := attributevalue.MarshalMap(store.Order{PK: "ORDER#o1", SK: "ORDER#o1", EntityType: store.TypeOrder,
		GSI1PK: "ORDERSTATUS#created", GSI1SK: "2026-11-29T19:00:00.000000000Z#o1", OrderID: "o1", UserID: "u1",
		Status: store.OrderCreated, Total: 2500, Currency: "EUR", ItemCount: 1, PaymentID: "pay_1",
		UserOrderSK: "ORDER#2026-11-29T19:00:00.000000000Z#o1", CreatedAt: "2026-11-29T19:00:00.000000000Z", UpdatedAt: "2026-11-29T19:00:00.000000000Z"})
	tests := []struct {
		name string
		run  func(*payments.Service) (payments.Response, error)
	}{
		{"credit", func(s *payments.Service) (payments.Response, error) {
			return s.Credit(context.Background(), idem(payments.FlowCredit, "k", "/users/u1/credits", 1000), "u1", eur(1000))
		}},
		{"debit", func(s *payments.Service) (payments.Response, error) {
			return s.Debit(context.Background(), idem(payments.FlowDebit, "k", "/users/u1/debits", 300), "u1", eur(300))
		}},
		{"create_order", func(s *payments.Service) (payments.Response, error) {
			return s.CreateOrder(context.Background(), idem(payments.FlowCreateOrder, "k", "/users/u1/orders", "o1"), "u1",
				payments.NewOrder{OrderID: "o1", Currency: "EUR", Items: []payments.NewItem{{ProductID: "mug", Quantity: 2, UnitPrice: eur(1250)}}})
		}},
		{"charge", func(s *payments.Service) (payments.Response, error) {
			return s.Charge(context.Background(), idem(payments.FlowCharge, "k", "/orders/o1/payments", 2500), "o1", eur(2500))
		}},
		{"settle", func(s *payments.Service) (payments.Response, error) {
			return s.Settle(context.Background(), idem(payments.FlowSettle, "k", "/orders/o1/settle", nil), "o1", nil)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{order: order}
			st := store.New(rec, func(o *store.Options) { o.Clock = func() time.Time { return now } })
			if _, err := tt.run(payments.New(st)); err != nil {
				t.Fatal(err)
			}
			golden(t, tt.name, render(t, rec.tx))
		})
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden.json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s transaction changed\ngot:\n%s\nwant:\n%s", name, got, want)
	}
}

// leaseFence fences every transaction with one fixed lease, and adds its
// trail with a fixed expiry, as a home.Fencer holding it would, without a
// lease store.
type leaseFence struct{ lease home.Lease }

func (f leaseFence) Fence(_ context.Context, items *txn.Items, record string, _ ...string) error {
	if err := home.Fence(items, "oncetable", f.lease); err != nil {
		return err
	}
	return home.Trail(items, home.TrailItem, "oncetable", f.lease, time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC), time.Date(2026, 12, 12, 0, 0, 0, 0, time.UTC), record)
}

func (f leaseFence) Refused(c *txn.CancelledError, _ ...string) error {
	if err := home.FenceError(c, nil, f.lease); err != error(c) {
		return err
	}
	return nil
}

// TestFencedTransactionGolden is the transaction of a flow when the
// environment has homes (payments.Options.Fence): the flow's items and the
// record as in TestTransactionGolden, whose goldens show that without
// homes nothing is added, plus the fence's ConditionCheck on the cell's
// ownership item and the trail's Put in the cell's partition (the
// partitions the drain proof compares).
func TestFencedTransactionGolden(t *testing.T) {
	now := time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)
	lease := home.Lease{Cell: home.CellOf("u1", 64), Region: "us-east-1", Epoch: 3}
	rec := &recorder{}
	st := store.New(rec, func(o *store.Options) { o.Clock = func() time.Time { return now } })
	svc := payments.New(st, func(o *payments.Options) { o.Fence = leaseFence{lease} })
	if _, err := svc.Debit(context.Background(), idem(payments.FlowDebit, "k", "/users/u1/debits", 300), "u1", money.Amount{Minor: 300, Currency: "EUR"}); err != nil {
		t.Fatal(err)
	}
	golden(t, "debit.fenced", render(t, rec.tx))
}
