package payments

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/internal/dbtest"
	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/money"
	"github.com/oncetable/oncetable/runtime/store"
	"github.com/oncetable/oncetable/runtime/txn"
)

// TestReasonsByName inserts an extra item in front of a debit's items. Read
// by position, the balance's failure would be blamed on the extra item (or
// missed); read by name, an insufficient balance is still an
// InsufficientFundsError, and a failing extra item is reported as itself.
func TestReasonsByName(t *testing.T) {
	tests := []struct {
		name      string
		extraCond expression.ConditionBuilder
		debit     int64
		check     func(t *testing.T, err error)
	}{
		{"extra item passes, balance fails", store.Exists(), 1000, func(t *testing.T, err error) {
			var ife *InsufficientFundsError
			if !errors.As(err, &ife) || ife.Available.Minor != 500 {
				t.Fatalf("err = %v, want InsufficientFundsError with 500 available", err)
			}
		}},
		{"extra item fails, balance covers", store.NotExists(), 100, func(t *testing.T, err error) {
			var c *txn.CancelledError
			if !errors.As(err, &c) || !c.Failed("extra") || c.Failed(itemBalance) {
				t.Fatalf("err = %v, want a cancellation blaming item \"extra\" only", err)
			}
			if errors.Is(err, ErrInsufficientFunds) {
				t.Fatalf("err = %v blames the balance", err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := dbtest.New(t)
			st := store.New(env.Client, func(o *store.Options) { o.Table = env.Table; o.Clock = env.Clock.Now })
			svc := New(st)
			ctx := context.Background()
			for _, id := range []string{"u1", "other"} {
				if _, err := st.CreateUser(ctx, store.NewUser{UserID: id, Name: "U", Email: id + "@example.com"}); err != nil {
					t.Fatal(err)
				}
			}
			eur := func(m int64) money.Amount { return money.Amount{Minor: m, Currency: "EUR"} }
			seed := Idem{Scope: idempotency.Scope{Caller: "t", Operation: FlowCredit}, Key: "seed", Fingerprint: "seed"}
			if _, err := svc.Credit(ctx, seed, "u1", eur(500)); err != nil {
				t.Fatal(err)
			}
			f, err := svc.balanceFlow(debitMove, Idem{Scope: idempotency.Scope{Caller: "t", Operation: FlowDebit}, Key: "k", Fingerprint: "fp"}, "u1", eur(tt.debit), nil, release{})
			if err != nil {
				t.Fatal(err)
			}
			f.build = ordersUntouched(withExtraFirst(t, st.Table(), f.build(nil), tt.extraCond))
			_, err = svc.run(ctx, f)
			tt.check(t, err)
			if b, _ := st.Balance(ctx, "u1"); b.Balance != 500 {
				t.Errorf("balance = %d after a failed debit, want 500", b.Balance)
			}
			if p, _ := st.Ledger(ctx, "u1", 10, ""); len(p.Items) != 1 {
				t.Errorf("ledger has %d entries, want the seed credit only", len(p.Items))
			}
		})
	}
}

// withExtraFirst puts a ConditionCheck on another user's profile in front
// of build's items.
func withExtraFirst(t *testing.T, table string, build idempotency.EffectFunc, cond expression.ConditionBuilder) idempotency.EffectFunc {
	return func(now time.Time) (*idempotency.Effect, error) {
		eff, err := build(now)
		if err != nil {
			return nil, err
		}
		expr, err := expression.NewBuilder().WithCondition(cond).Build()
		if err != nil {
			t.Fatal(err)
		}
		uk, _ := keys.User("other")
		var items txn.Items
		items.Add("extra", types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
			TableName: aws.String(table), Key: store.KeyAV(uk),
			ConditionExpression: expr.Condition(), ExpressionAttributeNames: expr.Names(),
		}})
		for i, name := range eff.Items.Names() {
			items.Add(name, eff.Items.List()[i])
		}
		eff.Items = items
		if eff.Status != http.StatusCreated {
			t.Fatalf("debit status %d", eff.Status)
		}
		return eff, nil
	}
}
