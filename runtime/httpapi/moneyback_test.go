package httpapi_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
)

// asCustomer makes ev a customer's request, the JWT subject being user.
func asCustomer(ev events.APIGatewayV2HTTPRequest, user string) events.APIGatewayV2HTTPRequest {
	ev.RequestContext.Authorizer = &events.APIGatewayV2HTTPRequestContextAuthorizerDescription{
		JWT: &events.APIGatewayV2HTTPRequestContextAuthorizerJWTDescription{Claims: map[string]string{"sub": user, "scope": "payments/customer"}}}
	return ev
}

// asService makes ev a backend's request (an IAM principal that is no operator).
func asService(ev events.APIGatewayV2HTTPRequest) events.APIGatewayV2HTTPRequest {
	ev.RequestContext.Authorizer = &events.APIGatewayV2HTTPRequestContextAuthorizerDescription{
		IAM: &events.APIGatewayV2HTTPRequestContextAuthorizerIAMDescription{UserARN: "arn:aws:iam::123456789012:role/checkout"}}
	return ev
}

// TestTransferAndHoldRoutes walks the transfer and hold routes in order,
// each step's status and problem type, and checks that no refused request
// moved money.
func TestTransferAndHoldRoutes(t *testing.T) {
	h := newHarness(t)
	for _, u := range []string{"alice", "bob"} {
		h.do(t, "POST", "/users", `{"userId":"`+u+`","name":"`+u+`","email":"`+u+`@example.com"}`, nil)
	}
	h.do(t, "POST", "/users/alice/credits", `{"amount":10000,"currency":"EUR"}`, key("seed"))
	holdID := ""
	steps := []struct {
		name, method, path, body, key string
		status                        int
		problem                       string
		alice                         string // alice's balance body after the step, if checked
	}{
		{"transfer", "POST", "/users/alice/transfers", `{"toUserId":"bob","amount":2500,"currency":"EUR"}`, "t1", 201, "", `"balance":7500,"currency":"EUR","available":7500,"held":0`},
		{"transfer replay", "POST", "/users/alice/transfers", `{"toUserId":"bob","amount":2500,"currency":"EUR"}`, "t1", 201, "", `"balance":7500,`},
		{"transfer key reused", "POST", "/users/alice/transfers", `{"toUserId":"bob","amount":2600,"currency":"EUR"}`, "t1", 422, "idempotency-key-reused", `"balance":7500,`},
		{"transfer to oneself", "POST", "/users/alice/transfers", `{"toUserId":"alice","amount":1,"currency":"EUR"}`, "t2", 400, "invalid-transfer", `"balance":7500,`},
		{"transfer without recipient", "POST", "/users/alice/transfers", `{"amount":1,"currency":"EUR"}`, "t3", 400, "invalid-id", `"balance":7500,`},
		{"transfer to a bad id", "POST", "/users/alice/transfers", `{"toUserId":"a#b","amount":1,"currency":"EUR"}`, "t4", 400, "invalid-id", `"balance":7500,`},
		{"transfer float", "POST", "/users/alice/transfers", `{"toUserId":"bob","amount":1.5,"currency":"EUR"}`, "t5", 400, "invalid-amount", `"balance":7500,`},
		{"transfer unknown field", "POST", "/users/alice/transfers", `{"toUserId":"bob","amount":1,"currency":"EUR","memo":"x"}`, "t6", 400, "bad-request", `"balance":7500,`},
		{"transfer to nobody", "POST", "/users/alice/transfers", `{"toUserId":"nobody","amount":1,"currency":"EUR"}`, "t7", 404, "not-found", `"balance":7500,`},
		{"transfer too much", "POST", "/users/alice/transfers", `{"toUserId":"bob","amount":7501,"currency":"EUR"}`, "t8", 402, "insufficient-funds", `"balance":7500,`},
		{"transfer other currency", "POST", "/users/alice/transfers", `{"toUserId":"bob","amount":1,"currency":"USD"}`, "t9", 422, "currency-mismatch", `"balance":7500,`},
		{"transfer without key", "POST", "/users/alice/transfers", `{"toUserId":"bob","amount":1,"currency":"EUR"}`, "", 400, "idempotency-key-missing", `"balance":7500,`},
		{"hold", "POST", "/users/alice/holds", `{"amount":3000,"currency":"EUR","expiresInSeconds":3600}`, "h1", 201, "", `"balance":7500,"currency":"EUR","available":4500,"held":3000`},
		{"hold too long", "POST", "/users/alice/holds", `{"amount":1,"currency":"EUR","expiresInSeconds":2592001}`, "h2", 400, "invalid-hold", `"available":4500,`},
		{"hold too short", "POST", "/users/alice/holds", `{"amount":1,"currency":"EUR","expiresInSeconds":59}`, "h3", 400, "invalid-hold", `"available":4500,`},
		{"hold expiry not an integer", "POST", "/users/alice/holds", `{"amount":1,"currency":"EUR","expiresInSeconds":"60"}`, "h4", 400, "invalid-hold", `"available":4500,`},
		{"hold more than available", "POST", "/users/alice/holds", `{"amount":4501,"currency":"EUR"}`, "h5", 402, "insufficient-funds", `"available":4500,`},
		{"debit into the hold", "POST", "/users/alice/debits", `{"amount":4501,"currency":"EUR"}`, "d1", 402, "insufficient-funds", `"available":4500,`},
		{"get hold", "GET", "/users/alice/holds/{hold}", "", "", 200, "", ""},
		{"get unknown hold", "GET", "/users/alice/holds/hold_none", "", "", 404, "not-found", ""},
		{"capture more than held", "POST", "/users/alice/holds/{hold}/capture", `{"amount":3001,"currency":"EUR"}`, "c1", 422, "amount-exceeds-hold", `"available":4500,`},
		{"capture other currency", "POST", "/users/alice/holds/{hold}/capture", `{"amount":1,"currency":"USD"}`, "c2", 422, "currency-mismatch", `"available":4500,`},
		{"capture unknown hold", "POST", "/users/alice/holds/hold_none/capture", `{"amount":1,"currency":"EUR"}`, "c3", 404, "not-found", `"available":4500,`},
		{"capture", "POST", "/users/alice/holds/{hold}/capture", `{"amount":1000,"currency":"EUR"}`, "c4", 200, "", `"balance":6500,"currency":"EUR","available":6500,"held":0`},
		{"capture replay", "POST", "/users/alice/holds/{hold}/capture", `{"amount":1000,"currency":"EUR"}`, "c4", 200, "", `"balance":6500,`},
		{"capture again", "POST", "/users/alice/holds/{hold}/capture", `{"amount":1000,"currency":"EUR"}`, "c5", 409, "hold-not-open", `"balance":6500,`},
		{"void a captured hold", "POST", "/users/alice/holds/{hold}/void", "", "v1", 409, "hold-not-open", `"balance":6500,`},
		{"void with a body", "POST", "/users/alice/holds/{hold}/void", `{"amount":1}`, "v2", 400, "bad-request", `"balance":6500,`},
	}
	for _, s := range steps {
		path := strings.ReplaceAll(s.path, "{hold}", holdID)
		var headers map[string]string
		if s.key != "" {
			headers = key(s.key)
		}
		h.env.Requests.Reset()
		r := h.do(t, s.method, path, s.body, headers)
		if r.StatusCode != s.status {
			t.Fatalf("%s: %d %s, want %d", s.name, r.StatusCode, r.Body, s.status)
		}
		if s.problem != "" && !strings.Contains(r.Body, "urn:oncetable:problem:"+s.problem) {
			t.Errorf("%s: %s, want problem %s", s.name, r.Body, s.problem)
		}
		if r.StatusCode == 400 && h.env.Requests.Total() != 0 {
			t.Errorf("%s: rejected request sent %v to DynamoDB, want nothing", s.name, h.env.Requests.Snapshot())
		}
		if s.name == "hold" {
			holdID = field(t, r.Body, "holdId").(string)
		}
		if s.alice != "" {
			if b := h.do(t, "GET", "/users/alice/balance", "", nil).Body; !strings.Contains(b, s.alice) {
				t.Errorf("%s: alice's balance %s, want %s", s.name, b, s.alice)
			}
		}
	}
	if b := h.do(t, "GET", "/users/bob/balance", "", nil).Body; !strings.Contains(b, `"balance":2500,`) {
		t.Errorf("bob's balance %s, want 2500", b)
	}
}

// A customer transfers and holds only its own money, and never closes a
// hold; a foreign user is answered as a missing one.
func TestTransferAndHoldAuthorization(t *testing.T) {
	h := newHarness(t)
	for _, u := range []string{"alice", "bob"} {
		h.do(t, "POST", "/users", `{"userId":"`+u+`","name":"`+u+`","email":"`+u+`@example.com"}`, nil)
		h.do(t, "POST", "/users/"+u+"/credits", `{"amount":1000,"currency":"EUR"}`, key("seed-"+u))
	}
	call := func(ev events.APIGatewayV2HTTPRequest) events.APIGatewayV2HTTPResponse {
		t.Helper()
		r, err := h.api.Handle(context.Background(), ev)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := call(asCustomer(event("POST", "/users/alice/holds", `{"amount":100,"currency":"EUR"}`, key("ah")), "alice"))
	if r.StatusCode != 201 {
		t.Fatalf("alice holds her own money: %d %s", r.StatusCode, r.Body)
	}
	holdID := field(t, r.Body, "holdId").(string)
	tests := []struct {
		name    string
		ev      events.APIGatewayV2HTTPRequest
		status  int
		problem string
	}{
		{"customer transfers from another user", asCustomer(event("POST", "/users/bob/transfers", `{"toUserId":"alice","amount":1,"currency":"EUR"}`, key("x1")), "alice"), 404, "not-found"},
		{"customer holds another user's money", asCustomer(event("POST", "/users/bob/holds", `{"amount":1,"currency":"EUR"}`, key("x2")), "alice"), 404, "not-found"},
		{"customer reads another user's hold", asCustomer(event("GET", "/users/alice/holds/"+holdID, "", nil), "bob"), 404, "not-found"},
		{"customer captures its own hold", asCustomer(event("POST", "/users/alice/holds/"+holdID+"/capture", `{"amount":1,"currency":"EUR"}`, key("x3")), "alice"), 403, "forbidden"},
		{"customer voids its own hold", asCustomer(event("POST", "/users/alice/holds/"+holdID+"/void", "", key("x4")), "alice"), 403, "forbidden"},
		{"customer reads its own hold", asCustomer(event("GET", "/users/alice/holds/"+holdID, "", nil), "alice"), 200, ""},
		{"customer transfers its own money", asCustomer(event("POST", "/users/alice/transfers", `{"toUserId":"bob","amount":1,"currency":"EUR"}`, key("x5")), "alice"), 201, ""},
		{"service voids the hold", asService(event("POST", "/users/alice/holds/"+holdID+"/void", "", key("x6"))), 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := call(tt.ev)
			if r.StatusCode != tt.status || (tt.problem != "" && !strings.Contains(r.Body, "urn:oncetable:problem:"+tt.problem)) {
				t.Fatalf("%d %s, want %d %s", r.StatusCode, r.Body, tt.status, tt.problem)
			}
		})
	}
	for user, want := range map[string]string{"alice": `"balance":999,"currency":"EUR","available":999,"held":0`, "bob": `"balance":1001,`} {
		if b := h.do(t, "GET", "/users/"+user+"/balance", "", nil).Body; !strings.Contains(b, want) {
			t.Errorf("%s's balance %s, want %s", user, b, want)
		}
	}
}

// TestTransferAndHoldRequestCounts pins the DynamoDB requests of each
// transfer and hold flow, first call and replay (docs/ledger.md, "Cost").
func TestTransferAndHoldRequestCounts(t *testing.T) {
	h := newHarness(t)
	for _, u := range []string{"ann", "ben"} {
		h.do(t, "POST", "/users", `{"userId":"`+u+`","name":"`+u+`","email":"`+u+`@example.com"}`, nil)
	}
	h.do(t, "POST", "/users/ann/credits", `{"amount":10000,"currency":"EUR"}`, key("seed"))
	tx := map[string]int{"TransactWriteItems": 1}
	read := map[string]int{"BatchGetItem": 1}
	readTx := map[string]int{"BatchGetItem": 1, "TransactWriteItems": 1}
	holds := map[string]string{}
	steps := []struct {
		name, path, body, key string
		status                int
		want                  map[string]int
	}{
		{"transfer first", "/users/ann/transfers", `{"toUserId":"ben","amount":100,"currency":"EUR"}`, "k-tr", 201, tx},
		{"transfer replay", "/users/ann/transfers", `{"toUserId":"ben","amount":100,"currency":"EUR"}`, "k-tr", 201, tx},
		{"first hold of a user", "/users/ann/holds", `{"amount":500,"currency":"EUR","expiresInSeconds":60}`, "k-h1", 201, map[string]int{"TransactWriteItems": 2}},
		{"hold replay", "/users/ann/holds", `{"amount":500,"currency":"EUR","expiresInSeconds":60}`, "k-h1", 201, tx},
		{"second hold", "/users/ann/holds", `{"amount":500,"currency":"EUR"}`, "k-h2", 201, tx},
		{"capture first", "/users/ann/holds/{h2}/capture", `{"amount":300,"currency":"EUR"}`, "k-c", 200, readTx},
		{"capture replay", "/users/ann/holds/{h2}/capture", `{"amount":300,"currency":"EUR"}`, "k-c", 200, read},
		{"third hold", "/users/ann/holds", `{"amount":100,"currency":"EUR"}`, "k-h3", 201, tx},
		{"void first", "/users/ann/holds/{h3}/void", "", "k-v", 200, readTx},
		{"void replay", "/users/ann/holds/{h3}/void", "", "k-v", 200, read},
		{"debit that releases an expired hold", "/users/ann/debits", `{"amount":9500,"currency":"EUR"}`, "k-d", 201, map[string]int{"TransactWriteItems": 2}},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			if s.name == "debit that releases an expired hold" {
				h.env.Clock.Advance(time.Minute)
			}
			path := strings.NewReplacer("{h2}", holds["k-h2"], "{h3}", holds["k-h3"]).Replace(s.path)
			h.env.Requests.Reset()
			r := h.must(t, s.status, "POST", path, s.body, key(s.key))
			if got := h.env.Requests.Snapshot(); fmt.Sprint(got) != fmt.Sprint(s.want) {
				t.Errorf("requests = %v, want %v", got, s.want)
			}
			if strings.HasPrefix(s.path, "/users/ann/holds") && r.StatusCode == 201 {
				holds[s.key] = field(t, r.Body, "holdId").(string)
			}
		})
	}
	if b := h.do(t, "GET", "/users/ann/balance", "", nil).Body; !strings.Contains(b, `"balance":100,"currency":"EUR","available":100,"held":0`) {
		t.Errorf("ann's balance %s", b)
	}
}
