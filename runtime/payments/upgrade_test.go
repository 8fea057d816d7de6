package payments_test

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/payments"
)

// toLegacy moves the record of (op, key) back to where the previous
// layout kept it, in partition: the state of a table whose keys were in
// flight when the new layout was deployed.
func toLegacy(t *testing.T, f *fixture, op, key, partition string) {
	t.Helper()
	ctx := context.Background()
	own := idempotency.DefaultKeyPrefix + idempotency.Scope{Caller: "test", Operation: op}.Hash(key)
	k := map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: own}, "SK": &types.AttributeValueMemberS{Value: own}}
	out, err := f.env.Client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(f.env.Table), Key: k, ReturnValues: types.ReturnValueAllOld})
	if err != nil || len(out.Attributes) == 0 {
		t.Fatalf("no record %s for %s/%s: %v", own, op, key, err)
	}
	out.Attributes["PK"] = &types.AttributeValueMemberS{Value: partition}
	if _, err := f.env.Client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(f.env.Table), Item: out.Attributes}); err != nil {
		t.Fatal(err)
	}
}

// TestUpgradeWithKeysInFlight replays keys whose records the previous
// layout wrote (in the user's or the order's partition): a retry after the
// deploy answers the stored response and moves no money.
func TestUpgradeWithKeysInFlight(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.user(t, "u1", 5000)
	f.order(t, "u1", "o1", 1500, 1)
	if _, err := f.svc.Charge(ctx, idem(payments.FlowCharge, "c-old", "/orders/o1/payments", 1500), "o1", eur(1500)); err != nil {
		t.Fatal(err)
	}
	debit := func() (payments.Response, error) {
		return f.svc.Debit(ctx, idem(payments.FlowDebit, "d-old", "/users/u1/debits", 1000), "u1", eur(1000))
	}
	settle := func() (payments.Response, error) {
		return f.svc.Settle(ctx, idem(payments.FlowSettle, "s-old", "/orders/o1/settle", nil), "o1", nil)
	}
	for _, st := range []struct {
		name, op, key, partition string
		run                      func() (payments.Response, error)
	}{
		{"debit", payments.FlowDebit, "d-old", "USER#u1", debit},
		{"settle", payments.FlowSettle, "s-old", "ORDER#o1", settle},
	} {
		first, err := st.run()
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		toLegacy(t, f, st.op, st.key, st.partition)
		again, err := st.run()
		if err != nil || !again.Replayed || string(again.Body) != string(first.Body) {
			t.Errorf("%s after the upgrade: %+v, %v; want the replay of %s", st.name, again, err, first.Body)
		}
	}
	b, _ := f.st.Balance(ctx, "u1")
	if b.Balance != 5000-1000-1500 {
		t.Errorf("balance %d, want %d: a legacy key ran again", b.Balance, 5000-1000-1500)
	}
	// SkipLegacyRecords no longer looks there: only for a table whose
	// legacy records have all expired.
	skip := payments.New(f.st, func(o *payments.Options) { o.SkipLegacyRecords = true })
	if r, err := skip.Debit(ctx, idem(payments.FlowDebit, "d-old", "/users/u1/debits", 1000), "u1", eur(1000)); err != nil || r.Replayed {
		t.Errorf("SkipLegacyRecords: %+v, %v; want a fresh run", r, err)
	}
}

// TestKeyIdentityAcrossEntities: a key is (caller, operation, key), so the
// same key sent for another user is the same key with another payload.
func TestKeyIdentityAcrossEntities(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.user(t, "u1", 5000)
	f.user(t, "u2", 5000)
	if _, err := f.svc.Debit(ctx, idem(payments.FlowDebit, "same", "/users/u1/debits", 100), "u1", eur(100)); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Debit(ctx, idem(payments.FlowDebit, "same", "/users/u2/debits", 100), "u2", eur(100)); !errors.Is(err, payments.ErrIdempotencyKeyReused) {
		t.Errorf("same key for another user: %v, want ErrIdempotencyKeyReused", err)
	}
	if b, _ := f.st.Balance(ctx, "u2"); b.Balance != 5000 {
		t.Errorf("u2 balance %d, want 5000 (nothing debited)", b.Balance)
	}
}
