package payments

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/store"
	"github.com/oncetable/oncetable/runtime/txn"
)

// step is one move of an order's fulfilment: the flow that makes it, the
// statuses it leaves, the status it reaches and the attribute stamped with
// its time. Fulfilment only goes forward, one step at a time.
type step struct {
	flow string
	from []string
	to   string
	at   string
}

var (
	// shipStep ships a paid order; one refunded in part ships what is left
	// (its refunds stay on it as refunded).
	shipStep = step{flow: FlowShip, from: []string{store.OrderPaid, store.OrderPartiallyRefunded}, to: store.OrderShipped, at: "shippedAt"}
	// deliverStep delivers a shipped order.
	deliverStep = step{flow: FlowDeliver, from: []string{store.OrderShipped}, to: store.OrderDelivered, at: "deliveredAt"}
)

// Ship moves a paid order (or one refunded in part) to shipped, and
// Deliver a shipped order to delivered: see fulfil.
func (s *Service) Ship(ctx context.Context, idem Idem, orderID string) (Response, error) {
	return s.fulfil(ctx, idem, orderID, shipStep)
}

// Deliver moves a shipped order to delivered: see fulfil.
func (s *Service) Deliver(ctx context.Context, idem Idem, orderID string) (Response, error) {
	return s.fulfil(ctx, idem, orderID, deliverStep)
}

// fulfil makes st of orderID's fulfilment exactly once per key, in one
// TransactWriteItems through the order writer:
//
//  0. the order: status st.to, st.at and updatedAt set, on the condition
//     that its status is one of st.from (a condition, not the read: a
//     refund or another step racing it cannot both commit with it);
//  1. the order summary in the user's partition: the new status;
//  2. the idempotency record.
//
// No money moves. An order in any other status is a decline: a cancelled
// one ErrOrderCancelled, any other a *TransitionError (no skipping, no
// going back, no step twice under two keys). Status 200 with the order.
func (s *Service) fulfil(ctx context.Context, idem Idem, orderID string, st step) (Response, error) {
	req, order, replay, err := s.readOrder(ctx, idem, orderID)
	if err != nil || replay != nil {
		return deref(replay), err
	}
	if err := st.allows(*order); err != nil {
		return s.declineUnlessRecorded(ctx, req, err)
	}
	return s.run(ctx, s.fulfilFlow(idem, *order, st))
}

// allows is nil for an order st may move, else the decline that says why
// not.
func (st step) allows(order store.Order) error {
	switch {
	case slices.Contains(st.from, order.Status):
		return nil
	case order.Status == store.OrderCancelled:
		return fmt.Errorf("order %q is cancelled: %w", order.OrderID, ErrOrderCancelled)
	}
	return &TransitionError{OrderID: order.OrderID, Status: order.Status, To: st.to, From: st.from}
}

func (s *Service) fulfilFlow(idem Idem, order store.Order, st step) flow {
	ok := keys.Key{PK: order.PK, SK: order.SK}
	build := func(shape store.OrderShape) idempotency.EffectFunc {
		return func(now time.Time) (*idempotency.Effect, error) {
			return s.fulfilEffect(order, st, shape, now)
		}
	}
	fail := func(c *txn.CancelledError) error {
		switch {
		case c.Failed(itemOrder):
			return st.failure(order.OrderID, c.Item(itemOrder))
		case c.Failed(itemSummary):
			return fmt.Errorf("summary of order %q in user %q: %w", order.OrderID, order.UserID, ErrNotFound)
		}
		return nil
	}
	return flow{name: st.flow, idem: idem, users: []string{order.UserID}, partition: ok.PK, build: build, writesOrders: true, fail: fail}
}

// fulfilEffect moves order by st at now, in the writer's shape. The update
// sets only the status, its time and what the shape moves with the status,
// so a refund committed since the read (refunded, partially_refunded) is
// kept, not overwritten.
func (s *Service) fulfilEffect(order store.Order, st step, shape store.OrderShape, now time.Time) (*idempotency.Effect, error) {
	uk, err := s.keys.User(order.UserID)
	if err != nil {
		return nil, err
	}
	ts := keys.Timestamp(now)
	after := order
	after.Status, after.UpdatedAt = st.to, ts
	switch st.to {
	case store.OrderShipped:
		after.ShippedAt = ts
	case store.OrderDelivered:
		after.DeliveredAt = ts
	}
	after.GSI1PK, _ = s.keys.OrderStatusGSI(st.to, now, order.OrderID)
	upd, err := s.statusUpdate(after, shape, store.Attribute{Name: st.at, Value: &types.AttributeValueMemberS{Value: ts}})
	if err != nil {
		return nil, err
	}
	from := make([]expression.OperandBuilder, 0, len(st.from)-1)
	for _, f := range st.from[1:] {
		from = append(from, expression.Value(f))
	}
	cond := s.items.Exists().And(statusName.In(expression.Value(st.from[0]), from...))
	orderUpd, err := s.items.Update(keys.Key{PK: order.PK, SK: order.SK}, upd, cond)
	if err != nil {
		return nil, err
	}
	summary, err := s.items.Update(keys.Key{PK: uk.PK, SK: order.UserOrderSK},
		expression.Set(statusName, expression.Value(st.to)).Set(updatedName, expression.Value(ts)), s.items.Exists())
	if err != nil {
		return nil, err
	}
	eff := &idempotency.Effect{Status: http.StatusOK, Body: after}
	eff.Items.Add(itemOrder, orderUpd)
	eff.Items.Add(itemSummary, summary)
	return eff, nil
}

// failure explains st's failed order condition from the order's ALL_OLD
// image: gone, or moved since the read to a status st does not leave (a
// decline). An order st still allows cannot fail the condition.
func (st step) failure(orderID string, old map[string]types.AttributeValue) error {
	var o store.Order
	if len(old) == 0 || attributevalue.UnmarshalMap(old, &o) != nil {
		return fmt.Errorf("order %q: %w", orderID, ErrNotFound)
	}
	if err := st.allows(o); err != nil {
		return err
	}
	return fmt.Errorf("order %q is %s, yet the %s condition failed", orderID, o.Status, st.flow)
}
