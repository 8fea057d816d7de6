package payments

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/batch"
	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/money"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/store"
)

// Settle pays an order from its user's balance, all or nothing, in one
// TransactWriteItems:
//
//  0. the order: created -> paid (condition: exists, created, total and
//     currency as read), GSI1PK moves to ORDERSTATUS#paid;
//  1. the user's balance: the guarded debit of the order total;
//  2. the order summary in the user's partition: status paid;
//  3. a ledger entry of kind settle;
//  4. the idempotency record.
//
// The request carries neither the user nor the total, and DynamoDB cannot
// use one item's attribute in another item's update, so settle first reads
// the order together with the idempotency record in one strongly
// consistent BatchGetItem. A replay is answered from that read (one
// request); a first call costs the read plus the transaction (two). When
// expected is not nil it must equal the order total. Status 200 with the
// paid order.
func (s *Service) Settle(ctx context.Context, idem Idem, orderID string, expected *money.Amount) (Response, error) {
	ok, err := keys.Order(orderID)
	if err != nil {
		return Response{}, err
	}
	recKey, err := keys.Idempotency(ok.PK, idem.Scope.Hash(idem.Key))
	if err != nil {
		return Response{}, err
	}
	got, err := batch.Get(ctx, s.st.DB(), s.st.Table(),
		[]map[string]types.AttributeValue{store.KeyAV(ok), store.KeyAV(recKey)},
		batch.Options{ConsistentRead: true, Backoff: s.st.Retry()})
	if err != nil {
		return Response{}, err
	}
	var order *store.Order
	for _, item := range got {
		sk, _ := item[schema.SortKey].(*types.AttributeValueMemberS)
		switch {
		case sk == nil:
		case sk.Value == recKey.SK:
			rec, err := idempotency.FromItem(item)
			if err != nil {
				return Response{}, err
			}
			if !rec.Expired(s.st.Now()) {
				return s.replay(ctx, recKey, item, idem.Fingerprint)
			}
		case sk.Value == ok.SK:
			order = new(store.Order)
			if err := attributevalue.UnmarshalMap(item, order); err != nil {
				return Response{}, err
			}
		}
	}
	if order == nil {
		return Response{}, fmt.Errorf("order %q: %w", orderID, ErrNotFound)
	}
	if order.Status != store.OrderCreated {
		return s.paidElsewhere(ctx, recKey, idem.Fingerprint, orderID, order.Status)
	}
	total := money.Amount{Minor: order.Total, Currency: money.Currency(order.Currency)}
	if expected != nil && *expected != total {
		return Response{}, &AmountMismatchError{Expected: total, Got: *expected}
	}
	uk, err := keys.User(order.UserID)
	if err != nil {
		return Response{}, err
	}
	summaryKey := keys.Key{PK: uk.PK, SK: order.UserOrderSK}
	entryID := keys.NewID("st")
	build := func(now time.Time) ([]types.TransactWriteItem, int, any, error) {
		ts := keys.Timestamp(now)
		gpk, _ := keys.OrderStatusGSI(store.OrderPaid, now, orderID)
		paid := *order
		paid.Status, paid.GSI1PK, paid.PaidAt, paid.UpdatedAt = store.OrderPaid, gpk, ts, ts
		upd, err := store.Update(s.st.Table(), ok,
			expression.Set(statusName, expression.Value(store.OrderPaid)).
				Set(expression.Name(schema.GSI1.PartitionKey), expression.Value(gpk)).
				Set(expression.Name("paidAt"), expression.Value(ts)).
				Set(updatedName, expression.Value(ts)),
			payable(total))
		if err != nil {
			return nil, 0, nil, err
		}
		debit, err := s.guardedDebit(uk, total, now)
		if err != nil {
			return nil, 0, nil, err
		}
		summary, err := store.Update(s.st.Table(), summaryKey,
			expression.Set(statusName, expression.Value(store.OrderPaid)).Set(updatedName, expression.Value(ts)),
			store.Exists())
		if err != nil {
			return nil, 0, nil, err
		}
		entry, err := s.ledgerPut(order.UserID, now, entryID, store.LedgerSettle, total, orderID)
		if err != nil {
			return nil, 0, nil, err
		}
		return []types.TransactWriteItem{upd, debit, summary, entry}, http.StatusOK, paid, nil
	}
	fail := func(reasons []types.CancellationReason) error {
		switch {
		case store.ReasonFailed(reasons, 0):
			return orderFailure(orderID, reasons[0].Item, nil)
		case store.ReasonFailed(reasons, 1):
			return debitFailure(order.UserID, reasons[1].Item, total)
		case store.ReasonFailed(reasons, 2):
			return fmt.Errorf("summary of order %q in user %q: %w", orderID, order.UserID, ErrNotFound)
		}
		return nil
	}
	return s.run(ctx, FlowSettle, idem, ok.PK, []string{entryID}, build, fail)
}

// paidElsewhere answers a settle that found the order no longer payable.
// BatchGetItem reads its keys at different moments (and may hand some back
// as UnprocessedKeys), so this key's own first attempt may have paid the
// order after its record was read as absent. One strongly consistent read of
// the record, on this failure path only, tells a replay from a real 409.
func (s *Service) paidElsewhere(ctx context.Context, recKey keys.Key, fingerprint, orderID, status string) (Response, error) {
	out, err := s.st.DB().GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(s.st.Table()), Key: store.KeyAV(recKey), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return Response{}, err
	}
	if len(out.Item) > 0 {
		rec, err := idempotency.FromItem(out.Item)
		if err != nil {
			return Response{}, err
		}
		if !rec.Expired(s.st.Now()) {
			return s.replay(ctx, recKey, out.Item, fingerprint)
		}
	}
	return Response{}, fmt.Errorf("order %q is %s: %w", orderID, status, ErrAlreadyPaid)
}
