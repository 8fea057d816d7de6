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
	"github.com/oncetable/oncetable/runtime/metadata"
	"github.com/oncetable/oncetable/runtime/money"
	"github.com/oncetable/oncetable/runtime/store"
	"github.com/oncetable/oncetable/runtime/txn"
)

// itemRefund names the refund item in a refund's transaction.
const itemRefund = "refund"

var refundedName = expression.Name("refunded")

// Refund gives back amt of a paid order (nil: all that is left to refund)
// to the balance it was paid from, in one TransactWriteItems through the
// order writer:
//
//  0. the order: refunded += amt, status partially_refunded or refunded
//     (a shipped or delivered order stays so until its last refund), on
//     the condition that it is paid, partially refunded, shipped or
//     delivered and that refunded + amt stays within its total (the guard);
//  1. the user's balance: a credit of amt (same currency, within the
//     maximum);
//  2. the order summary in the user's partition: the new status;
//  3. a ledger entry of kind refund (counter-account platform:refunds);
//  4. the refund item, readable by id;
//  5. the idempotency record.
//
// DynamoDB conditions have no arithmetic, so the guard is written as
// refunded < total - amt for a partial refund and refunded = total - amt
// for the last one: each is refunded + amt <= total, and each also proves
// the status it sets. Concurrent refunds therefore never sum past what was
// paid. A refund that raced another and guessed the status wrong is built
// again from the order its cancellation returned, without a read.
//
// The request names only the order, so the order and the idempotency
// record are read first (one BatchGetItem), as settle does. An order that
// is not paid is ErrNotPaid; more than is left, a *RefundableError; both
// are declines. Status 201 with the refund.
func (s *Service) Refund(ctx context.Context, idem Idem, orderID string, amt *money.Amount, opts ...func(*FlowOptions)) (Response, error) {
	o, err := flowOptions(opts)
	if err != nil {
		return Response{}, err
	}
	req, order, replay, err := s.readOrder(ctx, idem, orderID)
	if err != nil || replay != nil {
		return deref(replay), err
	}
	refundID, entryID := s.entryID("rf", idem), s.entryID("rfe", idem)
	for attempt := 1; ; attempt++ {
		want, err := refundAmount(*order, amt)
		if err != nil {
			// Its own first attempt may have refunded the order after the
			// record was read as absent: a replay, not a decline.
			return s.declineUnlessRecorded(ctx, req, err)
		}
		resp, err := s.run(ctx, s.refundFlow(idem, *order, amt, want, newRefund{id: refundID, entryID: entryID, md: o.Metadata}))
		var raced *refundRaceError
		if errors.As(err, &raced) && attempt < maxRefundAttempts {
			*order = raced.order
			continue
		}
		if raced != nil {
			return Response{}, fmt.Errorf("refund of order %q: the order kept changing under %d attempts", orderID, attempt)
		}
		return resp, err
	}
}

// maxRefundAttempts bounds the rebuilds of a refund that raced others.
const maxRefundAttempts = 5

// Refundable reports whether an order in status may be refunded: paid,
// refunded in part, shipped or delivered (a return is refunded as Stripe
// refunds a charge whatever became of the goods).
func Refundable(status string) bool {
	return status == store.OrderPaid || status == store.OrderPartiallyRefunded || store.Fulfilled(status)
}

// afterRefund is the status a refund leaves an order in that was in
// status: refunded when it is the last, else partially_refunded, except
// that a shipped or delivered order stays so (its refunded says how much
// went back).
func afterRefund(status string, last bool) string {
	switch {
	case last:
		return store.OrderRefunded
	case store.Fulfilled(status):
		return status
	}
	return store.OrderPartiallyRefunded
}

// refundAmount is what a refund of order takes: amt, or all that is left
// when amt is nil, or the decline that says why not.
func refundAmount(order store.Order, amt *money.Amount) (money.Amount, error) {
	if !Refundable(order.Status) && order.Status != store.OrderRefunded {
		return money.Amount{}, fmt.Errorf("order %q is %s, only a paid order is refunded: %w", order.OrderID, order.Status, ErrNotPaid)
	}
	left := money.Amount{Minor: order.Total - order.Refunded, Currency: money.Currency(order.Currency)}
	want := left
	if amt != nil {
		want = *amt
	}
	switch {
	case want.Currency != left.Currency:
		return money.Amount{}, fmt.Errorf("order %q is in %s, the refund in %s: %w", order.OrderID, left.Currency, want.Currency, ErrCurrencyMismatch)
	case want.Minor > left.Minor || left.Minor <= 0: // <= 0: an order refunded past its total (a broken guard) never refunds a negative amount
		return money.Amount{}, &RefundableError{OrderID: order.OrderID, Refundable: left, Requested: want}
	}
	return want, nil
}

// declineUnlessRecorded answers err, a decline found from a read, unless
// the key's record is live by now (one strongly consistent GetItem, on
// this failure path only), which it replays.
func (s *Service) declineUnlessRecorded(ctx context.Context, req idempotency.Request, err error) (Response, error) {
	resp, live, lerr := s.records.Lookup(ctx, req)
	if lerr != nil || live {
		return resp, lerr
	}
	return Response{}, err
}

// refundRaceError is a refund whose order changed between the read and the
// transaction without making it impossible: order is the order as the
// cancellation found it, to build the refund again from.
type refundRaceError struct{ order store.Order }

func (e *refundRaceError) Error() string {
	return fmt.Sprintf("order %q changed under the refund", e.order.OrderID)
}

// refundFlow refunds amt of order, as read; requested is the request's
// amount (nil: the rest).
// newRefund names the refund a refund flow writes: its id, its ledger
// entry's and the request's metadata, which both carry.
type newRefund struct {
	id, entryID string
	md          metadata.Metadata
}

func (s *Service) refundFlow(idem Idem, order store.Order, requested *money.Amount, amt money.Amount, nr newRefund) flow {
	refundID, entryID := nr.id, nr.entryID
	ok := keys.Key{PK: order.PK, SK: order.SK}
	build := func(shape store.OrderShape) idempotency.EffectFunc {
		return func(now time.Time) (*idempotency.Effect, error) {
			return s.refundEffect(order, amt, nr, shape, now)
		}
	}
	fail := func(c *txn.CancelledError) error {
		switch {
		case c.Failed(itemOrder):
			return refundOrderFailure(order.OrderID, c.Item(itemOrder), requested)
		case c.Failed(itemBalance):
			return creditFailure(order.UserID, c.Item(itemBalance), amt)
		case c.Failed(itemSummary):
			return fmt.Errorf("summary of order %q in user %q: %w", order.OrderID, order.UserID, ErrNotFound)
		}
		return nil
	}
	return flow{name: FlowRefund, idem: idem, users: []string{order.UserID}, partition: ok.PK, invocation: []string{refundID, entryID}, build: build, writesOrders: true, fail: fail}
}

// refundEffect refunds amt of order at now, in the writer's shape.
func (s *Service) refundEffect(order store.Order, amt money.Amount, nr newRefund, shape store.OrderShape, now time.Time) (*idempotency.Effect, error) {
	refundID, entryID := nr.id, nr.entryID
	uk, err := s.keys.User(order.UserID)
	if err != nil {
		return nil, err
	}
	rk, err := s.keys.Refund(order.OrderID, refundID)
	if err != nil {
		return nil, err
	}
	ts := keys.Timestamp(now)
	last := order.Refunded+amt.Minor == order.Total
	after := order
	after.Status, after.Refunded, after.UpdatedAt = afterRefund(order.Status, last), order.Refunded+amt.Minor, ts
	after.GSI1PK, _ = s.keys.OrderStatusGSI(after.Status, now, order.OrderID)
	upd, err := s.statusUpdate(after, shape)
	if err != nil {
		return nil, err
	}
	upd = upd.Set(refundedName, expression.Plus(expression.IfNotExists(refundedName, expression.Value(0)), expression.Value(amt.Minor)))
	orderUpd, err := s.items.Update(keys.Key{PK: order.PK, SK: order.SK}, upd, s.refundGuard(order, amt, last))
	if err != nil {
		return nil, err
	}
	credit, err := s.credit(uk, amt, now)
	if err != nil {
		return nil, err
	}
	summary, err := s.items.Update(keys.Key{PK: uk.PK, SK: order.UserOrderSK},
		expression.Set(statusName, expression.Value(after.Status)).Set(updatedName, expression.Value(ts)), s.items.Exists())
	if err != nil {
		return nil, err
	}
	lk, err := s.keys.Ledger(order.UserID, entryID)
	if err != nil {
		return nil, err
	}
	entry, err := s.items.PutNew(store.LedgerEntry{PK: lk.PK, SK: lk.SK, EntityType: store.TypeLedgerEntry, EntryID: entryID,
		UserID: order.UserID, Kind: store.LedgerRefund, Amount: amt.Minor, Currency: string(amt.Currency),
		OrderID: order.OrderID, RefundID: refundID, Metadata: nr.md, CreatedAt: ts}.WithLegs())
	if err != nil {
		return nil, err
	}
	r := store.Refund{PK: rk.PK, SK: rk.SK, EntityType: store.TypeRefund, RefundID: refundID, OrderID: order.OrderID,
		UserID: order.UserID, Amount: amt.Minor, Currency: string(amt.Currency), EntryID: entryID, OrderStatus: after.Status, CreatedAt: ts, Metadata: nr.md}
	put, err := s.items.PutNew(r)
	if err != nil {
		return nil, err
	}
	eff := &idempotency.Effect{Status: http.StatusCreated, Body: r}
	eff.Items.Add(itemOrder, orderUpd)
	eff.Items.Add(itemBalance, credit)
	eff.Items.Add(itemSummary, summary)
	eff.Items.Add(itemLedger, entry)
	eff.Items.Add(itemRefund, put)
	return eff, nil
}

// refundGuard is the order's condition for a refund of amt: it is paid or
// partially refunded (shipped or delivered: still the status read, so that
// a partial refund racing a fulfilment step never takes the order back a
// step), in amt's currency with the total read, and refunded + amt stays
// within the total: strictly (the order stays partially refunded), or
// exactly when last (it becomes refunded).
func (s *Service) refundGuard(order store.Order, amt money.Amount, last bool) expression.ConditionBuilder {
	status := expression.Or(statusName.Equal(expression.Value(store.OrderPaid)), statusName.Equal(expression.Value(store.OrderPartiallyRefunded)))
	if store.Fulfilled(order.Status) {
		status = statusName.Equal(expression.Value(order.Status))
	}
	cond := s.items.Exists().
		And(status).
		And(totalName.Equal(expression.Value(order.Total))).
		And(currencyName.Equal(expression.Value(string(amt.Currency))))
	limit := order.Total - amt.Minor
	switch {
	case last && limit == 0:
		return cond.And(expression.Or(expression.AttributeNotExists(refundedName), refundedName.Equal(expression.Value(0))))
	case last:
		return cond.And(refundedName.Equal(expression.Value(limit)))
	}
	return cond.And(expression.Or(expression.AttributeNotExists(refundedName), refundedName.LessThan(expression.Value(limit))))
}

// refundOrderFailure explains a refund's failed order condition from the
// order's ALL_OLD image: not paid, more than is left (declines), or a race
// that the refund of requested (nil: the rest) is built again for.
func refundOrderFailure(orderID string, old map[string]types.AttributeValue, requested *money.Amount) error {
	var o store.Order
	if len(old) == 0 || attributevalue.UnmarshalMap(old, &o) != nil {
		return fmt.Errorf("order %q: %w", orderID, ErrNotFound)
	}
	if _, err := refundAmount(o, requested); err != nil {
		return err
	}
	return &refundRaceError{order: o}
}

// statusUpdate is the update that moves an order to after.Status, in
// shape: status, what the shape moves with the status (GSI1PK to
// ORDERSTATUS#<status> while the v1 shape is written), then, then
// updatedAt.
func (s *Service) statusUpdate(after store.Order, shape store.OrderShape, then ...store.Attribute) (expression.UpdateBuilder, error) {
	upd := expression.Set(statusName, expression.Value(after.Status))
	av, err := s.items.Marshal(after)
	if err != nil {
		return upd, err
	}
	set, remove, err := shape.Paid(av)
	if err != nil {
		return upd, err
	}
	for _, a := range append(set, then...) {
		upd = upd.Set(expression.Name(a.Name), expression.Value(a.Value))
	}
	upd = upd.Set(updatedName, expression.Value(after.UpdatedAt))
	for _, name := range remove {
		upd = upd.Remove(expression.Name(name))
	}
	return upd, nil
}
