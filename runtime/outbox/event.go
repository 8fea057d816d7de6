package outbox

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/store"
)

// Type is the kind of an event; it is also the EventBridge DetailType.
type Type string

// The event types.
const (
	CreditPosted     Type = "CreditPosted"
	DebitPosted      Type = "DebitPosted"
	PaymentCreated   Type = "PaymentCreated"
	OrderPaid        Type = "OrderPaid"
	PaymentProcessed Type = "PaymentProcessed"
	HoldAuthorized   Type = "HoldAuthorized"
	HoldCaptured     Type = "HoldCaptured"
	HoldVoided       Type = "HoldVoided"
	RefundIssued     Type = "RefundIssued"
	OrderRefunded    Type = "OrderRefunded"
	OrderCancelled   Type = "OrderCancelled"
	OrderShipped     Type = "OrderShipped"
	OrderDelivered   Type = "OrderDelivered"
)

// Types lists every event type.
var Types = []Type{CreditPosted, DebitPosted, PaymentCreated, OrderPaid, PaymentProcessed, HoldAuthorized, HoldCaptured, HoldVoided,
	RefundIssued, OrderRefunded, OrderCancelled, OrderShipped, OrderDelivered}

// Event is one payment domain event, the Detail of its EventBridge entry.
type Event struct {
	// ID is stable across redeliveries and restores: the type and the id
	// of the ledger entry, payment or order it comes from.
	ID   string `json:"id"`
	Type Type   `json:"type"`
	// UserID is the user whose money moved. Every event has one: ledger
	// entries and orders name their user (PaymentCreated is read from the
	// order), and processing puts it on the payment (PaymentProcessed).
	UserID    string `json:"userId"`
	OrderID   string `json:"orderId,omitempty"`
	PaymentID string `json:"paymentId,omitempty"`
	EntryID   string `json:"entryId,omitempty"`
	// Kind is the ledger entry's kind (store.LedgerKinds).
	Kind string `json:"kind,omitempty"`
	// HoldID is on hold events and on the capture's DebitPosted.
	HoldID string `json:"holdId,omitempty"`
	// TransferID is on both ledger events of a transfer, and Counterparty
	// is the transfer's other user.
	TransferID   string `json:"transferId,omitempty"`
	Counterparty string `json:"counterparty,omitempty"`
	// RefundID is on RefundIssued and on the refund's CreditPosted.
	RefundID string `json:"refundId,omitempty"`
	// OrderStatus is on RefundIssued: the order's status once the refund
	// was made (partially_refunded or refunded; shipped or delivered for a
	// partial refund of an order in that status).
	OrderStatus string `json:"orderStatus,omitempty"`
	// Amount is in minor units of Currency, always positive.
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
	// CommittedAt is when the change was made, from the item's own
	// timestamp (createdAt, paidAt, processedAt; for PaymentCreated the
	// order's updatedAt, which charge sets to the payment's createdAt).
	CommittedAt time.Time `json:"committedAt"`
	// TraceParent is the W3C traceparent of the span that published the
	// event (the stream batch), when tracing is on: a consumer starts its
	// span as a child of it to join the trace.
	TraceParent string `json:"traceparent,omitempty"`
}

// RecordError reports a stream record that should carry an event but
// cannot be read.
type RecordError struct {
	EventID string // the stream record's eventID
	Reason  string
}

func (e *RecordError) Error() string {
	return fmt.Sprintf("outbox: stream record %s: %s", e.EventID, e.Reason)
}

// image reads the attributes of a stream image.
type image map[string]events.DynamoDBAttributeValue

func (im image) str(name string) string {
	v, ok := im[name]
	if !ok || v.DataType() != events.DataTypeString {
		return ""
	}
	return v.String()
}

func (im image) int(name string) (int64, bool) {
	v, ok := im[name]
	if !ok || v.DataType() != events.DataTypeNumber {
		return 0, false
	}
	n, err := strconv.ParseInt(v.Number(), 10, 64)
	return n, err == nil
}

// FromRecord returns the event a stream record carries, or ok false when
// it carries none. A record that should carry one but lacks what the event
// needs is a *RecordError.
// The entity type is read from schema.EntityType; see FromRecordOf for a
// table whose schema names it otherwise.
func FromRecord(r events.DynamoDBEventRecord) (ev Event, ok bool, err error) {
	return FromRecordOf(r, schema.EntityType)
}

// FromRecordOf is FromRecord for a table whose entity type attribute is
// entityTypeAttr (schema.Schema.EntityType).
func FromRecordOf(r events.DynamoDBEventRecord, entityTypeAttr string) (ev Event, ok bool, err error) {
	next, old := image(r.Change.NewImage), image(r.Change.OldImage)
	entity := next.str(entityTypeAttr)
	switch {
	case r.EventName == "INSERT" && entity == store.TypeLedgerEntry:
		ev, err = ledgerEvent(next)
	case r.EventName == "MODIFY" && entity == store.TypeOrder && gainsPayment(old, next):
		ev, err = paymentCreatedEvent(next)
	case r.EventName == "MODIFY" && entity == store.TypePayment && becomes(old, next, store.PaymentProcessed):
		ev, err = paymentEvent(next, PaymentProcessed, "processedAt")
	case r.EventName == "MODIFY" && entity == store.TypeOrder && becomes(old, next, store.OrderPaid):
		ev, err = orderPaidEvent(next)
	case r.EventName == "INSERT" && entity == store.TypeHold:
		ev, err = holdEvent(next, HoldAuthorized, "amount", "createdAt")
	case r.EventName == "MODIFY" && entity == store.TypeHold && becomes(old, next, store.HoldCaptured):
		ev, err = holdEvent(next, HoldCaptured, "captured", "updatedAt")
	case r.EventName == "MODIFY" && entity == store.TypeHold && becomes(old, next, store.HoldVoided):
		ev, err = holdEvent(next, HoldVoided, "amount", "updatedAt")
	case r.EventName == "INSERT" && entity == store.TypeRefund:
		ev, err = refundEvent(next)
	case r.EventName == "MODIFY" && entity == store.TypeOrder && becomes(old, next, store.OrderRefunded):
		ev, err = orderEvent(next, OrderRefunded, "refunded", schema.UpdatedAt)
	case r.EventName == "MODIFY" && entity == store.TypeOrder && becomes(old, next, store.OrderCancelled):
		ev, err = orderEvent(next, OrderCancelled, "total", "cancelledAt")
	case r.EventName == "MODIFY" && entity == store.TypeOrder && becomes(old, next, store.OrderShipped):
		ev, err = orderEvent(next, OrderShipped, "total", "shippedAt")
	case r.EventName == "MODIFY" && entity == store.TypeOrder && becomes(old, next, store.OrderDelivered):
		ev, err = orderEvent(next, OrderDelivered, "total", "deliveredAt")
	default:
		return Event{}, false, nil
	}
	if err == nil && ev.UserID == "" {
		err = fmt.Errorf("%s has no userId", ev.ID)
	}
	if err != nil {
		return Event{}, false, &RecordError{EventID: r.EventID, Reason: err.Error()}
	}
	if ev.CommittedAt.IsZero() {
		ev.CommittedAt = r.Change.ApproximateCreationDateTime.UTC()
	}
	return ev, true, nil
}

// becomes reports a change to status; without an old image (a NEW_IMAGE
// stream) every record in that status counts, which at-least-once
// delivery and the stable id make harmless.
func becomes(old, next image, status string) bool {
	return next.str("status") == status && (old == nil || old.str("status") != status)
}

// gainsPayment reports the order change that charge makes: paymentId
// appears (absent in the old image, present in the new). Without an old
// image (a NEW_IMAGE stream) a created order with a payment counts, so a
// later change of that order may repeat the event under its stable id, but
// settle's (status paid) does not.
func gainsPayment(old, next image) bool {
	if next.str(paymentIDAttr) == "" {
		return false
	}
	if old == nil {
		return next.str("status") == store.OrderCreated
	}
	return old.str(paymentIDAttr) == ""
}

// paymentIDAttr is the payment's id on the order and on the payment.
const paymentIDAttr = "paymentId"

func ledgerEvent(im image) (Event, error) {
	ev := Event{Type: DebitPosted, UserID: im.str("userId"), OrderID: im.str("orderId"),
		EntryID: im.str("entryId"), Kind: im.str("kind"), HoldID: im.str("holdId"),
		TransferID: im.str("transferId"), Counterparty: im.str("counterparty"), RefundID: im.str("refundId")}
	if !slices.Contains(store.LedgerKinds, ev.Kind) {
		return Event{}, fmt.Errorf("ledger entry kind %q is not one of %v", ev.Kind, store.LedgerKinds)
	}
	if store.KindSign(ev.Kind) > 0 {
		ev.Type = CreditPosted
	}
	return withMoney(ev, im, fields{id: ev.EntryID, idAttr: "entryId", amount: "amount", at: "createdAt"})
}

// holdEvent reads a hold's event: its amount from amount (the hold's, or
// what was captured) and its time from at.
func holdEvent(im image, typ Type, amount, at string) (Event, error) {
	ev := Event{Type: typ, UserID: im.str("userId"), HoldID: im.str("holdId"), EntryID: im.str("entryId")}
	return withMoney(ev, im, fields{id: ev.HoldID, idAttr: "holdId", amount: amount, at: at})
}

func paymentEvent(im image, typ Type, at string) (Event, error) {
	ev := Event{Type: typ, UserID: im.str("userId"), OrderID: im.str("orderId"), PaymentID: im.str("paymentId")}
	return withMoney(ev, im, fields{id: ev.PaymentID, idAttr: "paymentId", amount: "amount", at: at})
}

// paymentCreatedEvent reads PaymentCreated from the order that charge gave
// its payment: the payment's amount is the order's total (charge's
// condition requires them equal) and its createdAt is the order's
// updatedAt (charge stamps both with one time).
func paymentCreatedEvent(im image) (Event, error) {
	ev := Event{Type: PaymentCreated, UserID: im.str("userId"), OrderID: im.str("orderId"), PaymentID: im.str(paymentIDAttr)}
	return withMoney(ev, im, fields{id: ev.PaymentID, idAttr: paymentIDAttr, amount: "total", at: schema.UpdatedAt})
}

// refundEvent reads RefundIssued from a refund's INSERT: its amount, and
// the status it moved its order to.
func refundEvent(im image) (Event, error) {
	ev := Event{Type: RefundIssued, UserID: im.str("userId"), OrderID: im.str("orderId"), RefundID: im.str("refundId"),
		EntryID: im.str("entryId"), OrderStatus: im.str("orderStatus")}
	if ev.OrderStatus == "" {
		return Event{}, fmt.Errorf("%s %s has no orderStatus", ev.Type, ev.RefundID)
	}
	return withMoney(ev, im, fields{id: ev.RefundID, idAttr: "refundId", amount: "amount", at: "createdAt"})
}

// orderEvent reads an order's change of status to typ: its amount from
// amount, its time from at. An order changes to each status at most once,
// so the order's id makes the event's.
func orderEvent(im image, typ Type, amount, at string) (Event, error) {
	ev := Event{Type: typ, UserID: im.str("userId"), OrderID: im.str("orderId"), PaymentID: im.str("paymentId")}
	return withMoney(ev, im, fields{id: ev.OrderID, idAttr: "orderId", amount: amount, at: at})
}

func orderPaidEvent(im image) (Event, error) {
	return orderEvent(im, OrderPaid, "total", "paidAt")
}

// fields names where an event's id, amount and commit time are in an item.
type fields struct {
	id             string // the id's value
	idAttr, amount string
	at             string
}

// withMoney completes ev with its id, amount, currency and commit time.
func withMoney(ev Event, im image, f fields) (Event, error) {
	id, name := f.id, f.amount
	if id == "" {
		return Event{}, fmt.Errorf("%s has no %s", ev.Type, f.idAttr)
	}
	ev.ID = string(ev.Type) + ":" + id
	amt, ok := im.int(name)
	if !ok || amt < 0 {
		return Event{}, fmt.Errorf("%s %s has no integer %s", ev.Type, id, name)
	}
	ev.Amount = amt
	if ev.Currency = im.str("currency"); ev.Currency == "" {
		return Event{}, fmt.Errorf("%s %s has no currency", ev.Type, id)
	}
	if ts := im.str(f.at); ts != "" {
		t, err := time.Parse(time.RFC3339Nano, ts)
		if err != nil {
			return Event{}, fmt.Errorf("%s %s: %s %q is not a timestamp", ev.Type, id, f.at, ts)
		}
		ev.CommittedAt = t.UTC()
	}
	return ev, nil
}
