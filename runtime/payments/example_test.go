package payments_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/money"
	"github.com/oncetable/oncetable/runtime/payments"
	"github.com/oncetable/oncetable/runtime/schema/provision"
	"github.com/oncetable/oncetable/runtime/store"
)

func ExampleService_Debit() {
	eng := ddblocal.New()
	defer eng.Close()
	ctx := context.Background()
	if err := provision.EnsureTable(ctx, eng.Client(), "example"); err != nil {
		panic(err)
	}
	st := store.New(eng.Client(), func(o *store.Options) { o.Table = "example" })
	svc := payments.New(st)
	st.CreateUser(ctx, store.NewUser{UserID: "alice", Name: "Alice", Email: "alice@example.com"})

	key := func(k, route, body string) payments.Idem {
		fp, _ := idempotency.Fingerprint("POST", route, []byte(body))
		return payments.Idem{Scope: idempotency.Scope{Caller: "iam:example", Operation: "debit"}, Key: k, Fingerprint: fp}
	}
	credit, _ := money.New(1000, "EUR")
	svc.Credit(ctx, key("top-up", "/users/alice/credits", `{"amount":1000,"currency":"EUR"}`), "alice", credit)

	amt, _ := money.New(600, "EUR")
	first, _ := svc.Debit(ctx, key("d-1", "/users/alice/debits", `{"amount":600,"currency":"EUR"}`), "alice", amt)
	again, _ := svc.Debit(ctx, key("d-1", "/users/alice/debits", `{"amount":600,"currency":"EUR"}`), "alice", amt)
	_, err := svc.Debit(ctx, key("d-2", "/users/alice/debits", `{"amount":600,"currency":"EUR"}`), "alice", amt)

	var ife *payments.InsufficientFundsError
	b, _ := st.Balance(ctx, "alice")
	fmt.Println(first.Status, first.Replayed, again.Replayed, string(first.Body) == string(again.Body))
	fmt.Println(errors.As(err, &ife), ife.Available, ife.Requested)
	fmt.Println(b.Balance, b.Currency)
	// Output:
	// 201 false true true
	// true 4.00 EUR 6.00 EUR
	// 400 EUR
}
