package outbox_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/oncetable/oncetable/runtime/outbox"
	"github.com/oncetable/oncetable/runtime/schema"
)

// TestFromItem rebuilds each item's events from its current image; the
// field-for-field comparison with the stream's events is
// TestRepublishAgainstTheRunner (runtime/republish/cli).
func TestFromItem(t *testing.T) {
	s, n := events.NewStringAttribute, events.NewNumberAttribute
	order := func(status string, extra ...string) map[string]events.DynamoDBAttributeValue {
		im := map[string]events.DynamoDBAttributeValue{schema.EntityType: s("Order"), "orderId": s("o1"), "userId": s("alice"),
			"status": s(status), "total": n("2500"), "currency": s("EUR"), "paymentId": s("pay_1"),
			"updatedAt": s("2026-12-05T10:00:03Z"), "refunded": n("2500")}
		for i := 0; i+1 < len(extra); i += 2 {
			im[extra[i]] = s(extra[i+1])
		}
		return im
	}
	charged := func(string, string) (string, error) { return "2026-12-05T10:00:01Z", nil }
	for _, c := range []struct {
		name      string
		item      map[string]events.DynamoDBAttributeValue
		chargedAt outbox.ChargedAt
		want      string
		err       bool
	}{
		{"charged order", order("created"), nil, "[PaymentCreated:pay_1@10:00:03]", false},
		{"refunded order", order("refunded", "paidAt", "2026-12-05T10:00:02Z"), charged,
			"[PaymentCreated:pay_1@10:00:01 OrderPaid:o1@10:00:02 OrderRefunded:o1@10:00:03]", false},
		{"cancelled order", order("cancelled", "cancelledAt", "2026-12-05T10:00:04Z"), charged,
			"[PaymentCreated:pay_1@10:00:01 OrderCancelled:o1@10:00:04]", false},
		{"charge time unreadable", order("paid", "paidAt", "2026-12-05T10:00:02Z"),
			func(string, string) (string, error) { return "", errors.New("throttled") }, "[]", true},
		{"profile", map[string]events.DynamoDBAttributeValue{schema.EntityType: s("User"), "userId": s("alice")}, nil, "[]", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			evs, err := outbox.FromItem(c.item, schema.EntityType, c.chargedAt)
			var got []string
			for _, ev := range evs {
				got = append(got, ev.ID+"@"+ev.CommittedAt.Format("15:04:05"))
			}
			if fmt.Sprint(got) != c.want && !(c.want == "[]" && len(got) == 0) || (err != nil) != c.err {
				t.Errorf("got %v, %v; want %s, error %v", got, err, c.want, c.err)
			}
		})
	}
}
