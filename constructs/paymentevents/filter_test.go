package paymentevents_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/oncetable/oncetable/constructs/paymentevents"
	"github.com/oncetable/oncetable/runtime/outbox"
	"github.com/oncetable/oncetable/runtime/schema"
)

// admitted is what the mapping's filter (one pattern per EventRecord, on
// eventName and the new image's entity type) lets through.
func admitted(r events.DynamoDBEventRecord) bool {
	et := r.Change.NewImage[schema.EntityType]
	for _, er := range paymentevents.EventRecords {
		if r.EventName == er.EventName && et.DataType() == events.DataTypeString && slices.Contains(er.EntityTypes, et.String()) {
			return true
		}
	}
	return false
}

// TestFilterAdmitsEveryEventRecord runs the filter over runtime/outbox's
// saved batch (every kind of item the table stores): each record that
// carries an event passes, and records of an entity and eventName that
// never carry one (the payment's INSERT among them) do not.
func TestFilterAdmitsEveryEventRecord(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "runtime", "outbox", "testdata", "stream-batch.json"))
	if err != nil {
		t.Fatal(err)
	}
	var batch events.DynamoDBEvent
	if err := json.Unmarshal(raw, &batch); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{} // eventName/entity type -> some record carries an event
	for _, r := range batch.Records {
		ev, ok, err := outbox.FromRecord(r)
		if err != nil {
			t.Fatalf("record %s: %v", r.EventID, err)
		}
		k := r.EventName + "/" + r.Change.NewImage[schema.EntityType].String()
		kinds[k] = kinds[k] || ok
		if ok && !admitted(r) {
			t.Errorf("record %s (%s) carries %s, but the filter drops it", r.EventID, k, ev.ID)
		}
	}
	for k, carries := range kinds {
		r := events.DynamoDBEventRecord{}
		name, et, _ := strings.Cut(k, "/")
		r.EventName, r.Change.NewImage = name, map[string]events.DynamoDBAttributeValue{schema.EntityType: events.NewStringAttribute(et)}
		if !carries && admitted(r) {
			t.Errorf("the filter admits %s records, which carry no event", k)
		}
	}
	if carries, ok := kinds["INSERT/Payment"]; !ok || carries || !kinds["MODIFY/Order"] {
		t.Errorf("the batch should hold a payment INSERT (no event) and an order MODIFY with one: %v", kinds)
	}
}
