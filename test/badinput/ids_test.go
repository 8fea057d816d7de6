package badinput_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/oncetable/oncetable/runtime/httpapi"
	"github.com/oncetable/oncetable/runtime/localrun"
)

func customer(user string, kv ...string) http.Header {
	return hdr(append([]string{localrun.CallerHeader, user, localrun.ScopesHeader, "payments/customer"}, kv...)...)
}

func slug(r response) string { return strings.TrimPrefix(r.typ, httpapi.ProblemTypeBase) }

// TestIDsAreCanonical: an id is NFC before it is used, so "é" written
// precomposed and decomposed is one user; an id with a character that
// shows nothing, reorders text, or is unassigned is refused (400
// invalid-id) and writes nothing.
func TestIDsAreCanonical(t *testing.T) {
	e := newEnv(t)
	const nfc, nfd = "ren\u00e9", "rene\u0301"
	if r := e.do("POST", "/users", hdr(), []byte(`{"userId":"`+nfc+`","name":"René","email":"rene@example.com"}`)); r.status != 201 {
		t.Fatalf("create %q: %d %s", nfc, r.status, r.body)
	}
	if r := e.do("POST", "/users", hdr(), []byte(`{"userId":"`+nfd+`","name":"René 2","email":"rene2@example.com"}`)); r.status != 409 || slug(r) != "already-exists" {
		t.Errorf("create %q (NFD of an existing user): %d %s, want 409 already-exists (one user, whichever way é is written)", nfd, r.status, r.body)
	}
	if r := e.do("GET", "/users/rene%CC%81", nil, nil); r.status != 200 || !strings.Contains(r.body, `"userId":"`+nfc+`"`) {
		t.Errorf("GET /users/<NFD>: %d %s, want 200 with the NFC user", r.status, r.body)
	}
	before := e.snapshot(t)
	for _, c := range []struct{ name, id string }{
		{"zero width space", "ali\u200bce"},
		{"zero width joiner", "ali\u200dce"},
		{"byte order mark", "\ufeffalice"},
		{"right-to-left override", "alice\u202eevil"},
		{"right-to-left mark", "alice\u200f"},
		{"first strong isolate", "\u2068alice"},
		{"soft hyphen", "ali\u00adce"},
		{"combining grapheme joiner", "alic\u034fe"},
		{"variation selector", "alice\ufe0f"},
		{"Hangul filler", "alice\u3164"},
		{"tag character", "alice\U000e0041"},
		{"unassigned code point", "alice\u0378"},
		{"private use", "alice\ue000"},
		{"noncharacter", "alice\ufdd0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			body, _ := json.Marshal(map[string]string{"userId": c.id, "name": "Eve", "email": "eve@example.com"})
			if r := e.do("POST", "/users", hdr(), body); r.status != 400 || slug(r) != "invalid-id" {
				t.Errorf("POST /users %q: %d %s, want 400 invalid-id", c.id, r.status, r.body)
			}
			path := "/users/" + strings.ReplaceAll(escapePath(c.id), "/", "%2F") + "/balance"
			if r := e.do("GET", path, nil, nil); r.status != 400 || slug(r) != "invalid-id" {
				t.Errorf("GET %s: %d %s, want 400 invalid-id", path, r.status, r.body)
			}
		})
	}
	if after := e.snapshot(t); after != before {
		t.Errorf("refused ids wrote to the table")
	}
}

func escapePath(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' {
			b.WriteByte(c)
		} else {
			b.WriteString("%" + strings.ToUpper(string("0123456789abcdef"[c>>4])+string("0123456789abcdef"[c&15])))
		}
	}
	return b.String()
}

// TestCatalogueIDsCannotBeSpoofed: a product id is ASCII, so an order line
// cannot name a product that only looks like a catalogue product (mug with
// an invisible character, in Cyrillic or full-width letters) to escape the
// catalogue's price.
func TestCatalogueIDsCannotBeSpoofed(t *testing.T) {
	e := newEnv(t)
	before := e.snapshot(t)
	for _, c := range []struct{ name, id string }{
		{"zero width space", "mug\u200b"},
		{"Cyrillic u", "m\u0443g"},
		{"full-width M", "\uff2dug"},
		{"decomposed accent", "mu\u0301g"},
	} {
		t.Run(c.name, func(t *testing.T) {
			body, _ := json.Marshal(map[string]any{"currency": "EUR", "items": []map[string]any{{"productId": c.id, "quantity": 1, "unitPrice": 1}}})
			if r := e.do("POST", "/users/alice/orders", key("spoof-"+c.name), body); r.status != 400 || slug(r) != "invalid-id" {
				t.Errorf("order of %q at 0.01 EUR: %d %s, want 400 invalid-id", c.id, r.status, r.body)
			}
			pb, _ := json.Marshal(map[string]any{"productId": c.id, "name": "Mug", "price": 1, "currency": "EUR"})
			if r := e.do("POST", "/products", hdr(), pb); r.status != 400 || slug(r) != "invalid-id" {
				t.Errorf("product %q: %d %s, want 400 invalid-id", c.id, r.status, r.body)
			}
		})
	}
	if after := e.snapshot(t); after != before {
		t.Errorf("refused product ids wrote to the table")
	}
}

// TestRetryOfTheSameRequestWrittenAnotherWay: the fingerprint is taken of
// the canonical request, so a retry that a client or proxy rewrote (%69
// for i, a trailing slash, é decomposed in the path) replays the first
// answer instead of meeting 422.
func TestRetryOfTheSameRequestWrittenAnotherWay(t *testing.T) {
	e := newEnv(t)
	if r := e.do("POST", "/users", hdr(), []byte(`{"userId":"ren\u00e9","name":"René","email":"rene@example.com"}`)); r.status != 201 {
		t.Fatalf("create user: %d %s", r.status, r.body)
	}
	credit := []byte(`{"amount":100,"currency":"EUR"}`)
	for i, c := range []struct{ name, first, retry string }{
		{"percent-encoded letter", "/users/alice/credits", "/users/al%69ce/credits"},
		{"trailing slash", "/users/alice/credits", "/users/alice/credits/"},
		{"decomposed é", "/users/ren%C3%A9/credits", "/users/rene%CC%81/credits"},
	} {
		t.Run(c.name, func(t *testing.T) {
			k := key(fmt.Sprintf("canon-%d", i))
			first := e.do("POST", c.first, k, credit)
			if first.status != 201 {
				t.Fatalf("first %s: %d %s", c.first, first.status, first.body)
			}
			again := e.do("POST", c.retry, k, credit)
			if again.status != 201 || again.body != first.body {
				t.Errorf("retry as %s: %d %s, want the first answer replayed: %s", c.retry, again.status, again.body, first.body)
			}
		})
	}
}

// TestCreateIsNoExistenceOracle: a customer cannot choose an order's id,
// so creating an order tells nothing about other users' orders: naming
// bob's order id, or a free one, gets the same 400 and writes nothing, and
// an order without an id gets a server id (a retry replays it).
func TestCreateIsNoExistenceOracle(t *testing.T) {
	e := newEnv(t)
	before := e.snapshot(t)
	order := func(id string) []byte {
		return []byte(`{"orderId":"` + id + `","currency":"EUR","items":[{"productId":"p1","quantity":1,"unitPrice":100}]}`)
	}
	taken := e.do("POST", "/users/alice/orders", customer("alice", "Idempotency-Key", "oracle-1"), order("o-big")) // bob's
	free := e.do("POST", "/users/alice/orders", customer("alice", "Idempotency-Key", "oracle-2"), order("o-free"))
	if taken.status != 400 || slug(taken) != "invalid-id" {
		t.Errorf("customer naming bob's order id: %d %s, want 400 invalid-id", taken.status, taken.body)
	}
	if taken.status != free.status || strings.ReplaceAll(taken.body, "o-big", "") != strings.ReplaceAll(free.body, "o-free", "") {
		t.Errorf("taken and free ids answered differently:\n%d %s\n%d %s", taken.status, taken.body, free.status, free.body)
	}
	if after := e.snapshot(t); after != before {
		t.Errorf("a refused order wrote to the table")
	}
	body := []byte(`{"currency":"EUR","items":[{"productId":"p1","quantity":1,"unitPrice":100}]}`)
	first := e.do("POST", "/users/alice/orders", customer("alice", "Idempotency-Key", "oracle-3"), body)
	again := e.do("POST", "/users/alice/orders", customer("alice", "Idempotency-Key", "oracle-3"), body)
	var o struct{ OrderID string }
	if first.status != 201 || json.Unmarshal([]byte(first.body), &o) != nil || !strings.HasPrefix(o.OrderID, "ord") {
		t.Fatalf("customer order without an id: %d %s, want 201 with a server id", first.status, first.body)
	}
	if again.status != 201 || again.body != first.body {
		t.Errorf("retry: %d %s, want the first order replayed", again.status, again.body)
	}
}
