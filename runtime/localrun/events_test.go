package localrun_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/oncetable/oncetable/runtime/localrun"
	"github.com/oncetable/oncetable/runtime/outbox"
)

// TestLocalEvents drives the production events handler from the engine's
// stream: a credit and a debit through the API become events in the log
// and at GET /_local/events.
func TestLocalEvents(t *testing.T) {
	s, out := start(t, t.TempDir())
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
		if resp, body := call(t, "POST", s.APIURL+c.path, c.body, headers...); resp.StatusCode != 201 {
			t.Fatalf("POST %s: %d %s", c.path, resp.StatusCode, body)
		}
	}
	var got []outbox.Event
	deadline := time.Now().Add(10 * time.Second)
	for len(got) < 2 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		resp, body := call(t, "GET", s.APIURL+localrun.EventsPath, "")
		var page struct{ Events []outbox.Event }
		if resp.StatusCode != 200 || json.Unmarshal([]byte(body), &page) != nil {
			t.Fatalf("GET %s: %d %s", localrun.EventsPath, resp.StatusCode, body)
		}
		got = page.Events
	}
	if len(got) != 2 || got[0].Type != outbox.CreditPosted || got[0].Amount != 500 || got[1].Type != outbox.DebitPosted ||
		got[1].Amount != 200 || got[0].UserID != "alice" || got[0].Currency != "EUR" {
		t.Fatalf("events %+v, want CreditPosted 500 EUR then DebitPosted 200 EUR for alice", got)
	}
	if n := strings.Count(out.String(), `"msg":"event"`); n != 2 {
		t.Errorf("event log lines = %d, want 2:\n%s", n, out.String())
	}
}
