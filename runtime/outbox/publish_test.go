package outbox_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/oncetable/oncetable/runtime/outbox"
)

// creditBatch is n stream records, each a credit's ledger entry e<i> of
// its own user u<i>.
func creditBatch(n int) events.DynamoDBEvent {
	return creditsOf(n, func(i int) string { return fmt.Sprintf("u%02d", i) })
}

// creditsOf is n stream records, each a credit's ledger entry e<i> of the
// user userOf(i).
func creditsOf(n int, userOf func(i int) string) events.DynamoDBEvent {
	var b events.DynamoDBEvent
	for i := range n {
		id := fmt.Sprintf("e%02d", i)
		b.Records = append(b.Records, events.DynamoDBEventRecord{
			EventID: "rec-" + id, EventName: "INSERT",
			Change: events.DynamoDBStreamRecord{SequenceNumber: fmt.Sprintf("%021d", 100+i), NewImage: map[string]events.DynamoDBAttributeValue{
				"EntityType": events.NewStringAttribute("LedgerEntry"), "entryId": events.NewStringAttribute(id),
				"userId": events.NewStringAttribute(userOf(i)), "kind": events.NewStringAttribute("credit"),
				"amount": events.NewNumberAttribute("100"), "currency": events.NewStringAttribute("EUR"),
				"createdAt": events.NewStringAttribute("2026-11-29T20:00:00.000000000Z"),
			}},
		})
	}
	return b
}

func quiet(o *outbox.Options) {
	o.Backoff = func(int) time.Duration { return 0 }
	o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
}

func ids(from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("CreditPosted:e%02d", i))
	}
	return out
}

func TestPublisher(t *testing.T) {
	for _, c := range []struct {
		name      string
		records   int
		users     string // the user of each record, one letter each; "" for a user per record
		fail      func(id string, attempt int) string
		callErr   func(call int) bool
		calls     []int    // entries per PutEvents call
		published []string // accepted event ids, in order
		failedAt  string   // sequence number in BatchItemFailures, "" for none
	}{
		{name: "chunks of ten", records: 23, calls: []int{10, 10, 3}, published: ids(0, 23)},
		{name: "only the failed entries are resent", records: 12,
			fail: func(id string, n int) string {
				if n == 1 && (id == "CreditPosted:e03" || id == "CreditPosted:e07") {
					return "ThrottlingException"
				}
				return ""
			},
			calls:     []int{10, 2, 2},
			published: append(append(append(ids(0, 3), ids(4, 7)...), ids(8, 10)...), append([]string{"CreditPosted:e03", "CreditPosted:e07"}, ids(10, 12)...)...)},
		{name: "an entry that keeps failing stops the batch at its record", records: 25,
			fail: func(id string, _ int) string {
				if id == "CreditPosted:e14" {
					return "InternalFailure"
				}
				return ""
			},
			calls:     []int{10, 10, 1, 1, 1},
			published: append(ids(0, 14), ids(15, 20)...),
			failedAt:  fmt.Sprintf("%021d", 114)},
		{name: "at most one entry per user in a call, in stream order", records: 14, users: "abacbdefghijkl",
			calls: []int{2, 10, 2}, published: ids(0, 14)},
		{name: "one user's events go one per call", records: 3, users: "aaa",
			calls: []int{1, 1, 1}, published: ids(0, 3)},
		{name: "a refused entry is resent before the next call, so no later event of its user overtakes it", records: 5, users: "abcab",
			fail: func(id string, n int) string {
				if n == 1 && id == "CreditPosted:e00" {
					return "ThrottlingException"
				}
				return ""
			},
			calls: []int{3, 1, 2}, published: []string{"CreditPosted:e01", "CreditPosted:e02", "CreditPosted:e00", "CreditPosted:e03", "CreditPosted:e04"}},
		{name: "giving up on a user's event sends none of its later events", records: 5, users: "abcab",
			fail: func(id string, _ int) string {
				if id == "CreditPosted:e00" {
					return "InternalFailure"
				}
				return ""
			},
			calls: []int{3, 1, 1, 1}, published: ids(1, 3), failedAt: fmt.Sprintf("%021d", 100)},
		{name: "a failed call is retried whole", records: 3, callErr: func(call int) bool { return call == 1 },
			calls: []int{0, 3}, published: ids(0, 3)},
		{name: "a call that keeps failing fails at the chunk's first record", records: 13, callErr: func(call int) bool { return call > 1 },
			calls: []int{10, 0, 0, 0, 0}, published: ids(0, 10), failedAt: fmt.Sprintf("%021d", 110)},
	} {
		t.Run(c.name, func(t *testing.T) {
			fake, client := newFakeEventBridge(t)
			fake.fail, fake.callErr = c.fail, c.callErr
			pub := outbox.NewPublisher(client, quiet, func(o *outbox.Options) { o.BusName = "payments" })
			batch := creditBatch(c.records)
			if c.users != "" {
				batch = creditsOf(c.records, func(i int) string { return c.users[i : i+1] })
			}
			resp, err := pub.Handle(context.Background(), batch)
			if err != nil {
				t.Fatalf("Handle: %v", err)
			}
			var sizes []int
			for _, call := range fake.calls {
				sizes = append(sizes, len(call))
			}
			if fmt.Sprint(sizes) != fmt.Sprint(c.calls) {
				t.Errorf("entries per call %v, want %v", sizes, c.calls)
			}
			if fmt.Sprint(fake.published) != fmt.Sprint(c.published) {
				t.Errorf("published\n got %v\nwant %v", fake.published, c.published)
			}
			got := ""
			if len(resp.BatchItemFailures) > 1 {
				t.Errorf("BatchItemFailures %v, want at most one", resp.BatchItemFailures)
			}
			if len(resp.BatchItemFailures) == 1 {
				got = resp.BatchItemFailures[0].ItemIdentifier
			}
			if got != c.failedAt {
				t.Errorf("BatchItemFailures names %q, want %q", got, c.failedAt)
			}
		})
	}
}

func TestPublisherStopsAtAnUnreadableRecord(t *testing.T) {
	fake, client := newFakeEventBridge(t)
	batch := creditBatch(5)
	batch.Records[3].Change.NewImage["amount"] = events.NewStringAttribute("lots")
	resp, err := outbox.NewPublisher(client, quiet).Handle(context.Background(), batch)
	if err != nil {
		t.Fatalf("Handle: %v", err)
	}
	if fmt.Sprint(fake.published) != fmt.Sprint(ids(0, 3)) {
		t.Errorf("published %v, want %v", fake.published, ids(0, 3))
	}
	if len(resp.BatchItemFailures) != 1 || resp.BatchItemFailures[0].ItemIdentifier != batch.Records[3].Change.SequenceNumber {
		t.Errorf("BatchItemFailures %v, want the unreadable record %s", resp.BatchItemFailures, batch.Records[3].Change.SequenceNumber)
	}
}

func TestPublisherEnvelope(t *testing.T) {
	fake, client := newFakeEventBridge(t)
	pub := outbox.NewPublisher(client, quiet, func(o *outbox.Options) { o.BusName, o.Source = "bus-1", "test.source" })
	resp, err := pub.Handle(context.Background(), loadBatch(t))
	if err != nil || len(resp.BatchItemFailures) != 0 {
		t.Fatalf("Handle: %v %v", resp, err)
	}
	want := "CreditPosted:e1 DebitPosted:e2 PaymentCreated:p1 OrderPaid:o1 DebitPosted:e3 PaymentProcessed:p1" +
		" CreditPosted:rfe1 RefundIssued:rf1 CreditPosted:rfe2 RefundIssued:rf2 OrderRefunded:o1 HoldAuthorized:h1 HoldCaptured:h1" +
		" OrderShipped:o2 OrderDelivered:o2"
	if got := strings.Join(fake.published, " "); got != want {
		t.Errorf("published %s, want %s", got, want)
	}
	for i, env := range fake.envelopes {
		typ, _, _ := strings.Cut(fake.published[i], ":")
		if env != "bus-1 test.source "+typ {
			t.Errorf("entry %d envelope %q, want bus-1 test.source %s", i, env, typ)
		}
	}
}

// TestRedeliveryIsDeduplicatedByID delivers a batch twice, as an event
// source mapping does after a failure, and shows a consumer keeping one
// copy of each event by its id.
func TestRedeliveryIsDeduplicatedByID(t *testing.T) {
	fake, client := newFakeEventBridge(t)
	pub := outbox.NewPublisher(client, quiet)
	for range 2 {
		if resp, err := pub.Handle(context.Background(), loadBatch(t)); err != nil || len(resp.BatchItemFailures) != 0 {
			t.Fatalf("Handle: %v %v", resp, err)
		}
	}
	const events = 15
	if len(fake.published) != 2*events {
		t.Fatalf("published %d entries, want %d (%d events twice)", len(fake.published), 2*events, events)
	}
	seen := map[string]bool{}
	var kept []string
	for _, id := range fake.published {
		if !seen[id] {
			seen[id] = true
			kept = append(kept, id)
		}
	}
	if strings.Join(kept, " ") != strings.Join(fake.published[:events], " ") {
		t.Errorf("deduplicated %v, want the first delivery %v", kept, fake.published[:events])
	}
}
