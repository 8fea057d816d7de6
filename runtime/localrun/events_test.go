package localrun_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/oncetable/oncetable/runtime/localrun"
	"github.com/oncetable/oncetable/runtime/outbox"
	"github.com/oncetable/oncetable/runtime/platform"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/store"
)

// TestLocalEvents drives the production events handler from the engine's
// stream: a credit, a debit, an order charged, settled and processed
// through the API become events in the log and at GET /_local/events.
func TestLocalEvents(t *testing.T) {
	dir := t.TempDir()
	s, out := start(t, dir)
	defer s.Shutdown(t.Context())
	for _, c := range []struct{ path, body, key string }{
		{"/users", `{"userId":"alice","name":"Alice","email":"alice@example.com"}`, ""},
		{"/users/alice/credits", `{"amount":500,"currency":"EUR"}`, "k1"},
		{"/users/alice/debits", `{"amount":200,"currency":"EUR"}`, "k2"},
		{"/users/alice/orders", `{"orderId":"o1","currency":"EUR","items":[{"productId":"book","quantity":2,"unitPrice":100}]}`, "k3"},
		{"/orders/o1/payments", `{"amount":200,"currency":"EUR"}`, "k4"},
		{"/orders/o1/settle", ``, "k5"},
	} {
		var headers []string
		if c.key != "" {
			headers = []string{"Idempotency-Key", c.key}
		}
		if resp, body := call(t, "POST", s.APIURL+c.path, c.body, headers...); resp.StatusCode/100 != 2 {
			t.Fatalf("POST %s: %d %s", c.path, resp.StatusCode, body)
		}
	}
	resp, body := call(t, "GET", s.APIURL+"/orders/o1", "")
	var order struct{ Payments []struct{ PaymentID string } }
	if json.Unmarshal([]byte(body), &order) != nil || len(order.Payments) != 1 {
		t.Fatalf("GET /orders/o1: %d %s", resp.StatusCode, body)
	}
	if resp, body := call(t, "POST", s.APIURL+"/orders/o1/payments/"+order.Payments[0].PaymentID+"/process", ""); resp.StatusCode/100 != 2 {
		t.Fatalf("process payment: %d %s", resp.StatusCode, body)
	}
	want := []outbox.Type{outbox.CreditPosted, outbox.DebitPosted, outbox.PaymentCreated, outbox.OrderPaid, outbox.DebitPosted, outbox.PaymentProcessed}
	got := waitEvents(t, s, want)
	for _, ev := range got {
		if ev.UserID != "alice" {
			t.Errorf("event %s names user %q, want alice", ev.ID, ev.UserID)
		}
	}
	if c := got[0]; c.Amount != 500 || c.UserID != "alice" || c.Currency != "EUR" || got[3].ID != "OrderPaid:o1" || got[4].Kind != "settle" {
		t.Errorf("events %+v: want a 500 EUR credit for alice, OrderPaid:o1 and a settle debit", got)
	}
	if n := strings.Count(out.String(), `"msg":"event"`); n != len(want) {
		t.Errorf("event log lines = %d, want %d:\n%s", n, len(want), out.String())
	}

	// A restarted runner resumes from the checkpoint in its data
	// directory: it publishes the new credit, not the stream again.
	if err := s.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	s2, _ := start(t, dir)
	defer s2.Shutdown(t.Context())
	if resp, body := call(t, "POST", s2.APIURL+"/users/alice/credits", `{"amount":7,"currency":"EUR"}`, "Idempotency-Key", "k6"); resp.StatusCode != 201 {
		t.Fatalf("credit after restart: %d %s", resp.StatusCode, body)
	}
	if again := waitEvents(t, s2, []outbox.Type{outbox.CreditPosted}); again[0].Amount != 7 {
		t.Errorf("after restart: %+v, want the 7 EUR credit only", again)
	}
}

// waitEvents waits until GET /_local/events holds as many events as want,
// and checks their types.
func waitEvents(t *testing.T, s *localrun.Server, want []outbox.Type) []outbox.Event {
	t.Helper()
	var got []outbox.Event
	deadline := time.Now().Add(10 * time.Second)
	for len(got) < len(want) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		resp, body := call(t, "GET", s.APIURL+localrun.EventsPath, "")
		var page struct{ Events []outbox.Event }
		if resp.StatusCode != 200 || json.Unmarshal([]byte(body), &page) != nil {
			t.Fatalf("GET %s: %d %s", localrun.EventsPath, resp.StatusCode, body)
		}
		got = page.Events
	}
	var types []outbox.Type
	for _, ev := range got {
		types = append(types, ev.Type)
	}
	if fmt.Sprint(types) != fmt.Sprint(want) {
		t.Fatalf("event types %v, want %v", types, want)
	}
	return got
}

// TestLocalPlatformTotals: the runner's totaller adds each entry's
// platform leg to the stored totals, and the sheet balances.
func TestLocalPlatformTotals(t *testing.T) {
	s, _ := start(t, t.TempDir())
	defer s.Shutdown(t.Context())
	for _, c := range []struct{ path, body, key string }{
		{"/users", `{"userId":"alice","name":"Alice","email":"alice@example.com"}`, ""},
		{"/users/alice/credits", `{"amount":500,"currency":"EUR"}`, "k1"},
		{"/users/alice/debits", `{"amount":200,"currency":"EUR"}`, "k2"},
	} {
		var headers []string
		if c.key != "" {
			headers = []string{"Idempotency-Key", c.key}
		}
		if resp, body := call(t, "POST", s.APIURL+c.path, c.body, headers...); resp.StatusCode/100 != 2 {
			t.Fatalf("POST %s: %d %s", c.path, resp.StatusCode, body)
		}
	}
	ddb := dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(s.DynamoDBURL), Credentials: aws.AnonymousCredentials{}})
	table := func(o *platform.Options) { o.Table = schema.DefaultTableName }
	deadline := time.Now().Add(20 * time.Second)
	for {
		sums, err := platform.Read(t.Context(), ddb, table)
		if err != nil {
			t.Fatal(err)
		}
		if sums[store.AccountFunding]["EUR"] == -300 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("platform:funding holds %v, want EUR -300 (a credit of 500 less a debit of 200)", sums[store.AccountFunding])
		}
		time.Sleep(50 * time.Millisecond)
	}
	sheet, err := platform.Conserve(t.Context(), ddb, table)
	if err != nil || !sheet.Conserved() || sheet.Untotalled != 0 {
		t.Fatalf("sheet %+v, %v: want conserved with every entry totalled", sheet, err)
	}
}
