package workbench

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/money"
	"github.com/oncetable/oncetable/runtime/payments"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/schema/provision"
	"github.com/oncetable/oncetable/runtime/store"
	"github.com/oncetable/oncetable/test/population"
)

// SamplePopulation is the population the sample data is written from: a
// handful of every entity, every life-cycle state among the orders.
var SamplePopulation = population.Config{Users: 4, Merchants: 2, ProductsPerMerchant: 2, Orders: 8, HotUsers: 1,
	OpenShare: 0.25, UnprocessedShare: 0.25, FeaturedShare: 0.5, Seed: 3}

// Sample writes SamplePopulation into a fresh embedded engine through the
// store and the money flows (plus one address per user) and returns every
// item of the table.
func Sample(ctx context.Context) ([]map[string]types.AttributeValue, error) {
	eng, err := ddblocal.Open(func(o *ddblocal.Options) { o.TTLSweepInterval = -1 })
	if err != nil {
		return nil, err
	}
	defer eng.Close()
	db := eng.Client()
	const table = "oncetable-model"
	if err := provision.EnsureTableFor(ctx, db, table, schema.Default()); err != nil {
		return nil, err
	}
	st := store.New(db, func(o *store.Options) { o.Table = table })
	p := population.Generate(SamplePopulation)
	if err := p.Load(ctx, st, population.LoadOptions{}); err != nil {
		return nil, err
	}
	for _, u := range p.Users {
		if _, err := st.AddAddress(ctx, u, store.NewAddress{AddressID: "home", Line1: "1 Main St", City: "Berlin", PostalCode: "10115", Country: "DE"}); err != nil {
			return nil, fmt.Errorf("address of %s: %w", u, err)
		}
	}
	if err := sampleHold(ctx, st, p.Users); err != nil {
		return nil, err
	}
	if err := sampleRefund(ctx, st); err != nil {
		return nil, err
	}
	if err := sampleFulfilment(ctx, st); err != nil {
		return nil, err
	}
	var items []map[string]types.AttributeValue
	in := &dynamodb.ScanInput{TableName: aws.String(table)}
	for {
		out, err := db.Scan(ctx, in)
		if err != nil {
			return nil, err
		}
		items = append(items, out.Items...)
		if len(out.LastEvaluatedKey) == 0 {
			return items, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// sampleHold authorizes a hold of one minor unit on the first user with
// money, so the model shows a hold and a profile's holds map.
func sampleHold(ctx context.Context, st *store.Store, users []string) error {
	svc := payments.New(st)
	for _, u := range users {
		b, err := st.Balance(ctx, u)
		if err != nil {
			return err
		}
		if b.Available < 1 {
			continue
		}
		fp, err := idempotency.Fingerprint("POST", "/users/"+u+"/holds", nil)
		if err != nil {
			return err
		}
		idem := payments.Idem{Scope: idempotency.Scope{Caller: "model", Operation: payments.FlowAuthorize}, Key: "sample-hold", Fingerprint: fp}
		_, err = svc.Authorize(ctx, idem, u, money.Amount{Minor: 1, Currency: money.Currency(b.Currency)}, 0)
		return err
	}
	return fmt.Errorf("no user of the sample has money to hold")
}

// sampleRefund refunds one minor unit of a paid order, so the model shows
// a refund, its ledger entry and a partially refunded order.
func sampleRefund(ctx context.Context, st *store.Store) error {
	paid, err := st.OrdersByStatus(ctx, store.OrderPaid, 1, "")
	if err != nil {
		return err
	}
	if len(paid.Items) == 0 {
		return fmt.Errorf("no order of the sample is paid")
	}
	o := paid.Items[0]
	amt := money.Amount{Minor: 1, Currency: money.Currency(o.Currency)}
	fp, err := idempotency.Fingerprint("POST", "/orders/"+o.OrderID+"/refunds", nil)
	if err != nil {
		return err
	}
	idem := payments.Idem{Scope: idempotency.Scope{Caller: "model", Operation: payments.FlowRefund}, Key: "sample-refund", Fingerprint: fp}
	_, err = payments.New(st).Refund(ctx, idem, o.OrderID, &amt)
	return err
}

// sampleFulfilment ships and delivers a paid order, so the model shows a
// delivered order with its shippedAt and deliveredAt.
func sampleFulfilment(ctx context.Context, st *store.Store) error {
	paid, err := st.OrdersByStatus(ctx, store.OrderPaid, 1, "")
	if err != nil {
		return err
	}
	if len(paid.Items) == 0 {
		return fmt.Errorf("no order of the sample is paid")
	}
	svc, id := payments.New(st), paid.Items[0].OrderID
	steps := []struct {
		flow, path string
		run        func(context.Context, payments.Idem, string) (payments.Response, error)
	}{{payments.FlowShip, "/ship", svc.Ship}, {payments.FlowDeliver, "/deliver", svc.Deliver}}
	for _, s := range steps {
		fp, err := idempotency.Fingerprint("POST", "/orders/"+id+s.path, nil)
		if err != nil {
			return err
		}
		idem := payments.Idem{Scope: idempotency.Scope{Caller: "model", Operation: s.flow}, Key: "sample-" + s.flow, Fingerprint: fp}
		if _, err := s.run(ctx, idem, id); err != nil {
			return fmt.Errorf("%s of %s: %w", s.flow, id, err)
		}
	}
	return nil
}
