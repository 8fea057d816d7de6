package authz_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/httpapi"
	"github.com/oncetable/oncetable/runtime/localrun"
	"github.com/oncetable/oncetable/runtime/schema/provision"
	"github.com/oncetable/oncetable/test/authz"
)

const table = "oncetable-authz"

// The API runs with the default cursor secret, derived from the table name
// (store.Options.CursorSecret), which the attacker derives too.
var fixture = authz.Fixture{Victim: "alice", Attacker: "bob", Order: "o-alice", Total: 2500, Currency: "EUR",
	CursorSecret: "oncetable-cursor/" + table}

// caller is who sends a request: a subject and its scope claim.
type caller struct{ sub, scopes string }

var operator = caller{"ops", httpapi.DefaultOperatorScope}

// transport sends a request as a caller and answers status and body.
type transport func(c caller, r authz.Request) (int, string)

type env struct {
	db  *dynamodb.Client
	api *httpapi.API
}

func newEnv(t *testing.T) *env {
	t.Helper()
	eng := ddblocal.New(func(o *ddblocal.Options) { o.TTLSweepInterval = -1 })
	t.Cleanup(func() { eng.Close() })
	db := eng.Client()
	if err := provision.EnsureTable(context.Background(), db, table); err != nil {
		t.Fatal(err)
	}
	e := &env{db: db, api: httpapi.New(db, httpapi.Config{Table: table, Log: io.Discard, Metrics: io.Discard,
		Auth: localrun.OperatorAuth(httpapi.Auth{})})}
	for _, s := range []struct {
		status int
		authz.Request
	}{
		{201, authz.Request{Method: "POST", Path: "/users", Body: `{"userId":"alice","name":"Alice","email":"alice@example.com"}`}},
		{201, authz.Request{Method: "POST", Path: "/users", Body: `{"userId":"bob","name":"Bob","email":"bob@example.com"}`}},
		{201, authz.Request{Method: "POST", Path: "/users/alice/credits", Key: "seed-1", Body: `{"amount":10000,"currency":"EUR"}`}},
		{201, authz.Request{Method: "POST", Path: "/users/bob/credits", Key: "seed-2", Body: `{"amount":500,"currency":"EUR"}`}},
		{201, authz.Request{Method: "POST", Path: "/users/alice/orders", Key: "seed-3",
			Body: `{"orderId":"o-alice","currency":"EUR","items":[{"productId":"p1","quantity":1,"unitPrice":2500}]}`}},
		{201, authz.Request{Method: "POST", Path: "/users/alice/orders", Key: "seed-4",
			Body: `{"orderId":"o-settle","currency":"EUR","items":[{"productId":"p1","quantity":2,"unitPrice":50}]}`}},
		{201, authz.Request{Method: "POST", Path: "/orders/o-settle/payments", Key: "seed-5", Body: `{"amount":100,"currency":"EUR"}`}},
	} {
		if got, body := e.gateway(operator, s.Request); got != s.status {
			t.Fatalf("seed %s %s: %d %s", s.Method, s.Path, got, body)
		}
	}
	return e
}

// gateway sends r as API Gateway's JWT authorizer would pass it on.
func (e *env) gateway(c caller, r authz.Request) (int, string) {
	path, query, _ := strings.Cut(r.Path, "?")
	q := map[string]string{}
	for _, kv := range strings.Split(query, "&") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			q[k] = v
		}
	}
	h := map[string]string{}
	if r.Body != "" {
		h["content-type"] = "application/json"
	}
	if r.Key != "" {
		h["idempotency-key"] = r.Key
	}
	ev := events.APIGatewayV2HTTPRequest{Version: "2.0", RouteKey: r.Method + " " + path, RawPath: path, RawQueryString: query,
		QueryStringParameters: q, Headers: h, Body: r.Body,
		RequestContext: events.APIGatewayV2HTTPRequestContext{Stage: "$default", RequestID: "authz",
			HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: r.Method, Path: path}}}
	if c.sub != "" {
		ev.RequestContext.Authorizer = &events.APIGatewayV2HTTPRequestContextAuthorizerDescription{JWT: &events.APIGatewayV2HTTPRequestContextAuthorizerJWTDescription{
			Claims: map[string]string{"iss": "https://idp.example.com", "sub": c.sub, "scope": c.scopes}}}
	}
	resp, err := e.api.Handle(context.Background(), ev)
	if err != nil {
		panic(err)
	}
	return resp.StatusCode, resp.Body
}

// local sends r through the local runner's handler with X-Local-Caller and
// X-Local-Scopes.
func (e *env) local(c caller, r authz.Request) (int, string) {
	req := httptest.NewRequest(r.Method, "http://api.local"+r.Path, strings.NewReader(r.Body))
	req.Header.Set(localrun.CallerHeader, c.sub)
	req.Header.Set(localrun.ScopesHeader, c.scopes)
	if r.Body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if r.Key != "" {
		req.Header.Set("Idempotency-Key", r.Key)
	}
	rec := httptest.NewRecorder()
	localrun.Handler(e.api.Handle, nil).ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

// snapshot is the whole table, canonically encoded (authz.Snapshot).
func (e *env) snapshot(t testing.TB) string {
	t.Helper()
	s, err := authz.Snapshot(context.Background(), e.db, table)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func problem(body string) (slug, detail string) {
	var p struct{ Type, Detail string }
	json.Unmarshal([]byte(body), &p)
	return strings.TrimPrefix(p.Type, httpapi.ProblemTypeBase), p.Detail
}

// TestAttempts sends every attempt of the catalogue through both
// transports: each is refused as listed and leaves the table unchanged.
func TestAttempts(t *testing.T) {
	attempts, missing := authz.Attempts(fixture)
	if len(missing) > 0 {
		t.Fatalf("routes without an authz.Example: %v", missing)
	}
	groups := map[string]int{}
	for _, a := range attempts {
		groups[a.Group]++
	}
	// Every route once without a scope; the others by the route table.
	if n := len(httpapi.Routes()); groups[authz.GroupNoScope] != n || groups[authz.GroupWrongCustomer] == 0 ||
		groups[authz.GroupCustomerRole] == 0 || groups[authz.GroupServiceRole] == 0 || groups[authz.GroupOrderOracle] != 1 || groups[authz.GroupForgedCursor] != 4 {
		t.Fatalf("attempts per group %v, want %d without a scope and some of every group", groups, n)
	}
	e := newEnv(t)
	for _, via := range []struct {
		name string
		send transport
	}{{"gateway", e.gateway}, {"local", e.local}} {
		before := e.snapshot(t)
		for _, a := range attempts {
			t.Run(fmt.Sprintf("%s/%s/%s", via.name, a.Group, a.Route), func(t *testing.T) {
				status, body := via.send(caller{a.Caller, a.Scopes}, a.Request)
				if slug, _ := problem(body); status != a.Status || slug != a.Problem {
					t.Errorf("%s %s as %s (%s): got %d %s, want %d %s", a.Method, a.Path, a.Caller, a.Scopes, status, body, a.Status, a.Problem)
				}
				if after := e.snapshot(t); after != before {
					t.Errorf("%s %s as %s wrote to the table", a.Method, a.Path, a.Caller)
					before = after
				}
			})
		}
	}
}

// TestForeignLooksMissing: a customer's answer for another user's data is
// byte for byte the answer for data that does not exist, but for the id,
// so it cannot tell which users and orders exist.
func TestForeignLooksMissing(t *testing.T) {
	e := newEnv(t)
	bob := caller{"bob", httpapi.DefaultCustomerScope}
	for _, p := range []struct{ method, path, id, missing string }{
		{"GET", "/users/alice/balance", "alice", "nobody"},
		{"GET", "/users/alice/ledger", "alice", "nobody"},
		{"POST", "/users/alice/debits", "alice", "nobody"},
		{"GET", "/orders/o-alice", "o-alice", "o-nobody"},
		{"POST", "/orders/o-alice/settle", "o-alice", "o-nobody"},
	} {
		req := authz.Request{Method: p.method, Path: p.path, Key: "k", Body: `{"amount":1,"currency":"EUR"}`}
		if p.method == "GET" {
			req.Key, req.Body = "", ""
		}
		s1, b1 := e.gateway(bob, req)
		req.Path = strings.Replace(p.path, p.id, p.missing, 1)
		s2, b2 := e.gateway(bob, req)
		if s1 != 404 || s1 != s2 || strings.ReplaceAll(b1, p.id, "X") != strings.ReplaceAll(b2, p.missing, "X") {
			t.Errorf("%s %s: %d %s; for %s: %d %s; want the same 404 but for the id", p.method, p.path, s1, b1, req.Path, s2, b2)
		}
	}
}

// TestRefusalLeavesTheKey: a refused request does not consume its
// Idempotency-Key: the same caller, once it has the role, uses the key for
// a first request, not a replay.
func TestRefusalLeavesTheKey(t *testing.T) {
	e := newEnv(t)
	credit := authz.Request{Method: "POST", Path: "/users/alice/credits", Key: "k-refused", Body: `{"amount":100,"currency":"EUR"}`}
	if status, body := e.gateway(caller{"pat", httpapi.DefaultServiceScope}, credit); status != 403 {
		t.Fatalf("credit as a service: %d %s, want 403", status, body)
	}
	status, body := e.gateway(caller{"pat", httpapi.DefaultOperatorScope}, credit)
	if status != 201 {
		t.Fatalf("the same key by the same subject as an operator: %d %s, want 201", status, body)
	}
	if status, body := e.gateway(caller{"pat", httpapi.DefaultOperatorScope}, credit); status != 201 || !bytes.Contains([]byte(body), []byte("entryId")) {
		t.Fatalf("replay: %d %s", status, body)
	}
}

// TestRightfulCallers: every route answers its success to the least
// privileged role it admits (a customer on its own data), so the refusals
// above are the caller's, not the request's.
func TestRightfulCallers(t *testing.T) {
	e := newEnv(t)
	ops := map[string]httpapi.Operation{}
	for _, op := range httpapi.Operations() {
		ops[op.Name] = op
	}
	for _, r := range httpapi.Routes() {
		f := fixture
		switch r.Name {
		case httpapi.RouteSettle, httpapi.RouteShipOrder, httpapi.RouteDeliverOrder:
			f.Order = "o-settle" // settled here first, then shipped, then delivered
		}
		req, _ := authz.Example(f, r)
		role := r.Roles[0]
		c := caller{"backend", fixture.Auth.Scope(role)}
		if role == httpapi.RoleCustomer {
			c.sub = fixture.Victim
		}
		want := ops[r.Name].Status
		switch r.Name {
		case httpapi.RouteProcessPayment, httpapi.RouteGetPayment, httpapi.RouteGetHold, httpapi.RouteCaptureHold, httpapi.RouteVoidHold,
			httpapi.RouteLedgerEntry, httpapi.RouteGetRefund:
			want = 404 // the example's payment, hold, entry or refund does not exist: admitted, then not found
		case httpapi.RouteRefund:
			want = 409 // the example's order is not paid: admitted, then declined (not_paid)
		}
		if status, body := e.gateway(c, req); status != want {
			t.Errorf("%s %s as %s %s: got %d %s, want %d", req.Method, req.Path, role, c.sub, status, body, want)
		}
	}
}
