package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/oncetable/oncetable/runtime/httpapi"
	"github.com/oncetable/oncetable/runtime/internal/dbtest"
)

// testAuth makes the IAM principal of event an operator, so the route
// tests may call every route; auth_test.go tries the other roles.
var testAuth = httpapi.Auth{IAMOperators: []string{"arn:aws:iam::123456789012:user/tester"}}

type harness struct {
	env *dbtest.Env
	api *httpapi.API
	log *bytes.Buffer
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	env := dbtest.New(t)
	var log bytes.Buffer
	api := httpapi.New(env.Client, httpapi.Config{Auth: testAuth, Table: env.Table, Clock: env.Clock.Now, Log: &log,
		CursorSecret: []byte("test secret of at least 32 bytes!!")})
	return &harness{env: env, api: api, log: &log}
}

// event builds the API Gateway v2 event a client request would produce.
func event(method, path, body string, headers map[string]string) events.APIGatewayV2HTTPRequest {
	h := map[string]string{}
	if body != "" {
		h["content-type"] = "application/json"
	}
	for k, v := range headers {
		if v == "" {
			delete(h, strings.ToLower(k))
			continue
		}
		h[strings.ToLower(k)] = v
	}
	rawPath, rawQuery, _ := strings.Cut(path, "?")
	q := map[string]string{}
	for _, kv := range strings.Split(rawQuery, "&") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			q[k] = v
		}
	}
	return events.APIGatewayV2HTTPRequest{
		Version: "2.0", RouteKey: "$default", RawPath: rawPath, RawQueryString: rawQuery, Headers: h,
		QueryStringParameters: q, Body: body,
		RequestContext: events.APIGatewayV2HTTPRequestContext{
			RequestID: "req-1", Stage: "$default",
			HTTP:       events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: method, Path: rawPath},
			Authorizer: &events.APIGatewayV2HTTPRequestContextAuthorizerDescription{IAM: &events.APIGatewayV2HTTPRequestContextAuthorizerIAMDescription{UserARN: "arn:aws:iam::123456789012:user/tester"}},
		},
	}
}

func (h *harness) do(t *testing.T, method, path, body string, headers map[string]string) events.APIGatewayV2HTTPResponse {
	t.Helper()
	resp, err := h.api.Handle(context.Background(), event(method, path, body, headers))
	if err != nil {
		t.Fatalf("Handle returned error %v", err)
	}
	return resp
}

func key(k string) map[string]string { return map[string]string{"Idempotency-Key": k} }

func field(t *testing.T, body, name string) any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("body %q: %v", body, err)
	}
	return m[name]
}

// TestRoutes walks every route and status, in order, on one table.
func TestRoutes(t *testing.T) {
	h := newHarness(t)
	big := `{"name":"` + strings.Repeat("x", 70<<10) + `","email":"a@example.com"}`
	steps := []struct {
		name    string
		method  string
		path    string
		body    string
		headers map[string]string
		status  int
		problem string // problem type slug for error responses
		check   func(t *testing.T, r events.APIGatewayV2HTTPResponse)
	}{
		{name: "create user", method: "POST", path: "/users", body: `{"userId":"alice","name":"Alice","email":"alice@example.com"}`, status: 201},
		{name: "create user again", method: "POST", path: "/users", body: `{"userId":"alice","name":"Alice","email":"alice@example.com"}`, status: 409, problem: "already-exists"},
		{name: "create user without id (a retry would create a second user)", method: "POST", path: "/users", body: `{"name":"Bob","email":"bob@example.com"}`, status: 400, problem: "invalid-id"},
		{name: "create user bad id", method: "POST", path: "/users", body: `{"userId":"a#b","name":"A","email":"a@example.com"}`, status: 400, problem: "invalid-id"},
		{name: "create user unknown field", method: "POST", path: "/users", body: `{"userId":"x","name":"A","email":"a@example.com","admin":true}`, status: 400, problem: "bad-request"},
		{name: "create user duplicate key", method: "POST", path: "/users", body: `{"userId":"x","userId":"y","name":"A","email":"a@example.com"}`, status: 400, problem: "bad-request"},
		{name: "create user malformed", method: "POST", path: "/users", body: `{"userId":`, status: 400, problem: "bad-request"},
		{name: "create user trailing data", method: "POST", path: "/users", body: `{"name":"A","email":"a@example.com"} {}`, status: 400, problem: "bad-request"},
		{name: "create user not an object", method: "POST", path: "/users", body: `["A"]`, status: 400, problem: "bad-request"},
		{name: "create user too large", method: "POST", path: "/users", body: big, status: 413, problem: "body-too-large"},
		{name: "create user wrong content type", method: "POST", path: "/users", body: `{"name":"A","email":"a@example.com"}`, headers: map[string]string{"Content-Type": "text/plain"}, status: 415, problem: "unsupported-media-type"},
		{name: "create user bad email", method: "POST", path: "/users", body: `{"userId":"a","name":"A","email":"nope"}`, status: 400, problem: "bad-request"},
		{name: "add address", method: "POST", path: "/users/alice/addresses", body: `{"addressId":"home","line1":"1 Main St","city":"Berlin","postalCode":"10115","country":"DE"}`, status: 201},
		{name: "add address unknown user", method: "POST", path: "/users/nobody/addresses", body: `{"addressId":"home","line1":"1 Main St","city":"Berlin","postalCode":"10115","country":"DE"}`, status: 404, problem: "not-found"},
		{name: "add address twice", method: "POST", path: "/users/alice/addresses", body: `{"addressId":"home","line1":"1 Main St","city":"Berlin","postalCode":"10115","country":"DE"}`, status: 409, problem: "already-exists"},
		{name: "credit", method: "POST", path: "/users/alice/credits", body: `{"amount":10000,"currency":"EUR"}`, headers: key("cr-1"), status: 201,
			check: func(t *testing.T, r events.APIGatewayV2HTTPResponse) {
				if field(t, r.Body, "amount") != 10000.0 || field(t, r.Body, "entryId") == nil || r.Headers["Idempotent-Replayed"] != "" {
					t.Errorf("credit body %s headers %v", r.Body, r.Headers)
				}
			}},
		{name: "credit replay", method: "POST", path: "/users/alice/credits", body: `{"currency":"EUR", "amount":10000}`, headers: key("cr-1"), status: 201,
			check: func(t *testing.T, r events.APIGatewayV2HTTPResponse) {
				if r.Headers["Idempotent-Replayed"] != "true" {
					t.Errorf("replay headers %v", r.Headers)
				}
			}},
		{name: "credit key reused", method: "POST", path: "/users/alice/credits", body: `{"amount":1,"currency":"EUR"}`, headers: key("cr-1"), status: 422, problem: "idempotency-key-reused"},
		{name: "credit without key", method: "POST", path: "/users/alice/credits", body: `{"amount":1,"currency":"EUR"}`, status: 400, problem: "idempotency-key-missing"},
		{name: "credit key too long", method: "POST", path: "/users/alice/credits", body: `{"amount":1,"currency":"EUR"}`, headers: key(strings.Repeat("k", 256)), status: 400, problem: "idempotency-key-invalid"},
		{name: "credit key non-printable", method: "POST", path: "/users/alice/credits", body: `{"amount":1,"currency":"EUR"}`, headers: key("a\x01b"), status: 400, problem: "idempotency-key-invalid"},
		{name: "credit float", method: "POST", path: "/users/alice/credits", body: `{"amount":10.5,"currency":"EUR"}`, headers: key("cr-f"), status: 400, problem: "invalid-amount"},
		{name: "credit zero", method: "POST", path: "/users/alice/credits", body: `{"amount":0,"currency":"EUR"}`, headers: key("cr-z"), status: 400, problem: "invalid-amount"},
		{name: "credit negative", method: "POST", path: "/users/alice/credits", body: `{"amount":-5,"currency":"EUR"}`, headers: key("cr-n"), status: 400, problem: "invalid-amount"},
		{name: "credit above maximum", method: "POST", path: "/users/alice/credits", body: `{"amount":1000000000001,"currency":"EUR"}`, headers: key("cr-m"), status: 400, problem: "invalid-amount"},
		{name: "credit unknown currency", method: "POST", path: "/users/alice/credits", body: `{"amount":1,"currency":"XYZ"}`, headers: key("cr-c"), status: 400, problem: "unknown-currency"},
		{name: "credit other currency", method: "POST", path: "/users/alice/credits", body: `{"amount":1,"currency":"USD"}`, headers: key("cr-u"), status: 422, problem: "currency-mismatch"},
		{name: "credit unknown user", method: "POST", path: "/users/nobody/credits", body: `{"amount":1,"currency":"EUR"}`, headers: key("cr-x"), status: 404, problem: "not-found"},
		{name: "debit", method: "POST", path: "/users/alice/debits", body: `{"amount":2500,"currency":"EUR"}`, headers: key("db-1"), status: 201,
			check: func(t *testing.T, r events.APIGatewayV2HTTPResponse) {
				if field(t, r.Body, "entryId") == nil {
					t.Errorf("debit body %s", r.Body)
				}
			}},
		{name: "debit insufficient", method: "POST", path: "/users/alice/debits", body: `{"amount":999999,"currency":"EUR"}`, headers: key("db-2"), status: 402, problem: "insufficient-funds",
			check: func(t *testing.T, r events.APIGatewayV2HTTPResponse) {
				if field(t, r.Body, "available") != 7500.0 || field(t, r.Body, "requested") != 999999.0 {
					t.Errorf("402 body %s", r.Body)
				}
			}},
		{name: "debit unknown user", method: "POST", path: "/users/nobody/debits", body: `{"amount":1,"currency":"EUR"}`, headers: key("db-3"), status: 404, problem: "not-found"},
		{name: "balance", method: "GET", path: "/users/alice/balance", status: 200,
			check: func(t *testing.T, r events.APIGatewayV2HTTPResponse) {
				if field(t, r.Body, "balance") != 7500.0 || field(t, r.Body, "currency") != "EUR" {
					t.Errorf("balance body %s", r.Body)
				}
			}},
		{name: "balance unknown user", method: "GET", path: "/users/nobody/balance", status: 404, problem: "not-found"},
		{name: "create product", method: "POST", path: "/products", body: `{"productId":"mug","name":"Mug","price":1250,"currency":"EUR","featured":true}`, status: 201},
		{name: "create plain product", method: "POST", path: "/products", body: `{"productId":"pen","name":"Pen","price":150,"currency":"EUR"}`, status: 201},
		{name: "create product again", method: "POST", path: "/products", body: `{"productId":"pen","name":"Pen","price":150,"currency":"EUR"}`, status: 409, problem: "already-exists"},
		{name: "get product", method: "GET", path: "/products/mug", status: 200},
		{name: "get unknown product", method: "GET", path: "/products/none", status: 404, problem: "not-found"},
		{name: "featured products", method: "GET", path: "/products?featured=true", status: 200,
			check: func(t *testing.T, r events.APIGatewayV2HTTPResponse) {
				if items := field(t, r.Body, "items").([]any); len(items) != 1 {
					t.Errorf("featured = %s, want only the mug", r.Body)
				}
			}},
		{name: "all products refused", method: "GET", path: "/products", status: 400, problem: "bad-request"},
		{name: "create order", method: "POST", path: "/users/alice/orders", body: `{"orderId":"o1","currency":"EUR","items":[{"productId":"mug","quantity":2,"unitPrice":1250},{"productId":"pen","quantity":1,"unitPrice":150}]}`, headers: key("ord-1"), status: 201,
			check: func(t *testing.T, r events.APIGatewayV2HTTPResponse) {
				if field(t, r.Body, "total") != 2650.0 || field(t, r.Body, "status") != "created" || len(field(t, r.Body, "items").([]any)) != 2 {
					t.Errorf("order body %s", r.Body)
				}
			}},
		{name: "create order same id other key", method: "POST", path: "/users/alice/orders", body: `{"orderId":"o1","currency":"EUR","items":[{"productId":"mug","quantity":1,"unitPrice":1250}]}`, headers: key("ord-2"), status: 409, problem: "already-exists"},
		{name: "create order for charge", method: "POST", path: "/users/alice/orders", body: `{"orderId":"o2","currency":"EUR","items":[{"productId":"mug","quantity":1,"unitPrice":1250}]}`, headers: key("ord-3"), status: 201},
		{name: "create order big", method: "POST", path: "/users/alice/orders", body: `{"orderId":"o3","currency":"EUR","items":[{"productId":"crate","quantity":10,"unitPrice":100000}]}`, headers: key("ord-4"), status: 201},
		{name: "create order below the catalogue price", method: "POST", path: "/users/alice/orders", body: `{"orderId":"o4","currency":"EUR","items":[{"productId":"mug","quantity":10,"unitPrice":100}]}`, headers: key("ord-5"), status: 422, problem: "price-mismatch"},
		{name: "create order no items", method: "POST", path: "/users/alice/orders", body: `{"currency":"EUR","items":[]}`, headers: key("ord-5"), status: 400, problem: "invalid-order"},
		{name: "create order float price", method: "POST", path: "/users/alice/orders", body: `{"currency":"EUR","items":[{"productId":"mug","quantity":1,"unitPrice":12.5}]}`, headers: key("ord-6"), status: 400, problem: "invalid-amount"},
		{name: "create order zero quantity", method: "POST", path: "/users/alice/orders", body: `{"currency":"EUR","items":[{"productId":"mug","quantity":0,"unitPrice":1}]}`, headers: key("ord-7"), status: 400, problem: "invalid-order"},
		{name: "create order unknown user", method: "POST", path: "/users/nobody/orders", body: `{"currency":"EUR","items":[{"productId":"mug","quantity":1,"unitPrice":1}]}`, headers: key("ord-8"), status: 404, problem: "not-found"},
		{name: "create order without key", method: "POST", path: "/users/alice/orders", body: `{"currency":"EUR","items":[{"productId":"mug","quantity":1,"unitPrice":1}]}`, status: 400, problem: "idempotency-key-missing"},
		{name: "get order", method: "GET", path: "/orders/o1", status: 200,
			check: func(t *testing.T, r events.APIGatewayV2HTTPResponse) {
				if len(field(t, r.Body, "items").([]any)) != 2 {
					t.Errorf("order body %s", r.Body)
				}
			}},
		{name: "get unknown order", method: "GET", path: "/orders/none", status: 404, problem: "not-found"},
		{name: "get order bad id", method: "GET", path: "/orders/a%23b", status: 400, problem: "invalid-id"},
		{name: "get order encoded slash", method: "GET", path: "/orders/a%2Fb", status: 400, problem: "invalid-id"},
		{name: "orders by status", method: "GET", path: "/orders?status=created", status: 200,
			check: func(t *testing.T, r events.APIGatewayV2HTTPResponse) {
				if n := len(field(t, r.Body, "items").([]any)); n != 3 {
					t.Errorf("created orders = %d, want 3: %s", n, r.Body)
				}
			}},
		{name: "orders bad status", method: "GET", path: "/orders?status=lost", status: 400, problem: "bad-request"},
		{name: "user orders", method: "GET", path: "/users/alice/orders?limit=2", status: 200,
			check: func(t *testing.T, r events.APIGatewayV2HTTPResponse) {
				items := field(t, r.Body, "items").([]any)
				if len(items) != 2 || items[0].(map[string]any)["orderId"] != "o3" || field(t, r.Body, "nextCursor") == nil {
					t.Errorf("user orders (newest first) = %s", r.Body)
				}
			}},
		{name: "charge wrong amount", method: "POST", path: "/orders/o2/payments", body: `{"amount":1,"currency":"EUR"}`, headers: key("ch-0"), status: 422, problem: "amount-mismatch"},
		{name: "charge", method: "POST", path: "/orders/o2/payments", body: `{"amount":1250,"currency":"EUR"}`, headers: key("ch-1"), status: 201,
			check: func(t *testing.T, r events.APIGatewayV2HTTPResponse) {
				if field(t, r.Body, "status") != "created" || field(t, r.Body, "paymentId") == nil {
					t.Errorf("charge body %s", r.Body)
				}
			}},
		{name: "charge again other key", method: "POST", path: "/orders/o2/payments", body: `{"amount":1250,"currency":"EUR"}`, headers: key("ch-2"), status: 409, problem: "already-paid"},
		{name: "charge unknown order", method: "POST", path: "/orders/none/payments", body: `{"amount":1250,"currency":"EUR"}`, headers: key("ch-3"), status: 404, problem: "not-found"},
		{name: "unprocessed payments", method: "GET", path: "/payments/unprocessed", status: 200,
			check: func(t *testing.T, r events.APIGatewayV2HTTPResponse) {
				if n := len(field(t, r.Body, "items").([]any)); n != 1 {
					t.Errorf("unprocessed = %s", r.Body)
				}
			}},
		{name: "settle before the charge", method: "POST", path: "/orders/o1/settle", headers: key("st-0"), status: 409, problem: "not-charged"},
		{name: "charge o1", method: "POST", path: "/orders/o1/payments", body: `{"amount":2650,"currency":"EUR"}`, headers: key("ch-o1"), status: 201},
		{name: "settle", method: "POST", path: "/orders/o1/settle", headers: key("st-1"), status: 200,
			check: func(t *testing.T, r events.APIGatewayV2HTTPResponse) {
				if field(t, r.Body, "status") != "paid" {
					t.Errorf("settle body %s", r.Body)
				}
			}},
		{name: "settle replay", method: "POST", path: "/orders/o1/settle", headers: key("st-1"), status: 200,
			check: func(t *testing.T, r events.APIGatewayV2HTTPResponse) {
				if r.Headers["Idempotent-Replayed"] != "true" {
					t.Errorf("settle replay headers %v", r.Headers)
				}
			}},
		{name: "settle paid order other key", method: "POST", path: "/orders/o1/settle", headers: key("st-2"), status: 409, problem: "already-paid"},
		{name: "settle charged order", method: "POST", path: "/orders/o2/settle", body: `{"amount":1250,"currency":"EUR"}`, headers: key("st-3"), status: 200},
		{name: "charge o3", method: "POST", path: "/orders/o3/payments", body: `{"amount":1000000,"currency":"EUR"}`, headers: key("ch-o3"), status: 201},
		{name: "settle insufficient", method: "POST", path: "/orders/o3/settle", headers: key("st-4"), status: 402, problem: "insufficient-funds"},
		{name: "settle expected amount differs", method: "POST", path: "/orders/o3/settle", body: `{"amount":5,"currency":"EUR"}`, headers: key("st-5"), status: 422, problem: "amount-mismatch"},
		{name: "settle unknown order", method: "POST", path: "/orders/none/settle", headers: key("st-6"), status: 404, problem: "not-found"},
		{name: "settle without key", method: "POST", path: "/orders/o3/settle", status: 400, problem: "idempotency-key-missing"},
		{name: "balance after settle", method: "GET", path: "/users/alice/balance", status: 200,
			check: func(t *testing.T, r events.APIGatewayV2HTTPResponse) {
				if field(t, r.Body, "balance") != 3600.0 {
					t.Errorf("balance body %s, want 7500-2650-1250", r.Body)
				}
			}},
		{name: "ledger", method: "GET", path: "/users/alice/ledger?limit=2", status: 200,
			check: func(t *testing.T, r events.APIGatewayV2HTTPResponse) {
				items := field(t, r.Body, "items").([]any)
				if len(items) != 2 || items[0].(map[string]any)["kind"] != "settle" || field(t, r.Body, "nextCursor") == nil {
					t.Errorf("ledger page = %s", r.Body)
				}
			}},
		{name: "ledger bad limit", method: "GET", path: "/users/alice/ledger?limit=0", status: 400, problem: "bad-request"},
		{name: "ledger forged cursor", method: "GET", path: "/users/alice/ledger?cursor=eyJQSyI6IlVTRVIjYm9iIn0.AAAA", status: 400, problem: "invalid-cursor"},
		{name: "get user view", method: "GET", path: "/users/alice", status: 200,
			check: func(t *testing.T, r events.APIGatewayV2HTTPResponse) {
				if len(field(t, r.Body, "addresses").([]any)) != 1 || len(field(t, r.Body, "recentOrders").([]any)) != 3 || field(t, r.Body, "orderCount") != 3.0 {
					t.Errorf("user view = %s", r.Body)
				}
			}},
		{name: "get unknown user", method: "GET", path: "/users/nobody", status: 404, problem: "not-found"},
		{name: "process payment unknown", method: "POST", path: "/orders/o2/payments/pay_none/process", status: 404, problem: "not-found"},
		{name: "unknown route", method: "GET", path: "/nothing/here", status: 404, problem: "route-not-found"},
		{name: "wrong method", method: "DELETE", path: "/users/alice", status: 405, problem: "method-not-allowed",
			check: func(t *testing.T, r events.APIGatewayV2HTTPResponse) {
				if r.Headers["Allow"] != "GET" {
					t.Errorf("Allow = %q", r.Headers["Allow"])
				}
			}},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			h.env.Requests.Reset()
			r := h.do(t, s.method, s.path, s.body, s.headers)
			if (r.StatusCode == 400 || r.StatusCode == 415) && h.env.Requests.Total() != 0 {
				t.Errorf("rejected request sent %v to DynamoDB, want nothing", h.env.Requests.Snapshot())
			}
			if r.StatusCode != s.status {
				t.Fatalf("%s %s: status %d, want %d; body %s", s.method, s.path, r.StatusCode, s.status, r.Body)
			}
			if s.problem != "" {
				if ct := r.Headers["Content-Type"]; ct != "application/problem+json" {
					t.Errorf("Content-Type = %q, want application/problem+json", ct)
				}
				var p httpapi.Problem
				if err := json.Unmarshal([]byte(r.Body), &p); err != nil || p.Type != httpapi.ProblemTypeBase+s.problem || p.Status != s.status || p.Title == "" || p.Detail == "" {
					t.Errorf("problem = %s, want type %s", r.Body, s.problem)
				}
			}
			if s.check != nil {
				s.check(t, r)
			}
		})
	}

	// The charged payment leaves the sparse index when processed.
	t.Run("process payment", func(t *testing.T) {
		r := h.do(t, "GET", "/payments/unprocessed", "", nil)
		pid := ""
		for _, it := range field(t, r.Body, "items").([]any) {
			if p := it.(map[string]any); p["orderId"] == "o2" {
				pid = p["paymentId"].(string)
			}
		}
		r = h.do(t, "POST", "/orders/o2/payments/"+pid+"/process", "", nil)
		if r.StatusCode != 200 || field(t, r.Body, "status") != "processed" {
			t.Fatalf("process = %d %s", r.StatusCode, r.Body)
		}
		r = h.do(t, "GET", "/payments/unprocessed", "", nil)
		if strings.Contains(r.Body, pid) {
			t.Errorf("unprocessed after processing %s = %s", pid, r.Body)
		}
	})

	// Every request logged one JSON line with no raw idempotency key.
	t.Run("logs", func(t *testing.T) {
		if strings.Contains(h.log.String(), "cr-1\"") {
			t.Error("raw Idempotency-Key found in logs")
		}
		n := strings.Count(h.log.String(), `"msg":"request"`)
		if n < len(steps) {
			t.Errorf("logged %d request lines, want at least %d", n, len(steps))
		}
		if !strings.Contains(h.log.String(), `"CloudWatchMetrics"`) {
			t.Error("no EMF metric lines")
		}
		// The caller is the scope of the keys: the IAM principal here.
		if !strings.Contains(h.log.String(), `"flow":"credit","caller":"iam:arn:aws:iam::123456789012:user/tester","status":201`) {
			t.Errorf("no request line names the credit's caller:\n%.2000s", h.log.String())
		}
	})
}

// TestSavedEvents round-trips the saved API Gateway events in testdata.
func TestSavedEvents(t *testing.T) {
	h := newHarness(t)
	for _, name := range []string{"create-user.json", "create-user-base64.json"} {
		t.Run(name, func(t *testing.T) {
			raw := mustRead(t, "testdata/"+name)
			var ev events.APIGatewayV2HTTPRequest
			if err := json.Unmarshal(raw, &ev); err != nil {
				t.Fatal(err)
			}
			resp, _ := h.api.Handle(context.Background(), ev)
			if resp.StatusCode != http.StatusCreated {
				t.Errorf("status %d body %s", resp.StatusCode, resp.Body)
			}
			again, _ := json.Marshal(ev)
			var back events.APIGatewayV2HTTPRequest
			if err := json.Unmarshal(again, &back); err != nil || back.RawPath != ev.RawPath || back.Body != ev.Body {
				t.Errorf("event does not round-trip")
			}
		})
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
