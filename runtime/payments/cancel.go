package payments

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/store"
	"github.com/oncetable/oncetable/runtime/txn"
)

// Cancel cancels an order that is not paid yet, in one TransactWriteItems
// through the order writer:
//
//  0. the order: created -> cancelled, on the condition that it is
//     created and has the payment it was read with (none, or that one),
//     so that a settle or a charge racing it cannot both commit with it;
//  1. its payment, if it was charged: voided, out of the unprocessed
//     queue (condition: it exists);
//  2. the order summary in the user's partition: status cancelled;
//  3. the idempotency record.
//
// No money moves: an unpaid order took none. A paid order is not
// cancelled: ErrRefundRequired says to refund it (a refund is a merchant's
// act, and cancelling is open to the customer, who must not give itself
// its money back). A cancelled order is ErrOrderCancelled, to a cancel
// under another key as to a later settle or charge. Both are declines. A
// charge that raced the read is read back from the cancellation, and the
// cancel is built again with its payment. Status 200 with the order.
func (s *Service) Cancel(ctx context.Context, idem Idem, orderID string) (Response, error) {
	req, order, replay, err := s.readOrder(ctx, idem, orderID)
	if err != nil || replay != nil {
		return deref(replay), err
	}
	for attempt := 1; ; attempt++ {
		if err := cancellable(*order); err != nil {
			return s.declineUnlessRecorded(ctx, req, err)
		}
		resp, err := s.run(ctx, s.cancelFlow(idem, *order))
		var raced *cancelRaceError
		if errors.As(err, &raced) && attempt < maxRefundAttempts {
			*order = raced.order
			continue
		}
		if raced != nil {
			return Response{}, fmt.Errorf("cancel of order %q: the order kept changing under %d attempts", orderID, attempt)
		}
		return resp, err
	}
}

// cancellable is nil for an order that may be cancelled, else the decline
// that says why not.
func cancellable(order store.Order) error {
	switch {
	case order.Status == store.OrderCreated:
		return nil
	case order.Status == store.OrderCancelled:
		return fmt.Errorf("order %q is cancelled: %w", order.OrderID, ErrOrderCancelled)
	}
	return fmt.Errorf("order %q is %s (POST /orders/%s/refunds): %w", order.OrderID, order.Status, order.OrderID, ErrRefundRequired)
}

// notPayable is the decline of a charge or settle of an order in status,
// which is no longer created.
func notPayable(orderID, status string) error {
	if status == store.OrderCancelled {
		return fmt.Errorf("order %q is cancelled: %w", orderID, ErrOrderCancelled)
	}
	return fmt.Errorf("order %q is %s: %w", orderID, status, ErrAlreadyPaid)
}

// cancelRaceError is a cancel whose order was charged between the read
// and the transaction: order is as the cancellation found it.
type cancelRaceError struct{ order store.Order }

func (e *cancelRaceError) Error() string {
	return fmt.Sprintf("order %q changed under the cancel", e.order.OrderID)
}

func (s *Service) cancelFlow(idem Idem, order store.Order) flow {
	ok := keys.Key{PK: order.PK, SK: order.SK}
	build := func(shape store.OrderShape) idempotency.EffectFunc {
		return func(now time.Time) (*idempotency.Effect, error) {
			return s.cancelEffect(order, shape, now)
		}
	}
	fail := func(c *txn.CancelledError) error {
		switch {
		case c.Failed(itemOrder):
			return cancelOrderFailure(order.OrderID, c.Item(itemOrder))
		case c.Failed(itemPayment):
			return fmt.Errorf("payment %q of order %q: %w", order.PaymentID, order.OrderID, ErrNotFound)
		case c.Failed(itemSummary):
			return fmt.Errorf("summary of order %q in user %q: %w", order.OrderID, order.UserID, ErrNotFound)
		}
		return nil
	}
	return flow{name: FlowCancel, idem: idem, users: []string{order.UserID}, partition: ok.PK, build: build, writesOrders: true, fail: fail}
}

var voidedAtName = expression.Name("voidedAt")

// cancelEffect cancels order at now, in the writer's shape.
func (s *Service) cancelEffect(order store.Order, shape store.OrderShape, now time.Time) (*idempotency.Effect, error) {
	uk, err := s.keys.User(order.UserID)
	if err != nil {
		return nil, err
	}
	ts := keys.Timestamp(now)
	after := order
	after.Status, after.CancelledAt, after.UpdatedAt = store.OrderCancelled, ts, ts
	after.GSI1PK, _ = s.keys.OrderStatusGSI(store.OrderCancelled, now, order.OrderID)
	upd, err := s.statusUpdate(after, shape, store.Attribute{Name: "cancelledAt", Value: &types.AttributeValueMemberS{Value: ts}})
	if err != nil {
		return nil, err
	}
	cond := s.items.Exists().And(statusName.Equal(expression.Value(store.OrderCreated)))
	if order.PaymentID == "" {
		cond = cond.And(expression.AttributeNotExists(paymentIDName))
	} else {
		cond = cond.And(paymentIDName.Equal(expression.Value(order.PaymentID)))
	}
	orderUpd, err := s.items.Update(keys.Key{PK: order.PK, SK: order.SK}, upd, cond)
	if err != nil {
		return nil, err
	}
	eff := &idempotency.Effect{Status: http.StatusOK, Body: after}
	eff.Items.Add(itemOrder, orderUpd)
	if order.PaymentID != "" {
		void, err := s.voidPayment(order, ts)
		if err != nil {
			return nil, err
		}
		eff.Items.Add(itemPayment, void)
	}
	summary, err := s.items.Update(keys.Key{PK: uk.PK, SK: order.UserOrderSK},
		expression.Set(statusName, expression.Value(store.OrderCancelled)).Set(updatedName, expression.Value(ts)), s.items.Exists())
	if err != nil {
		return nil, err
	}
	eff.Items.Add(itemSummary, summary)
	return eff, nil
}

// voidPayment is the update that voids order's payment at ts and takes it
// out of the unprocessed queue.
func (s *Service) voidPayment(order store.Order, ts string) (types.TransactWriteItem, error) {
	pk, err := s.keys.Payment(order.OrderID, order.PaymentID)
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	sch := s.items.Schema.WithDefaults()
	upd := expression.Set(statusName, expression.Value(store.PaymentVoided)).Set(voidedAtName, expression.Value(ts)).
		Remove(expression.Name(sch.Unprocessed.PartitionKey)).Remove(expression.Name(sch.Unprocessed.SortKey))
	return s.items.Update(pk, upd, s.items.Exists())
}

// cancelOrderFailure explains a cancel's failed order condition from the
// order's ALL_OLD image: gone, no longer cancellable (a decline), or
// charged since the read (a race the cancel is built again for).
func cancelOrderFailure(orderID string, old map[string]types.AttributeValue) error {
	var o store.Order
	if len(old) == 0 || attributevalue.UnmarshalMap(old, &o) != nil {
		return fmt.Errorf("order %q: %w", orderID, ErrNotFound)
	}
	if err := cancellable(o); err != nil {
		return err
	}
	return &cancelRaceError{order: o}
}
