package payments

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/batch"
	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/metadata"
	"github.com/oncetable/oncetable/runtime/money"
	"github.com/oncetable/oncetable/runtime/store"
	"github.com/oncetable/oncetable/runtime/txn"
)

// Settle pays an order from its user's balance, all or nothing, in one
// TransactWriteItems:
//
//  0. the order: created -> paid (condition: exists, created, total,
//     currency and payment as read), GSI1PK moves to ORDERSTATUS#paid;
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
// expected is not nil it must equal the order total. An order is settled
// only after its charge (ErrNotCharged otherwise): the charge is the
// payment of the order's total that settle completes, and the paid order
// names it. Status 200 with the paid order. The settle's metadata is on
// its ledger entry, and its keys are set on the order's.
func (s *Service) Settle(ctx context.Context, idem Idem, orderID string, expected *money.Amount, opts ...func(*FlowOptions)) (Response, error) {
	o, err := flowOptions(opts)
	if err != nil {
		return Response{}, err
	}
	req, order, replay, err := s.readOrder(ctx, idem, orderID)
	if err != nil || replay != nil {
		return deref(replay), err
	}
	if order.Status != store.OrderCreated {
		return s.paidElsewhere(ctx, req, orderID, order.Status)
	}
	total := money.Amount{Minor: order.Total, Currency: money.Currency(order.Currency)}
	if expected != nil && *expected != total {
		return Response{}, mismatch(orderID, total, *expected)
	}
	if order.PaymentID == "" {
		return Response{}, notCharged(orderID)
	}
	if _, err := metadata.Merge(order.Metadata, o.Metadata); err != nil {
		return Response{}, err
	}
	return s.runTaking(ctx, func(rel release) (flow, error) { return s.settleFlow(idem, *order, total, o.Metadata, rel) })
}

// notCharged is the decline of a settle of an order without its charge.
func notCharged(orderID string) error {
	return fmt.Errorf("order %q has no payment: charge its total (POST /orders/%s/payments) before settling it: %w", orderID, orderID, ErrNotCharged)
}

func deref(r *Response) Response {
	if r == nil {
		return Response{}
	}
	return *r
}

// readOrder reads orderID's order and idem's record in one strongly
// consistent BatchGetItem, for a flow whose request names only the order
// (settle, refund, cancel): the record's request, and either the stored
// response when the record is live or the order (ErrNotFound when there is
// none).
func (s *Service) readOrder(ctx context.Context, idem Idem, orderID string) (idempotency.Request, *store.Order, *Response, error) {
	ok, err := s.keys.Order(orderID)
	if err != nil {
		return idempotency.Request{}, nil, nil, err
	}
	req := s.idemRequest(idem, ok.PK)
	got, replay, err := s.readWithRecord(ctx, req, ok)
	if err != nil || replay != nil {
		return req, nil, replay, err
	}
	item, found := got[ok.SK]
	if !found {
		return req, nil, nil, fmt.Errorf("order %q: %w", orderID, ErrNotFound)
	}
	order := new(store.Order)
	return req, order, nil, s.items.Unmarshal(item, order)
}

// readWithRecord reads the items at ks together with req's idempotency
// record (at its former place too, when req names one) in one strongly
// consistent BatchGetItem: the read a flow makes when it needs the state
// it acts on before it can build its effect. A live record answers the
// call, with its stored response; otherwise the items found are returned
// by sort key (the keys' sort keys must differ from each other).
func (s *Service) readWithRecord(ctx context.Context, req idempotency.Request, ks ...keys.Key) (map[string]map[string]types.AttributeValue, *Response, error) {
	read := make([]map[string]types.AttributeValue, 0, len(ks)+2)
	for _, k := range ks {
		read = append(read, s.items.Key(k))
	}
	recKey := s.records.Key(req)
	read = append(read, recKey)
	if lk := s.records.LegacyKey(req); lk != nil {
		read = append(read, lk)
	}
	got, err := batch.Get(ctx, s.b.DB(), s.items.Table, read,
		batch.Options{ConsistentRead: true, Backoff: s.b.Retry()})
	if err != nil {
		return nil, nil, err
	}
	recSK := recKey[s.items.Schema.SortKey].(*types.AttributeValueMemberS).Value
	bySK := make(map[string]map[string]types.AttributeValue, len(ks))
	for _, item := range got {
		sk, _ := item[s.items.Schema.SortKey].(*types.AttributeValueMemberS)
		switch {
		case sk == nil:
		case sk.Value == recSK:
			resp, live, err := s.records.Replay(item, req)
			if err != nil || live {
				return nil, &resp, err
			}
		default:
			bySK[sk.Value] = item
		}
	}
	return bySK, nil, nil
}

func (s *Service) settleFlow(idem Idem, order store.Order, total money.Amount, md metadata.Metadata, rel release) (flow, error) {
	uk, err := s.keys.User(order.UserID)
	if err != nil {
		return flow{}, err
	}
	ok := keys.Key{PK: order.PK, SK: order.SK}
	entryID := s.entryID("st", idem)
	build := func(shape store.OrderShape) idempotency.EffectFunc {
		return func(now time.Time) (*idempotency.Effect, error) {
			return s.settleEffect(order, uk, total, settleEntry{id: entryID, md: md}, shape, now, rel)
		}
	}
	fail := func(c *txn.CancelledError) error {
		switch {
		case c.Failed(itemOrder):
			return orderFailure(order.OrderID, c.Item(itemOrder), nil)
		case c.Failed(itemBalance):
			return s.takeFailure(order.UserID, c.Item(itemBalance), total, rel)
		case c.Failed(itemSummary):
			return fmt.Errorf("summary of order %q in user %q: %w", order.OrderID, order.UserID, ErrNotFound)
		}
		return nil
	}
	return flow{name: FlowSettle, idem: idem, users: []string{order.UserID}, partition: ok.PK, invocation: []string{entryID}, build: build, writesOrders: true, fail: fail}, nil
}

// settleEntry is a settle's ledger entry: its id and the request's
// metadata.
type settleEntry struct {
	id string
	md metadata.Metadata
}

// settleEffect pays order at now, in the writer's shape: the order, the
// guarded debit, the summary and a ledger entry.
func (s *Service) settleEffect(order store.Order, uk keys.Key, total money.Amount, e settleEntry, shape store.OrderShape, now time.Time, rel release) (*idempotency.Effect, error) {
	ts := keys.Timestamp(now)
	gpk, _ := s.keys.OrderStatusGSI(store.OrderPaid, now, order.OrderID)
	paid := order
	paid.Status, paid.GSI1PK, paid.PaidAt, paid.UpdatedAt = store.OrderPaid, gpk, ts, ts
	merged, err := metadata.Merge(order.Metadata, e.md)
	if err != nil {
		return nil, err
	}
	paid.Metadata = merged
	eff := &idempotency.Effect{Status: http.StatusOK, Body: paid}
	pay, err := s.paidUpdate(paid, shape)
	if err != nil {
		return nil, err
	}
	if len(e.md) > 0 {
		pay = pay.Set(metadataName, expression.Value(merged))
	}
	upd, err := s.items.Update(keys.Key{PK: order.PK, SK: order.SK}, pay, s.payable(total).And(paymentIDName.Equal(expression.Value(order.PaymentID))))
	if err != nil {
		return nil, err
	}
	eff.Items.Add(itemOrder, upd)
	debit, err := s.guardedDebit(uk, total, now, rel)
	if err != nil {
		return nil, err
	}
	eff.Items.Add(itemBalance, debit)
	summary, err := s.items.Update(keys.Key{PK: uk.PK, SK: order.UserOrderSK},
		expression.Set(statusName, expression.Value(store.OrderPaid)).Set(updatedName, expression.Value(ts)),
		s.items.Exists())
	if err != nil {
		return nil, err
	}
	eff.Items.Add(itemSummary, summary)
	entry, err := s.ledgerPut(order.UserID, now, e.id, store.LedgerSettle, total, order.OrderID, e.md)
	if err != nil {
		return nil, err
	}
	eff.Items.Add(itemLedger, entry)
	return eff, nil
}

// paidUpdate sets the order paid, in shape (statusUpdate), with paidAt.
func (s *Service) paidUpdate(paid store.Order, shape store.OrderShape) (expression.UpdateBuilder, error) {
	return s.statusUpdate(paid, shape, store.Attribute{Name: "paidAt", Value: &types.AttributeValueMemberS{Value: paid.PaidAt}})
}

// paidElsewhere answers a settle that found the order no longer payable.
// BatchGetItem reads its keys at different moments (and may hand some back
// as UnprocessedKeys), so this key's own first attempt may have paid the
// order after its record was read as absent. One strongly consistent read of
// the record, on this failure path only, tells a replay from a real 409.
func (s *Service) paidElsewhere(ctx context.Context, req idempotency.Request, orderID, status string) (Response, error) {
	resp, live, err := s.records.Lookup(ctx, req)
	if err != nil || live {
		return resp, err
	}
	return Response{}, notPayable(orderID, status)
}
