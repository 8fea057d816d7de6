package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/oncetable/oncetable/runtime/httpapi"
	"github.com/oncetable/oncetable/runtime/keys"
)

// problem decodes a problem+json answer, failing on any other.
func problem(t *testing.T, status int, body string) httpapi.Problem {
	t.Helper()
	var p httpapi.Problem
	if err := json.Unmarshal([]byte(body), &p); err != nil {
		t.Fatalf("body %s: %v", body, err)
	}
	if p.Status != status {
		t.Fatalf("problem status %d, want %d: %s", p.Status, status, body)
	}
	return p
}

// TestProblemCodeAndParam: every problem carries a machine-readable code,
// and names the one request member at fault when there is one.
func TestProblemCodeAndParam(t *testing.T) {
	h := newHarness(t)
	h.must(t, http.StatusCreated, "POST", "/users", `{"userId":"u1","name":"U","email":"u@example.com"}`, nil)
	cases := []struct {
		name, method, path, body string
		headers                  map[string]string
		status                   int
		code, param              string
	}{
		{"fractional amount", "POST", "/users/u1/debits", `{"amount":12.5,"currency":"EUR"}`, key("k1"), 400, "invalid_amount", "amount"},
		{"unknown currency", "POST", "/users/u1/debits", `{"amount":1,"currency":"XXY"}`, key("k2"), 400, "unknown_currency", "currency"},
		{"unknown field", "POST", "/users/u1/credits", `{"amount":1,"currency":"EUR","memo":"x"}`, key("k3"), 400, "bad_request", "memo"},
		{"wrong type", "POST", "/users", `{"userId":"u2","name":7,"email":"u@example.com"}`, nil, 400, "bad_request", "name"},
		{"duplicate key", "POST", "/users/u1/credits", `{"amount":1,"amount":2,"currency":"EUR"}`, key("k4"), 400, "bad_request", "amount"},
		{"missing id", "POST", "/users", `{"name":"U","email":"u@example.com"}`, nil, 400, "invalid_id", "userId"},
		{"bad email", "POST", "/users", `{"userId":"u3","name":"U","email":"not an address"}`, nil, 400, "bad_request", "email"},
		{"path id", "GET", "/users/a%23b", "", nil, 400, "invalid_id", "userId"},
		{"order line", "POST", "/users/u1/orders", `{"currency":"EUR","items":[{"productId":"p","quantity":0,"unitPrice":1}]}`, key("k5"), 400, "invalid_order", "items[0].quantity"},
		{"limit", "GET", "/users/u1/ledger?limit=0", "", nil, 400, "bad_request", "limit"},
		{"cursor", "GET", "/users/u1/ledger?cursor=forged", "", nil, 400, "invalid_cursor", "cursor"},
		{"key missing", "POST", "/users/u1/debits", `{"amount":1,"currency":"EUR"}`, nil, 400, "idempotency_key_missing", "Idempotency-Key"},
		{"no field at fault", "GET", "/users/nobody", "", nil, 404, "not_found", ""},
		{"no route", "GET", "/nowhere", "", nil, 404, "route_not_found", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp := h.do(t, c.method, c.path, c.body, c.headers)
			if resp.StatusCode != c.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, c.status, resp.Body)
			}
			p := problem(t, c.status, resp.Body)
			if p.Code != c.code || p.Param != c.param {
				t.Errorf("code %q param %q, want %q %q: %s", p.Code, p.Param, c.code, c.param, resp.Body)
			}
		})
	}
}

// TestEveryProblemTypeHasACode: the problem table gives each type a code,
// the type's slug in snake case.
func TestEveryProblemTypeHasACode(t *testing.T) {
	seen := map[string]string{}
	for _, pt := range httpapi.ProblemTypes() {
		if pt.Code == "" {
			t.Errorf("%s has no code", pt.Type)
		}
		if other, ok := seen[pt.Code]; ok && other != pt.Type {
			t.Errorf("code %q names %s and %s", pt.Code, other, pt.Type)
		}
		seen[pt.Code] = pt.Type
	}
}

// TestDeclinesStoredAndReplayed: a money flow that started and was
// declined stores its problem under the key, and a retry with the key gets
// it back (Idempotent-Replayed) even after the state changed; a request
// refused by validation stores nothing, so its corrected retry runs.
func TestDeclinesStoredAndReplayed(t *testing.T) {
	h := newHarness(t)
	h.seed(t, "u1", 1000, map[string]int64{"o-open": 500, "o-paid": 300})
	h.charge(t, "o-paid", 300)
	h.must(t, 200, "POST", "/orders/o-paid/settle", "", key("settle-paid"))

	// The late retry: a debit declined for insufficient funds, a
	// top-up hours later, the same request retried.
	first := h.must(t, 402, "POST", "/users/u1/debits", `{"amount":5000,"currency":"EUR"}`, key("late"))
	h.env.Clock.Advance(3 * time.Hour)
	h.must(t, 201, "POST", "/users/u1/credits", `{"amount":10000,"currency":"EUR"}`, key("topup"))
	late := h.must(t, 402, "POST", "/users/u1/debits", `{"amount":5000,"currency":"EUR"}`, key("late"))
	if late.Body != first.Body || late.Headers["Idempotent-Replayed"] != "true" || late.Headers["Content-Type"] != "application/problem+json" {
		t.Errorf("late retry: %v %s, want the first 402 replayed (%s)", late.Headers, late.Body, first.Body)
	}
	if b := h.must(t, 200, "GET", "/users/u1/balance", "", nil); field(t, b.Body, "balance") != float64(1000-300+10000) {
		t.Errorf("balance after the replayed decline: %s, want %d", b.Body, 1000-300+10000)
	}
	if n := countIdem(t, h.env, "debit"); n != 1 {
		t.Errorf("%d debit records, want the decline's 1", n)
	}

	declined := []struct {
		name, path, body string
		status           int
		code             string
	}{
		{"settle of a paid order", "/orders/o-paid/settle", "", 409, "already_paid"},
		{"charge of another amount", "/orders/o-open/payments", `{"amount":1,"currency":"EUR"}`, 422, "amount_mismatch"},
		{"settle of another amount", "/orders/o-open/settle", `{"amount":1,"currency":"EUR"}`, 422, "amount_mismatch"},
		{"debit in another currency", "/users/u1/debits", `{"amount":1,"currency":"USD"}`, 422, "currency_mismatch"},
	}
	for _, c := range declined {
		t.Run(c.name, func(t *testing.T) {
			k := key("declined-" + c.name)
			a := h.must(t, c.status, "POST", c.path, c.body, k)
			b := h.must(t, c.status, "POST", c.path, c.body, k)
			if p := problem(t, c.status, a.Body); p.Code != c.code || a.Headers["Idempotent-Replayed"] != "" {
				t.Errorf("first answer %v %s, want a fresh %s", a.Headers, a.Body, c.code)
			}
			if b.Body != a.Body || b.Headers["Idempotent-Replayed"] != "true" {
				t.Errorf("retry %v %s, want %s replayed", b.Headers, b.Body, a.Body)
			}
		})
	}

	// Another request under a declined key is a reused key.
	h.must(t, 422, "POST", "/users/u1/debits", `{"amount":6000,"currency":"EUR"}`, key("late"))

	// Validation failures store nothing: the corrected request runs.
	h.must(t, 400, "POST", "/users/u1/debits", `{"amount":1.5,"currency":"EUR"}`, key("fixed"))
	h.must(t, 201, "POST", "/users/u1/debits", `{"amount":150,"currency":"EUR"}`, key("fixed"))
	// So do missing entities: the user may exist later.
	h.must(t, 404, "POST", "/users/later/credits", `{"amount":1,"currency":"EUR"}`, key("later"))
	h.seed(t, "later", 0, nil)
	h.must(t, 201, "POST", "/users/later/credits", `{"amount":1,"currency":"EUR"}`, key("later"))
}

// TestRequestID: a client's valid X-Request-Id is echoed (and logged), an
// invalid one is refused with 400 under API Gateway's id, and without one
// the response carries API Gateway's.
func TestRequestID(t *testing.T) {
	h := newHarness(t)
	h.seed(t, "u1", 0, nil)
	cases := []struct {
		name, sent string
		status     int
		echoed     string
	}{
		{"none", "", 200, "req-1"},
		{"uuid", "0b7c1a52-6f1e-4c55-9a7e-2f8d1c3b4a5e", 200, "0b7c1a52-6f1e-4c55-9a7e-2f8d1c3b4a5e"},
		{"w3c trace", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", 200, "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},
		{"white space", "two words", 400, "req-1"},
		{"two headers joined", "a,b", 400, "req-1"},
		{"too long", strings.Repeat("x", httpapi.MaxRequestIDLength+1), 400, "req-1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hdr := map[string]string{}
			if c.sent != "" {
				hdr["X-Request-Id"] = c.sent
			}
			r := h.must(t, c.status, "GET", "/users/u1", "", hdr)
			if got := r.Headers["X-Request-Id"]; got != c.echoed {
				t.Errorf("X-Request-Id %q, want %q", got, c.echoed)
			}
			if c.status == 400 {
				if p := problem(t, 400, r.Body); p.Param != "X-Request-Id" {
					t.Errorf("param %q, want X-Request-Id: %s", p.Param, r.Body)
				}
			}
		})
	}
	if !strings.Contains(h.log.String(), `"requestId":"0b7c1a52-6f1e-4c55-9a7e-2f8d1c3b4a5e","apiRequestId":"req-1"`) {
		t.Errorf("the log does not carry the client's request id beside API Gateway's:\n%s", h.log.String())
	}
}

// TestVersionedAndLegacyRoutes: every route is served under /v1; the same
// path without the version answers alike during the migration window,
// with Deprecation (RFC 9745), Sunset (RFC 8594) and the successor's Link;
// a key in flight across the move replays instead of being reused.
func TestVersionedAndLegacyRoutes(t *testing.T) {
	h := newHarness(t)
	h.must(t, 201, "POST", "/v1/users", `{"userId":"u1","name":"U","email":"u@example.com"}`, nil)
	v1 := h.must(t, 200, "GET", "/v1/users/u1", "", nil)
	if v1.Headers["Deprecation"] != "" || v1.Headers["Sunset"] != "" {
		t.Errorf("/v1 route carries deprecation headers: %v", v1.Headers)
	}
	old := h.must(t, 200, "GET", "/users/u1", "", nil)
	if old.Body != v1.Body {
		t.Errorf("legacy route body %s, want the /v1 body %s", old.Body, v1.Body)
	}
	want := map[string]string{
		"Deprecation": "@1796342400", // 2026-12-04T00:00:00Z
		"Sunset":      "Wed, 30 Jun 2027 23:59:59 GMT",
		"Link":        `</v1/users/u1>; rel="successor-version", <` + httpapi.DeprecationPolicyURL + `>; rel="deprecation"`,
	}
	for k, v := range want {
		if old.Headers[k] != v {
			t.Errorf("legacy %s: %q, want %q", k, old.Headers[k], v)
		}
	}
	// A problem on a legacy route is deprecated too.
	if r := h.must(t, 404, "GET", "/users/nobody", "", nil); r.Headers["Deprecation"] == "" {
		t.Errorf("legacy 404 without Deprecation: %v", r.Headers)
	}
	// The first attempt on the legacy route, its retry on /v1: one credit.
	first := h.must(t, 201, "POST", "/users/u1/credits", `{"amount":100,"currency":"EUR"}`, key("moving"))
	again := h.must(t, 201, "POST", "/v1/users/u1/credits", `{"amount":100,"currency":"EUR"}`, key("moving"))
	if again.Body != first.Body || again.Headers["Idempotent-Replayed"] != "true" {
		t.Errorf("retry on /v1: %v %s, want %s replayed", again.Headers, again.Body, first.Body)
	}
	for _, r := range httpapi.Routes() {
		if !strings.HasPrefix(r.Path, "/"+httpapi.APIVersion+"/") || r.Deprecated {
			t.Errorf("route %s %s is not under /%s", r.Method, r.Path, httpapi.APIVersion)
		}
	}
	if len(httpapi.LegacyRoutes()) != len(httpapi.Routes()) {
		t.Errorf("%d legacy routes for %d routes", len(httpapi.LegacyRoutes()), len(httpapi.Routes()))
	}
}

// TestKeysOnEveryPost: a POST that moves no money takes an optional
// Idempotency-Key; with one, a retried create replays its first answer
// instead of 409, another request under the key is 422, a refused one
// stores nothing; without one, a retry is 409 as before.
func TestKeysOnEveryPost(t *testing.T) {
	h := newHarness(t)
	user := `{"userId":"u1","name":"U","email":"u@example.com"}`
	first := h.must(t, 201, "POST", "/v1/users", user, key("create-u1"))
	again := h.must(t, 201, "POST", "/v1/users", user, key("create-u1"))
	if again.Body != first.Body || again.Headers["Idempotent-Replayed"] != "true" {
		t.Errorf("retried create: %v %s, want %s replayed", again.Headers, again.Body, first.Body)
	}
	h.must(t, 422, "POST", "/v1/users", `{"userId":"u1","name":"Other","email":"u@example.com"}`, key("create-u1"))
	h.must(t, 409, "POST", "/v1/users", user, nil)
	h.must(t, 409, "POST", "/v1/users", user, key("create-u1-new-key"))

	// Refused by validation: nothing stored, the corrected request runs.
	h.must(t, 400, "POST", "/v1/products", `{"productId":"p1","name":"Mug","price":12.5,"currency":"EUR"}`, key("prod"))
	h.must(t, 201, "POST", "/v1/products", `{"productId":"p1","name":"Mug","price":1250,"currency":"EUR"}`, key("prod"))
	h.must(t, 201, "POST", "/v1/products", `{"productId":"p1","name":"Mug","price":1250,"currency":"EUR"}`, key("prod"))

	addr := `{"addressId":"home","line1":"1 Main St","city":"Berlin","postalCode":"10115","country":"DE"}`
	a := h.must(t, 201, "POST", "/v1/users/u1/addresses", addr, key("addr"))
	b := h.must(t, 201, "POST", "/v1/users/u1/addresses", addr, key("addr"))
	if a.Body != b.Body || b.Headers["Idempotent-Replayed"] != "true" {
		t.Errorf("retried address: %v %s, want %s replayed", b.Headers, b.Body, a.Body)
	}
	h.must(t, 400, "POST", "/v1/users", user, map[string]string{"Idempotency-Key": "bad\u007fkey"})
}

// TestLocation: a 201 names what it created, under /v1, and that resource
// can be read; a replay carries the same Location.
func TestLocation(t *testing.T) {
	h := newHarness(t)
	cases := []struct {
		name, path, body, key, want string
	}{
		{"user", "/v1/users", `{"userId":"u1","name":"U","email":"u@example.com"}`, "", "/v1/users/u1"},
		{"address", "/v1/users/u1/addresses", `{"addressId":"home","line1":"1 Main St","city":"Berlin","postalCode":"10115","country":"DE"}`, "", "/v1/users/u1"},
		{"product", "/v1/products", `{"productId":"mug","name":"Mug","price":1250,"currency":"EUR"}`, "", "/v1/products/mug"},
		{"order", "/v1/users/u1/orders", `{"orderId":"o-1","currency":"EUR","items":[{"productId":"mug","quantity":1,"unitPrice":1250}]}`, "order-1", "/v1/orders/o-1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var hdr map[string]string
			if c.key != "" {
				hdr = key(c.key)
			}
			r := h.must(t, 201, "POST", c.path, c.body, hdr)
			if got := r.Headers["Location"]; got != c.want {
				t.Errorf("Location %q, want %q", got, c.want)
			}
			h.must(t, 200, "GET", c.want, "", nil)
		})
	}
	charge := h.must(t, 201, "POST", "/v1/orders/o-1/payments", `{"amount":1250,"currency":"EUR"}`, key("charge-1"))
	loc := charge.Headers["Location"]
	if !strings.HasPrefix(loc, "/v1/orders/o-1/payments/pay_") {
		t.Fatalf("charge Location %q", loc)
	}
	if p := h.must(t, 200, "GET", loc, "", nil); field(t, p.Body, "paymentId") != field(t, charge.Body, "paymentId") {
		t.Errorf("GET %s: %s, want the charged payment %s", loc, p.Body, charge.Body)
	}
	replay := h.must(t, 201, "POST", "/v1/orders/o-1/payments", `{"amount":1250,"currency":"EUR"}`, key("charge-1"))
	if replay.Headers["Location"] != loc || replay.Headers["Idempotent-Replayed"] != "true" {
		t.Errorf("replayed charge: %v, want Location %q", replay.Headers, loc)
	}
	h.must(t, 404, "GET", "/v1/orders/o-1/payments/pay_none", "", nil)

	// The money movements' 201s name a ledger entry (or a hold), read with
	// one GetItem; a replay names the same.
	h.must(t, 201, "POST", "/v1/users", `{"userId":"u2","name":"U","email":"u@example.com"}`, nil)
	moves := []struct {
		name, path, body, idField, prefix string
	}{
		{"credit", "/v1/users/u1/credits", `{"amount":5000,"currency":"EUR"}`, "entryId", "/v1/users/u1/ledger/cr_"},
		{"debit", "/v1/users/u1/debits", `{"amount":100,"currency":"EUR"}`, "entryId", "/v1/users/u1/ledger/db_"},
		{"transfer", "/v1/users/u1/transfers", `{"toUserId":"u2","amount":200,"currency":"EUR"}`, "entryId", "/v1/users/u1/ledger/tr_"},
		{"authorize", "/v1/users/u1/holds", `{"amount":300,"currency":"EUR"}`, "holdId", "/v1/users/u1/holds/hold_"},
	}
	for _, m := range moves {
		t.Run(m.name, func(t *testing.T) {
			r := h.must(t, 201, "POST", m.path, m.body, key(m.name+"-1"))
			loc := r.Headers["Location"]
			if !strings.HasPrefix(loc, m.prefix) {
				t.Fatalf("Location %q, want %s…", loc, m.prefix)
			}
			got := h.must(t, 200, "GET", loc, "", nil)
			if field(t, got.Body, m.idField) != field(t, r.Body, m.idField) {
				t.Errorf("GET %s: %s, want the %s of %s", loc, got.Body, m.idField, r.Body)
			}
			if replay := h.must(t, 201, "POST", m.path, m.body, key(m.name+"-1")); replay.Headers["Location"] != loc {
				t.Errorf("replayed %s: Location %q, want %q", m.name, replay.Headers["Location"], loc)
			}
		})
	}
	entry := h.must(t, 201, "POST", "/v1/users/u1/credits", `{"amount":1,"currency":"EUR"}`, key("credit-2")).Headers["Location"]
	foreign := strings.Replace(entry, "/users/u1/", "/users/u2/", 1)
	for _, path := range []string{foreign, "/v1/users/u1/ledger/cr_none", "/v1/users/u1/ledger/" + keys.NewID("cr")} {
		h.must(t, 404, "GET", path, "", nil)
	}
	h.must(t, 400, "GET", "/v1/users/u1/ledger/cr%23x", "", nil)
}
