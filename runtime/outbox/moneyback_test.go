package outbox_test

import (
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/oncetable/oncetable/runtime/outbox"
)

func strs(kv ...string) map[string]events.DynamoDBAttributeValue {
	m := map[string]events.DynamoDBAttributeValue{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = events.NewStringAttribute(kv[i+1])
	}
	return m
}

func withNumbers(m map[string]events.DynamoDBAttributeValue, kv ...string) map[string]events.DynamoDBAttributeValue {
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = events.NewNumberAttribute(kv[i+1])
	}
	return m
}

// The ledger entries of a transfer and a capture, and a hold's changes,
// are events; a hold that is only touched (no status change) is none.
func TestTransferAndHoldEvents(t *testing.T) {
	const at = "2026-12-04T10:00:00Z"
	hold := func(status string) map[string]events.DynamoDBAttributeValue {
		return withNumbers(strs("EntityType", "Hold", "holdId", "hold_1", "userId", "u1", "status", status,
			"currency", "EUR", "createdAt", at, "updatedAt", at), "amount", "400", "captured", "150")
	}
	entry := func(kind, id string, extra ...string) map[string]events.DynamoDBAttributeValue {
		return withNumbers(strs(append([]string{"EntityType", "LedgerEntry", "entryId", id, "userId", "u1", "kind", kind,
			"currency", "EUR", "createdAt", at}, extra...)...), "amount", "150")
	}
	tests := []struct {
		name       string
		event      string
		old, next  map[string]events.DynamoDBAttributeValue
		wantType   outbox.Type
		wantID     string
		wantAmount int64
	}{
		{"transfer out", "INSERT", nil, entry("transfer_out", "tr_1-out", "transferId", "tr_1", "counterparty", "u2"), outbox.DebitPosted, "DebitPosted:tr_1-out", 150},
		{"transfer in", "INSERT", nil, entry("transfer_in", "tr_1-in", "transferId", "tr_1", "counterparty", "u2"), outbox.CreditPosted, "CreditPosted:tr_1-in", 150},
		{"capture entry", "INSERT", nil, entry("capture", "cap_1", "holdId", "hold_1"), outbox.DebitPosted, "DebitPosted:cap_1", 150},
		{"hold authorized", "INSERT", nil, hold("authorized"), outbox.HoldAuthorized, "HoldAuthorized:hold_1", 400},
		{"hold captured", "MODIFY", hold("authorized"), hold("captured"), outbox.HoldCaptured, "HoldCaptured:hold_1", 150},
		{"hold voided", "MODIFY", hold("authorized"), hold("voided"), outbox.HoldVoided, "HoldVoided:hold_1", 400},
		{"hold touched", "MODIFY", hold("captured"), hold("captured"), "", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := events.DynamoDBEventRecord{EventID: "e1", EventName: tt.event,
				Change: events.DynamoDBStreamRecord{OldImage: tt.old, NewImage: tt.next}}
			ev, ok, err := outbox.FromRecord(r)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				if tt.wantType != "" {
					t.Fatalf("no event, want %s", tt.wantType)
				}
				return
			}
			if ev.Type != tt.wantType || ev.ID != tt.wantID || ev.Amount != tt.wantAmount || ev.UserID != "u1" {
				t.Fatalf("event = %+v; want %s %s of %d for u1", ev, tt.wantType, tt.wantID, tt.wantAmount)
			}
			checkAgainstSchema(t, ev)
		})
	}
}

func TestUnknownLedgerKindIsUnreadable(t *testing.T) {
	r := events.DynamoDBEventRecord{EventID: "e1", EventName: "INSERT", Change: events.DynamoDBStreamRecord{
		NewImage: withNumbers(strs("EntityType", "LedgerEntry", "entryId", "x", "userId", "u1", "kind", "gift", "currency", "EUR"), "amount", "1")}}
	if _, _, err := outbox.FromRecord(r); err == nil {
		t.Fatal("a ledger entry of an unknown kind was read as an event")
	}
}

// A refund's INSERT is RefundIssued, with the status it moved its order
// to; the order's change to refunded is OrderRefunded (of all that was
// refunded), and its change to partially_refunded is none: RefundIssued
// says it. An order's change to cancelled is OrderCancelled, of its total;
// to shipped OrderShipped and to delivered OrderDelivered, of its total at
// shippedAt and deliveredAt. A partial refund of a shipped order keeps it
// shipped: no event of the order's.
func TestRefundEvents(t *testing.T) {
	const at = "2026-12-05T10:00:00Z"
	refund := func(status string) map[string]events.DynamoDBAttributeValue {
		im := withNumbers(strs("EntityType", "Refund", "refundId", "rf_1", "orderId", "o1", "userId", "u1", "entryId", "rfe_1",
			"currency", "EUR", "createdAt", at), "amount", "600")
		if status != "" {
			im["orderStatus"] = events.NewStringAttribute(status)
		}
		return im
	}
	order := func(status string, refunded string) map[string]events.DynamoDBAttributeValue {
		return withNumbers(strs("EntityType", "Order", "orderId", "o1", "userId", "u1", "paymentId", "p1", "status", status,
			"currency", "EUR", "updatedAt", at), "total", "2500", "refunded", refunded)
	}
	tests := []struct {
		name       string
		event      string
		old, next  map[string]events.DynamoDBAttributeValue
		wantType   outbox.Type
		wantID     string
		wantAmount int64
		wantStatus string
		wantErr    bool
	}{
		{name: "partial refund", event: "INSERT", next: refund("partially_refunded"), wantType: outbox.RefundIssued, wantID: "RefundIssued:rf_1", wantAmount: 600, wantStatus: "partially_refunded"},
		{name: "last refund", event: "INSERT", next: refund("refunded"), wantType: outbox.RefundIssued, wantID: "RefundIssued:rf_1", wantAmount: 600, wantStatus: "refunded"},
		{name: "refund without its order's status", event: "INSERT", next: refund(""), wantErr: true},
		{name: "order refunded", event: "MODIFY", old: order("partially_refunded", "1900"), next: order("refunded", "2500"), wantType: outbox.OrderRefunded, wantID: "OrderRefunded:o1", wantAmount: 2500},
		{name: "order partially refunded", event: "MODIFY", old: order("paid", "0"), next: order("partially_refunded", "600")},
		{name: "order refunded again", event: "MODIFY", old: order("partially_refunded", "1900"), next: order("partially_refunded", "2400")},
		{name: "order cancelled", event: "MODIFY", old: order("created", "0"), next: order("cancelled", "0"), wantType: outbox.OrderCancelled, wantID: "OrderCancelled:o1", wantAmount: 2500},
		{name: "order shipped", event: "MODIFY", old: order("paid", "0"), next: order("shipped", "0"), wantType: outbox.OrderShipped, wantID: "OrderShipped:o1", wantAmount: 2500},
		{name: "order refunded in part, shipped", event: "MODIFY", old: order("partially_refunded", "600"), next: order("shipped", "600"), wantType: outbox.OrderShipped, wantID: "OrderShipped:o1", wantAmount: 2500},
		{name: "order delivered", event: "MODIFY", old: order("shipped", "0"), next: order("delivered", "0"), wantType: outbox.OrderDelivered, wantID: "OrderDelivered:o1", wantAmount: 2500},
		{name: "shipped order refunded in part", event: "MODIFY", old: order("shipped", "0"), next: order("shipped", "600")},
		{name: "delivered order refunded", event: "MODIFY", old: order("delivered", "600"), next: order("refunded", "2500"), wantType: outbox.OrderRefunded, wantID: "OrderRefunded:o1", wantAmount: 2500},
		{name: "partial refund of a shipped order", event: "INSERT", next: refund("shipped"), wantType: outbox.RefundIssued, wantID: "RefundIssued:rf_1", wantAmount: 600, wantStatus: "shipped"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := events.DynamoDBEventRecord{EventID: "e1", EventName: tt.event,
				Change: events.DynamoDBStreamRecord{OldImage: tt.old, NewImage: tt.next}}
			ev, ok, err := outbox.FromRecord(r)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want an error: %v", err, tt.wantErr)
			}
			if !ok {
				if tt.wantType != "" {
					t.Fatalf("no event, want %s", tt.wantType)
				}
				return
			}
			if ev.Type != tt.wantType || ev.ID != tt.wantID || ev.Amount != tt.wantAmount || ev.UserID != "u1" || ev.OrderStatus != tt.wantStatus {
				t.Fatalf("event = %+v; want %s %s of %d for u1, order status %q", ev, tt.wantType, tt.wantID, tt.wantAmount, tt.wantStatus)
			}
			checkAgainstSchema(t, ev)
		})
	}
}
