package outbox

import (
	"fmt"
	"maps"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/store"
)

// ChargedAt returns the createdAt of an order's payment (the payment
// item's, which charge stamped on the order's updatedAt too).
type ChargedAt func(orderID, paymentID string) (string, error)

// FromItem returns every event the stream has carried for one item of the
// table, rebuilt from the item as it is now: an item's changes are
// monotonic (an order goes created → paid → refunded, a hold authorized →
// captured), so its current image says which events it produced. Each
// event is the one FromRecordOf derives from the record that produced it,
// with the same id, amount and commit time:
//
//	ledger entry                      CreditPosted or DebitPosted
//	hold                              HoldAuthorized, and HoldCaptured or HoldVoided
//	refund                            RefundIssued
//	payment processed                 PaymentProcessed
//	order with a payment              PaymentCreated (time from chargedAt once the order moved on)
//	order paid (paidAt)               OrderPaid
//	order shipped, delivered          OrderShipped, OrderDelivered (shippedAt, deliveredAt)
//	order refunded or cancelled       OrderRefunded or OrderCancelled
//
// chargedAt is called only for an order past created, whose updatedAt is
// no longer its charge's. Items that carry no event give none.
func FromItem(item map[string]events.DynamoDBAttributeValue, entityTypeAttr string, chargedAt ChargedAt) ([]Event, error) {
	im := image(item)
	var changes []events.DynamoDBEventRecord
	record := func(name string, next image) {
		changes = append(changes, events.DynamoDBEventRecord{EventName: name, Change: events.DynamoDBStreamRecord{NewImage: next}})
	}
	switch im.str(entityTypeAttr) {
	case store.TypeLedgerEntry, store.TypeRefund:
		record("INSERT", im)
	case store.TypeHold:
		// As authorize inserted it: capture adds the entry's id later.
		authorized := with(im, "status", store.HoldAuthorized)
		delete(authorized, "entryId")
		record("INSERT", authorized)
		if s := im.str("status"); s == store.HoldCaptured || s == store.HoldVoided {
			record("MODIFY", im)
		}
	case store.TypePayment:
		record("MODIFY", im)
	case store.TypeOrder:
		charged, err := chargedImage(im, chargedAt)
		if err != nil {
			return nil, err
		}
		if charged != nil {
			record("MODIFY", charged)
		}
		for _, st := range []struct{ at, status string }{
			{"paidAt", store.OrderPaid}, {"shippedAt", store.OrderShipped}, {"deliveredAt", store.OrderDelivered},
		} {
			if im.str(st.at) != "" {
				record("MODIFY", with(im, "status", st.status))
			}
		}
		if s := im.str("status"); s == store.OrderRefunded || s == store.OrderCancelled {
			record("MODIFY", im)
		}
	}
	var out []Event
	for _, r := range changes {
		// No old image: each record reads as on a NEW_IMAGE stream.
		r.EventID = im.str(schema.PartitionKey) + "/" + im.str(schema.SortKey)
		ev, ok, err := FromRecordOf(r, entityTypeAttr)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, ev)
		}
	}
	return out, nil
}

// chargedImage is the order as charge left it (status created, updatedAt
// the payment's createdAt), or nil when it has no payment.
func chargedImage(order image, chargedAt ChargedAt) (image, error) {
	payment := order.str(paymentIDAttr)
	if payment == "" {
		return nil, nil
	}
	if order.str("status") == store.OrderCreated {
		return order, nil
	}
	at, err := chargedAt(order.str("orderId"), payment)
	if err != nil {
		return nil, fmt.Errorf("outbox: the charge time of order %s (payment %s): %w", order.str("orderId"), payment, err)
	}
	return with(with(order, "status", store.OrderCreated), schema.UpdatedAt, at), nil
}

// with is a copy of im with name set to the string value.
func with(im image, name, value string) image {
	out := maps.Clone(im)
	out[name] = events.NewStringAttribute(value)
	return out
}

// StreamImage is a table item as a stream record's image carries it, for
// FromItem and FromRecord.
func StreamImage(m map[string]types.AttributeValue) map[string]events.DynamoDBAttributeValue {
	out := make(map[string]events.DynamoDBAttributeValue, len(m))
	for k, v := range m {
		out[k] = lambdaValue(v)
	}
	return out
}

func lambdaValue(v types.AttributeValue) events.DynamoDBAttributeValue {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return events.NewStringAttribute(v.Value)
	case *types.AttributeValueMemberN:
		return events.NewNumberAttribute(v.Value)
	case *types.AttributeValueMemberB:
		return events.NewBinaryAttribute(v.Value)
	case *types.AttributeValueMemberBOOL:
		return events.NewBooleanAttribute(v.Value)
	case *types.AttributeValueMemberSS:
		return events.NewStringSetAttribute(v.Value)
	case *types.AttributeValueMemberNS:
		return events.NewNumberSetAttribute(v.Value)
	case *types.AttributeValueMemberBS:
		return events.NewBinarySetAttribute(v.Value)
	case *types.AttributeValueMemberL:
		list := make([]events.DynamoDBAttributeValue, len(v.Value))
		for i, e := range v.Value {
			list[i] = lambdaValue(e)
		}
		return events.NewListAttribute(list)
	case *types.AttributeValueMemberM:
		return events.NewMapAttribute(StreamImage(v.Value))
	}
	return events.NewNullAttribute()
}
