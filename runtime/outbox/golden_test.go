package outbox_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/oncetable/oncetable/runtime/outbox"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// schemaPath is the JSON Schema of Event in the docs.
var schemaPath = filepath.Join("..", "..", "docs", "events.schema.json")

func loadBatch(t *testing.T) events.DynamoDBEvent {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "stream-batch.json"))
	if err != nil {
		t.Fatal(err)
	}
	var batch events.DynamoDBEvent
	if err := json.Unmarshal(raw, &batch); err != nil {
		t.Fatalf("testdata/stream-batch.json: %v", err)
	}
	return batch
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run go test -update to accept):\n got %s\nwant %s", path, got, want)
	}
}

// TestEventsGolden derives the events of a saved batch of stream records
// holding every kind of item the table stores.
func TestEventsGolden(t *testing.T) {
	var got []outbox.Event
	for _, r := range loadBatch(t).Records {
		ev, ok, err := outbox.FromRecord(r)
		if err != nil {
			t.Fatalf("record %s: %v", r.EventID, err)
		}
		if ok {
			got = append(got, ev)
		}
	}
	out, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, filepath.Join("testdata", "events.golden.json"), append(out, '\n'))
	for _, ev := range got {
		checkAgainstSchema(t, ev)
	}
}

// TestSchemaGolden keeps docs/events.schema.json the schema of Event.
func TestSchemaGolden(t *testing.T) {
	out, err := json.MarshalIndent(schemaOf(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, schemaPath, append(out, '\n'))
}

// schemaOf is the JSON Schema (draft 2020-12) of Event, from its fields.
func schemaOf() map[string]any {
	props := map[string]any{}
	var required []string
	typ := reflect.TypeFor[outbox.Event]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		p := map[string]any{}
		switch {
		case f.Type == reflect.TypeFor[time.Time]():
			p["type"], p["format"] = "string", "date-time"
		case f.Type == reflect.TypeFor[outbox.Type]():
			p["type"], p["enum"] = "string", outbox.Types
		case f.Type.Kind() == reflect.Int64:
			p["type"], p["minimum"] = "integer", 0
		default:
			p["type"], p["minLength"] = "string", 1
		}
		props[name] = p
		if opts != "omitempty" {
			required = append(required, name)
		}
	}
	return map[string]any{
		"$schema":              "https://json-schema.org/draft/2020-12/schema",
		"$id":                  "https://github.com/oncetable/oncetable/docs/events.schema.json",
		"title":                "oncetable payment event (EventBridge Detail)",
		"type":                 "object",
		"properties":           props,
		"required":             required,
		"additionalProperties": false,
	}
}

// checkAgainstSchema checks an event's JSON against the schema in docs:
// required members present, no others, types as declared.
func checkAgainstSchema(t *testing.T, ev outbox.Event) {
	t.Helper()
	raw, err := os.ReadFile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Properties map[string]struct {
			Type string   `json:"type"`
			Enum []string `json:"enum"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatalf("%s: %v", schemaPath, err)
	}
	b, _ := json.Marshal(ev)
	var doc map[string]any
	_ = json.Unmarshal(b, &doc)
	for _, r := range schema.Required {
		if _, ok := doc[r]; !ok {
			t.Errorf("event %s lacks required %s", ev.ID, r)
		}
	}
	for k, v := range doc {
		p, ok := schema.Properties[k]
		if !ok {
			t.Errorf("event %s has %s, which the schema does not declare", ev.ID, k)
			continue
		}
		switch v := v.(type) {
		case string:
			if p.Type != "string" || (len(p.Enum) > 0 && !contains(p.Enum, v)) {
				t.Errorf("event %s: %s = %q does not fit %+v", ev.ID, k, v, p)
			}
		case float64:
			if p.Type != "integer" || v != float64(int64(v)) {
				t.Errorf("event %s: %s = %v does not fit %+v", ev.ID, k, v, p)
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestFromRecordRejectsUnreadableEventRecords(t *testing.T) {
	base := loadBatch(t).Records[1] // the credit's ledger entry
	for _, c := range []struct {
		name   string
		attr   string
		value  events.DynamoDBAttributeValue
		reason string
	}{
		{"amount not a number", "amount", events.NewStringAttribute("12"), "no integer amount"},
		{"fractional amount", "amount", events.NewNumberAttribute("1.5"), "no integer amount"},
		{"no currency", "currency", events.NewNullAttribute(), "no currency"},
		{"unknown kind", "kind", events.NewStringAttribute("chargeback"), `kind "chargeback"`},
		{"bad timestamp", "createdAt", events.NewStringAttribute("yesterday"), "not a timestamp"},
		{"no user", "userId", events.NewNullAttribute(), "no userId"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := base
			r.Change.NewImage = map[string]events.DynamoDBAttributeValue{}
			for k, v := range base.Change.NewImage {
				r.Change.NewImage[k] = v
			}
			r.Change.NewImage[c.attr] = c.value
			_, ok, err := outbox.FromRecord(r)
			var re *outbox.RecordError
			if ok || err == nil || !errorsAs(err, &re) || !strings.Contains(re.Reason, c.reason) || re.EventID != base.EventID {
				t.Errorf("got ok %v, err %v; want a RecordError for %s containing %q", ok, err, base.EventID, c.reason)
			}
		})
	}
}

func TestFromRecordOfAnotherSchema(t *testing.T) {
	r := loadBatch(t).Records[1] // the credit's ledger entry
	img := map[string]events.DynamoDBAttributeValue{}
	for k, v := range r.Change.NewImage {
		img[k] = v
	}
	img["type"] = img["EntityType"]
	delete(img, "EntityType")
	r.Change.NewImage = img
	if _, ok, err := outbox.FromRecord(r); ok || err != nil {
		t.Errorf("FromRecord on a renamed entity type: ok %v, err %v; want no event", ok, err)
	}
	ev, ok, err := outbox.FromRecordOf(r, "type")
	if !ok || err != nil || ev.ID != "CreditPosted:e1" {
		t.Errorf("FromRecordOf(type) = %+v, %v, %v; want CreditPosted:e1", ev, ok, err)
	}
}

// recordOf returns the batch's record with that eventID.
func recordOf(t *testing.T, id string) events.DynamoDBEventRecord {
	t.Helper()
	for _, r := range loadBatch(t).Records {
		if r.EventID == id {
			return r
		}
	}
	t.Fatalf("testdata/stream-batch.json has no record %s", id)
	return events.DynamoDBEventRecord{}
}

// without is an image without the named attribute.
func without(im map[string]events.DynamoDBAttributeValue, name string) map[string]events.DynamoDBAttributeValue {
	out := map[string]events.DynamoDBAttributeValue{}
	for k, v := range im {
		if k != name {
			out[k] = v
		}
	}
	return out
}

// TestPaymentEventsNameTheUser: charge's request names only the order, so
// PaymentCreated is read from the order's MODIFY that gains paymentId (it
// has the user), the payment's INSERT carries none and yields nothing, and
// processing puts the user on the payment for PaymentProcessed. An
// event-bearing record without a user is a RecordError, not an event
// without one.
func TestPaymentEventsNameTheUser(t *testing.T) {
	for _, c := range []struct {
		record, want string
	}{
		{"ev108", "PaymentCreated:p1"},   // the charge's order MODIFY
		{"ev112", "PaymentProcessed:p1"}, // the payment processed
	} {
		r := recordOf(t, c.record)
		ev, ok, err := outbox.FromRecord(r)
		if !ok || err != nil || ev.ID != c.want || ev.UserID != "u1" {
			t.Errorf("%s: %+v %v %v, want %s of user u1", c.record, ev, ok, err, c.want)
		}
		r.Change.NewImage = without(r.Change.NewImage, "userId")
		var re *outbox.RecordError
		if _, ok, err := outbox.FromRecord(r); ok || !errorsAs(err, &re) || !strings.Contains(re.Reason, "no userId") {
			t.Errorf("%s without userId: ok %v, err %v; want a RecordError naming userId", c.record, ok, err)
		}
	}
	if ev, ok, err := outbox.FromRecord(recordOf(t, "ev109")); ok || err != nil {
		t.Errorf("the payment's INSERT: %+v %v %v, want no event (PaymentCreated is the order's)", ev, ok, err)
	}
}

// TestPaymentCreatedFromTheOrder: only the order change that gains a
// paymentId is PaymentCreated, with the payment's amount (the total) and
// commit time (updatedAt, which charge stamps with the payment's
// createdAt); settle's change of a charged order is OrderPaid alone.
func TestPaymentCreatedFromTheOrder(t *testing.T) {
	charge, settle := recordOf(t, "ev108"), recordOf(t, "ev110")
	created, err := time.Parse(time.RFC3339Nano, recordOf(t, "ev109").Change.NewImage["createdAt"].String())
	if err != nil {
		t.Fatal(err)
	}
	newImageOnly := func(r events.DynamoDBEventRecord) events.DynamoDBEventRecord {
		r.Change.OldImage = nil
		return r
	}
	noPaymentYet := charge
	noPaymentYet.Change.NewImage = without(charge.Change.NewImage, "paymentId")
	for _, c := range []struct {
		name string
		r    events.DynamoDBEventRecord
		want string // event id, "" for none
	}{
		{"charge: paymentId appears", charge, "PaymentCreated:p1"},
		{"settle of the charged order", settle, "OrderPaid:o1"},
		{"an order change without a payment", noPaymentYet, ""},
		{"charge on a NEW_IMAGE stream (created, with a payment)", newImageOnly(charge), "PaymentCreated:p1"},
		{"settle on a NEW_IMAGE stream", newImageOnly(settle), "OrderPaid:o1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ev, ok, err := outbox.FromRecord(c.r)
			if err != nil || ok != (c.want != "") || ev.ID != c.want {
				t.Fatalf("FromRecord = %q %v %v, want %q", ev.ID, ok, err, c.want)
			}
			if ev.Type == outbox.PaymentCreated && (ev.Amount != 2500 || !ev.CommittedAt.Equal(created)) {
				t.Errorf("PaymentCreated amount %d at %s, want the payment's 2500 at its createdAt %s", ev.Amount, ev.CommittedAt, created)
			}
		})
	}
}
