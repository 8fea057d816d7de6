package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/oncetable/oncetable/runtime/localrun"
	"github.com/oncetable/oncetable/runtime/opsenv"
	"github.com/oncetable/oncetable/runtime/outbox"
	"github.com/oncetable/oncetable/runtime/republish"
	"github.com/oncetable/oncetable/runtime/republish/cli"
	"github.com/oncetable/oncetable/runtime/retry"
)

// runner is make run on free ports, with money moved by every flow that
// produces an event.
type runner struct {
	*localrun.Server
	t *testing.T
	// mid splits the flows: only alice's first credit was committed before
	// it. It comes from what the table stored, not from the test's clock.
	mid time.Time
}

func startRunner(t *testing.T) *runner {
	t.Helper()
	s, err := localrun.Start(context.Background(), localrun.Options{APIAddr: "127.0.0.1:0", DynamoDBAddr: "127.0.0.1:0", Out: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	r := &runner{Server: s, t: t}
	r.post("/v1/users", `{"userId":"alice","name":"Alice","email":"alice@example.com"}`, "")
	r.post("/v1/users", `{"userId":"bob","name":"Bob","email":"bob@example.com"}`, "")
	r.mid = r.justAfter(r.post("/v1/users/alice/credits", `{"amount":10000,"currency":"EUR"}`, "c1"))
	r.post("/v1/users/alice/orders", `{"orderId":"o1","currency":"EUR","items":[{"productId":"mug","quantity":2,"unitPrice":1250}]}`, "o1")
	r.post("/v1/orders/o1/payments", `{"amount":2500,"currency":"EUR"}`, "ch1")
	r.post("/v1/orders/o1/settle", ``, "st1")
	var order struct{ Payments []struct{ PaymentID string } }
	_ = json.Unmarshal([]byte(r.call("GET", "/v1/orders/o1", "", "")), &order)
	if len(order.Payments) != 1 {
		t.Fatalf("order o1 has payments %+v, want 1", order.Payments)
	}
	r.post("/v1/orders/o1/payments/"+order.Payments[0].PaymentID+"/process", ``, "")
	r.post("/v1/orders/o1/refunds", `{"amount":1000,"currency":"EUR"}`, "rf1")
	r.post("/v1/orders/o1/refunds", ``, "rf2")
	r.post("/v1/users/alice/orders", `{"orderId":"o2","currency":"EUR","items":[{"productId":"pen","quantity":1,"unitPrice":300}]}`, "o2")
	r.post("/v1/orders/o2/payments", `{"amount":300,"currency":"EUR"}`, "ch2")
	r.post("/v1/orders/o2/cancel", ``, "cx2")
	var hold struct{ HoldID string }
	_ = json.Unmarshal([]byte(r.post("/v1/users/alice/holds", `{"amount":700,"currency":"EUR"}`, "h1")), &hold)
	r.post("/v1/users/alice/holds/"+hold.HoldID+"/capture", `{"amount":500,"currency":"EUR"}`, "cp1")
	_ = json.Unmarshal([]byte(r.post("/v1/users/alice/holds", `{"amount":200,"currency":"EUR"}`, "h2")), &hold)
	r.post("/v1/users/alice/holds/"+hold.HoldID+"/void", ``, "vd2")
	r.post("/v1/users/alice/transfers", `{"toUserId":"bob","amount":400,"currency":"EUR"}`, "tr1")
	r.post("/v1/users/alice/debits", `{"amount":100,"currency":"EUR"}`, "d1")
	r.post("/v1/users/alice/orders", `{"orderId":"o3","currency":"EUR","items":[{"productId":"cup","quantity":1,"unitPrice":200}]}`, "o3")
	r.post("/v1/orders/o3/payments", `{"amount":200,"currency":"EUR"}`, "ch3")
	r.post("/v1/orders/o3/settle", ``, "st3")
	r.post("/v1/orders/o3/ship", ``, "sh3")
	r.post("/v1/orders/o3/deliver", ``, "dl3")
	return r
}

func (r *runner) call(method, path, body, key string) string {
	r.t.Helper()
	req, _ := http.NewRequest(method, r.APIURL+path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		r.t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, b)
	}
	return string(b)
}

func (r *runner) post(path, body, key string) string { return r.call("POST", path, body, key) }

// justAfter is a nanosecond after the commit time stored with alice's
// credit (credit is its answer). The flows stamp nanoseconds, so every
// later flow commits at or after it and the credit before it.
func (r *runner) justAfter(credit string) time.Time {
	r.t.Helper()
	var c struct{ EntryID string }
	var e struct{ CreatedAt string }
	if err := json.Unmarshal([]byte(credit), &c); err != nil || c.EntryID == "" {
		r.t.Fatalf("credit answered %s (%v), want an entryId", credit, err)
	}
	entry := r.call("GET", "/v1/users/alice/ledger/"+c.EntryID, "", "")
	err := json.Unmarshal([]byte(entry), &e)
	at, perr := time.Parse(time.RFC3339Nano, e.CreatedAt)
	if err = errors.Join(err, perr); err != nil {
		r.t.Fatalf("ledger entry %s: %s (%v), want its createdAt", c.EntryID, entry, err)
	}
	return at.Add(time.Nanosecond)
}

// delivered is every event the runner's bus received, oldest first.
func (r *runner) delivered() []outbox.Event {
	r.t.Helper()
	var page struct{ Events []outbox.Event }
	if err := json.Unmarshal([]byte(r.call("GET", localrun.EventsPath, "", "")), &page); err != nil {
		r.t.Fatal(err)
	}
	return page.Events
}

// settled waits until the stream's events stop arriving.
func (r *runner) settled(want int) []outbox.Event {
	r.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		got := r.delivered()
		if len(got) >= want || time.Now().After(deadline) {
			return got
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// dedupConsumer is a consumer of the bus as docs/events.md asks for: it
// applies each event id once, and sums what it applied per user and type.
type dedupConsumer struct {
	seen    map[string]outbox.Event
	applied map[string]int64
	dropped int
}

func (c *dedupConsumer) consume(evs []outbox.Event) {
	for _, ev := range evs {
		if _, dup := c.seen[ev.ID]; dup {
			c.dropped++
			continue
		}
		c.seen[ev.ID] = ev
		c.applied[ev.UserID+" "+string(ev.Type)] += ev.Amount
	}
}

func consumer(evs []outbox.Event) *dedupConsumer {
	c := &dedupConsumer{seen: map[string]outbox.Event{}, applied: map[string]int64{}}
	c.consume(evs)
	return c
}

// same compares events as the stream and the table make them: every
// field but the traceparent.
func same(a, b outbox.Event) bool {
	a.TraceParent, b.TraceParent = "", ""
	return a.CommittedAt.Equal(b.CommittedAt) && fmt.Sprint(a) == fmt.Sprint(b)
}

func run(t *testing.T, cmd cli.Command, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if code := cmd.Main(t.Context(), args); code != cli.ExitOK {
		t.Fatalf("republish %v: exit %d: %s", args, code, errOut.String())
	}
	return out.String()
}

// TestRepublishAgainstTheRunner runs make republish ENV=local's command
// against make run: the events rebuilt from the table are the stream's,
// field for field; a dry run publishes nothing; two republishes deliver
// every event twice more under its original id, and a deduplicating
// consumer applies each once; a window keeps the events committed in it.
func TestRepublishAgainstTheRunner(t *testing.T) {
	r := startRunner(t)
	const events = 25 // the flows of startRunner
	streamed := r.settled(events)
	if len(streamed) != events {
		t.Fatalf("the stream delivered %d events, want %d: %+v", len(streamed), events, streamed)
	}
	from, to := r.mid.Add(-time.Hour).Format(time.RFC3339Nano), time.Now().Add(time.Second).Format(time.RFC3339Nano)
	local := cli.Command{}

	dry := run(t, local, "-env", "local", "-dynamodb-endpoint", r.DynamoDBURL, "-eventbridge-endpoint", r.APIURL+localrun.EventBridgePath, "-from", from, "-to", to)
	if !strings.Contains(dry, fmt.Sprintf("dry run: would publish %d events", events)) {
		t.Errorf("dry run printed:\n%s\nwant %d events", dry, events)
	}
	if got := r.delivered(); len(got) != events {
		t.Fatalf("after a dry run the bus holds %d events, want the stream's %d", len(got), events)
	}

	for range 2 {
		out := run(t, local, "-env", "local", "-dynamodb-endpoint", r.DynamoDBURL, "-eventbridge-endpoint", r.APIURL+localrun.EventBridgePath,
			"-from", from, "-to", to, "-apply")
		if !strings.Contains(out, fmt.Sprintf("published %d events", events)) {
			t.Errorf("republish printed:\n%s\nwant %d published", out, events)
		}
	}
	all := r.delivered()
	if len(all) != 3*events {
		t.Fatalf("the bus received %d events, want the stream's %d and twice %d republished", len(all), events, events)
	}
	once, thrice := consumer(streamed), consumer(all)
	if thrice.dropped != 2*events || fmt.Sprint(thrice.applied) != fmt.Sprint(once.applied) {
		t.Errorf("deduplicating consumer: dropped %d, applied %v; want %d dropped and what the stream alone applied, %v",
			thrice.dropped, thrice.applied, 2*events, once.applied)
	}
	for _, ev := range all[events:] {
		orig, ok := once.seen[ev.ID]
		if !ok || !same(orig, ev) {
			t.Errorf("republished %+v, want the stream's event of that id %+v", ev, orig)
		}
	}

	// A window from mid leaves out alice's first credit, committed before.
	db := retry.NewClient(aws.Config{Region: "us-east-1", Credentials: opsenv.LocalCredentials},
		func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(r.DynamoDBURL) })
	got, err := republish.Rebuild(t.Context(), db, []republish.Window{{From: r.mid, To: time.Now().Add(time.Second)}})
	if err != nil {
		t.Fatal(err)
	}
	var want []outbox.Event
	for _, ev := range streamed {
		if !ev.CommittedAt.Before(r.mid) {
			want = append(want, ev)
		}
	}
	if len(got) != events-1 || len(want) != events-1 {
		t.Fatalf("window from mid: rebuilt %d events, the stream has %d there; want %d", len(got), len(want), events-1)
	}
	for _, ev := range got {
		if ev.Type == outbox.CreditPosted && ev.Amount == 10000 {
			t.Errorf("window from %s holds the credit committed at %s", r.mid, ev.CommittedAt)
		}
	}
}
