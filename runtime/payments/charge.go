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

	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/metadata"
	"github.com/oncetable/oncetable/runtime/money"
	"github.com/oncetable/oncetable/runtime/store"
	"github.com/oncetable/oncetable/runtime/txn"
)

// ChargeResult is the body of a charge.
type ChargeResult struct {
	PaymentID string            `json:"paymentId"`
	OrderID   string            `json:"orderId"`
	Status    string            `json:"status"`
	Amount    int64             `json:"amount"`
	Currency  string            `json:"currency"`
	Metadata  metadata.Metadata `json:"metadata,omitempty"`
}

var (
	statusName    = expression.Name("status")
	totalName     = expression.Name("total")
	paymentIDName = expression.Name("paymentId")
)

// payable is the condition that an order exists, is created and totals
// amt; chargeable adds that it has no payment yet.
func (s *Service) payable(amt money.Amount) expression.ConditionBuilder {
	return s.items.Exists().
		And(statusName.Equal(expression.Value(store.OrderCreated))).
		And(totalName.Equal(expression.Value(amt.Minor))).
		And(currencyName.Equal(expression.Value(string(amt.Currency))))
}

func (s *Service) chargeable(amt money.Amount) expression.ConditionBuilder {
	return s.payable(amt).And(expression.AttributeNotExists(paymentIDName))
}

// Charge creates the one payment of an order, exactly once, in one
// TransactWriteItems: an Update of the order (SET paymentId; condition: it
// exists, is created, totals amt and has no payment yet), the payment Put
// (attribute_not_exists; it carries the keys of the sparse Unprocessed
// index) and the idempotency record. Status 201. A replay is the record's
// ALL_OLD image in the cancellation reasons: one request either way.
//
// The request names only the order, so the payment does not carry the
// order's user (DynamoDB cannot copy one item's attribute into another
// without a read). The order's stream record carries it instead: the
// order's MODIFY where paymentId appears is the PaymentCreated event
// (runtime/outbox), with the user, the total (the payment's amount, which
// the condition checks) and updatedAt, stamped with the payment's
// createdAt. Processing puts the user on the payment (store.ProcessPayment).
func (s *Service) Charge(ctx context.Context, idem Idem, orderID string, amt money.Amount, opts ...func(*FlowOptions)) (Response, error) {
	o, err := flowOptions(opts)
	if err != nil {
		return Response{}, err
	}
	f, err := s.chargeFlow(idem, orderID, amt, o.Metadata)
	if err != nil {
		return Response{}, err
	}
	if s.fence != nil {
		user, err := s.orderUser(ctx, orderID)
		if err != nil {
			return Response{}, err
		}
		f.users = []string{user}
	}
	return s.run(ctx, f)
}

// orderUser reads the user of an order, for the fence of a flow whose
// request names only the order: one strongly consistent GetItem of the
// order's userId, which never changes. An order this Region's replica
// does not have yet is ErrNotFound, as the charge itself would answer.
func (s *Service) orderUser(ctx context.Context, orderID string) (string, error) {
	ok, err := s.keys.Order(orderID)
	if err != nil {
		return "", err
	}
	proj, err := expression.NewBuilder().WithProjection(expression.NamesList(expression.Name("userId"))).Build()
	if err != nil {
		return "", err
	}
	out, err := s.b.DB().GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.items.Table), Key: s.items.Key(ok),
		ConsistentRead: aws.Bool(true), ProjectionExpression: proj.Projection(), ExpressionAttributeNames: proj.Names()})
	if err != nil {
		return "", err
	}
	var o store.Order
	if err := attributevalue.UnmarshalMap(out.Item, &o); err != nil || o.UserID == "" {
		return "", fmt.Errorf("order %q: %w", orderID, ErrNotFound)
	}
	return o.UserID, nil
}

func (s *Service) chargeFlow(idem Idem, orderID string, amt money.Amount, md metadata.Metadata) (flow, error) {
	ok, err := s.keys.Order(orderID)
	if err != nil {
		return flow{}, err
	}
	paymentID := s.entryID("pay", idem)
	pk, err := s.keys.Payment(orderID, paymentID)
	if err != nil {
		return flow{}, err
	}
	build := func(now time.Time) (*idempotency.Effect, error) {
		ts := keys.Timestamp(now)
		upd, err := s.items.Update(ok,
			expression.Set(paymentIDName, expression.Value(paymentID)).Set(updatedName, expression.Value(ts)),
			s.chargeable(amt))
		if err != nil {
			return nil, err
		}
		put, err := s.items.PutNew(store.Payment{PK: pk.PK, SK: pk.SK, EntityType: store.TypePayment,
			UnprocessedPK: s.keys.UnprocessedPartition, UnprocessedSK: keys.UnprocessedSK(now, paymentID),
			PaymentID: paymentID, OrderID: orderID, Amount: amt.Minor, Currency: string(amt.Currency),
			Status: store.PaymentCreated, CreatedAt: ts, Metadata: md})
		if err != nil {
			return nil, err
		}
		eff := &idempotency.Effect{Status: http.StatusCreated, Body: ChargeResult{PaymentID: paymentID,
			OrderID: orderID, Status: store.PaymentCreated, Amount: amt.Minor, Currency: string(amt.Currency), Metadata: md}}
		eff.Items.Add(itemOrder, upd)
		eff.Items.Add(itemPayment, put)
		return eff, nil
	}
	fail := func(c *txn.CancelledError) error {
		if c.Failed(itemOrder) {
			return orderFailure(orderID, c.Item(itemOrder), &amt)
		}
		return nil
	}
	return flow{name: FlowCharge, idem: idem, partition: ok.PK, invocation: []string{paymentID}, build: ordersUntouched(build), fail: fail}, nil
}

// orderFailure explains a failed payable condition from the order's ALL_OLD
// image.
func orderFailure(orderID string, old map[string]types.AttributeValue, amt *money.Amount) error {
	var o store.Order
	if len(old) == 0 || attributevalue.UnmarshalMap(old, &o) != nil {
		return fmt.Errorf("order %q: %w", orderID, ErrNotFound)
	}
	if o.Status != store.OrderCreated {
		return notPayable(orderID, o.Status)
	}
	if o.PaymentID != "" && amt != nil {
		return fmt.Errorf("order %q already has payment %q: %w", orderID, o.PaymentID, ErrAlreadyPaid)
	}
	if o.PaymentID == "" && amt == nil {
		return notCharged(orderID)
	}
	expected := money.Amount{Minor: o.Total, Currency: money.Currency(o.Currency)}
	got := expected
	if amt != nil {
		got = *amt
	}
	return mismatch(orderID, expected, got)
}

// mismatch says how a request's amount differs from the order's total:
// the currency first, since amounts of two currencies do not compare.
func mismatch(orderID string, expected, got money.Amount) error {
	if got.Currency != expected.Currency {
		return fmt.Errorf("order %q is in %s, the request in %s: %w", orderID, expected.Currency, got.Currency, ErrCurrencyMismatch)
	}
	return &AmountMismatchError{Expected: expected, Got: got}
}
