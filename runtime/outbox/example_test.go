package outbox_test

import (
	"fmt"

	"github.com/aws/aws-lambda-go/events"

	"github.com/oncetable/oncetable/runtime/outbox"
)

// A stream record of a credit's ledger entry carries a CreditPosted event;
// the profile's balance change in the same transaction carries none.
func ExampleFromRecord() {
	ledger := events.DynamoDBEventRecord{EventName: "INSERT", Change: events.DynamoDBStreamRecord{
		NewImage: map[string]events.DynamoDBAttributeValue{
			"EntityType": events.NewStringAttribute("LedgerEntry"),
			"entryId":    events.NewStringAttribute("01JDX4"),
			"userId":     events.NewStringAttribute("u1"),
			"kind":       events.NewStringAttribute("credit"),
			"amount":     events.NewNumberAttribute("2500"),
			"currency":   events.NewStringAttribute("EUR"),
			"createdAt":  events.NewStringAttribute("2026-11-29T20:00:00.000000000Z"),
		}}}
	profile := events.DynamoDBEventRecord{EventName: "MODIFY", Change: events.DynamoDBStreamRecord{
		NewImage: map[string]events.DynamoDBAttributeValue{
			"EntityType": events.NewStringAttribute("User"),
			"balance":    events.NewNumberAttribute("2500"),
		}}}
	for _, r := range []events.DynamoDBEventRecord{ledger, profile} {
		ev, ok, err := outbox.FromRecord(r)
		fmt.Println(ev.ID, ev.Type, ev.Amount, ev.Currency, ev.CommittedAt.Format("15:04"), ok, err)
	}
	// Output:
	// CreditPosted:01JDX4 CreditPosted 2500 EUR 20:00 true <nil>
	//   0  00:00 false <nil>
}
