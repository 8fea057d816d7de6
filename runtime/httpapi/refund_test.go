package httpapi_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestRefundRoutes walks the refund routes in order: each step's status,
// problem type and DynamoDB requests (first call and replay), and the
// balance after it, so that no refused refund moved money.
func TestRefundRoutes(t *testing.T) {
	h := newHarness(t)
	h.do(t, "POST", "/users", `{"userId":"alice","name":"alice","email":"alice@example.com"}`, nil)
	h.do(t, "POST", "/users/alice/credits", `{"amount":10000,"currency":"EUR"}`, key("seed"))
	r := h.must(t, 201, "POST", "/users/alice/orders", `{"currency":"EUR","items":[{"productId":"p1","quantity":2,"unitPrice":1500}]}`, key("o"))
	order := field(t, r.Body, "orderId").(string)
	read := map[string]int{"BatchGetItem": 1}
	readTx := map[string]int{"BatchGetItem": 1, "TransactWriteItems": 1}
	readLookup := map[string]int{"BatchGetItem": 1, "GetItem": 2, "PutItem": 1} // the record read again at both its places, then the decline stored
	refundID := ""
	steps := []struct {
		name, method, path, body, key string
		status                        int
		problem                       string
		requests                      map[string]int // when checked
		balance                       string
	}{
		{"refund of a created order", "POST", "/orders/{o}/refunds", "", "r0", 409, "not-paid", readLookup, `"balance":10000,`},
		{"declined refund replayed", "POST", "/orders/{o}/refunds", "", "r0", 409, "not-paid", read, `"balance":10000,`},
		{"charge", "POST", "/orders/{o}/payments", `{"amount":3000,"currency":"EUR"}`, "c", 201, "", nil, ""},
		{"settle", "POST", "/orders/{o}/settle", "", "s", 200, "", nil, `"balance":7000,`},
		{"refund without a key", "POST", "/orders/{o}/refunds", `{"amount":1,"currency":"EUR"}`, "", 400, "idempotency-key-missing", map[string]int{}, `"balance":7000,`},
		{"refund of a float", "POST", "/orders/{o}/refunds", `{"amount":1.5,"currency":"EUR"}`, "r1", 400, "invalid-amount", map[string]int{}, `"balance":7000,`},
		{"refund of a currency alone", "POST", "/orders/{o}/refunds", `{"currency":"EUR"}`, "r2", 400, "invalid-amount", map[string]int{}, `"balance":7000,`},
		{"refund with an unknown field", "POST", "/orders/{o}/refunds", `{"amount":1,"currency":"EUR","reason":"x"}`, "r3", 400, "bad-request", map[string]int{}, `"balance":7000,`},
		{"refund of no order", "POST", "/orders/o_none/refunds", `{"amount":1,"currency":"EUR"}`, "r4", 404, "not-found", read, `"balance":7000,`},
		{"refund in another currency", "POST", "/orders/{o}/refunds", `{"amount":1,"currency":"USD"}`, "r5", 422, "currency-mismatch", readLookup, `"balance":7000,`},
		{"refund of more than was paid", "POST", "/orders/{o}/refunds", `{"amount":3001,"currency":"EUR"}`, "r6", 422, "amount-exceeds-refundable", readLookup, `"balance":7000,`},
		{"partial refund", "POST", "/orders/{o}/refunds", `{"amount":1000,"currency":"EUR"}`, "r7", 201, "", readTx, `"balance":8000,`},
		{"partial refund replayed", "POST", "/orders/{o}/refunds", `{"amount":1000,"currency":"EUR"}`, "r7", 201, "", read, `"balance":8000,`},
		{"key reused", "POST", "/orders/{o}/refunds", `{"amount":999,"currency":"EUR"}`, "r7", 422, "idempotency-key-reused", read, `"balance":8000,`},
		{"get the refund", "GET", "/orders/{o}/refunds/{r}", "", "", 200, "", nil, ""},
		{"get no refund", "GET", "/orders/{o}/refunds/rf_none", "", "", 404, "not-found", nil, ""},
		{"the rest", "POST", "/orders/{o}/refunds", "", "r8", 201, "", readTx, `"balance":10000,`},
		{"a refunded order", "POST", "/orders/{o}/refunds", `{}`, "r9", 422, "amount-exceeds-refundable", readLookup, `"balance":10000,`},
		{"list the refunds", "GET", "/orders/{o}/refunds", "", "", 200, "", nil, ""},
		{"list no order's refunds", "GET", "/orders/o_none/refunds", "", "", 404, "not-found", nil, ""},
	}
	for _, s := range steps {
		path := strings.NewReplacer("{o}", order, "{r}", refundID).Replace(s.path)
		var headers map[string]string
		if s.key != "" {
			headers = key(s.key)
		}
		h.env.Requests.Reset()
		r := h.do(t, s.method, path, s.body, headers)
		if r.StatusCode != s.status {
			t.Fatalf("%s: %d %s, want %d", s.name, r.StatusCode, r.Body, s.status)
		}
		if s.problem != "" && !strings.Contains(r.Body, `"code":"`+strings.ReplaceAll(s.problem, "-", "_")+`"`) {
			t.Errorf("%s: %s, want problem %s", s.name, r.Body, s.problem)
		}
		if s.requests != nil {
			if got := h.env.Requests.Snapshot(); fmt.Sprint(got) != fmt.Sprint(s.requests) {
				t.Errorf("%s: requests = %v, want %v", s.name, got, s.requests)
			}
		}
		switch s.name {
		case "partial refund":
			refundID = field(t, r.Body, "refundId").(string)
			if loc := r.Headers["Location"]; loc != "/v1/orders/"+order+"/refunds/"+refundID {
				t.Errorf("Location %q", loc)
			}
			if st := field(t, r.Body, "orderStatus"); st != "partially_refunded" {
				t.Errorf("partial refund: orderStatus %v", st)
			}
		case "the rest":
			if a, st := field(t, r.Body, "amount"), field(t, r.Body, "orderStatus"); a != float64(2000) || st != "refunded" {
				t.Errorf("the rest: amount %v, orderStatus %v; want 2000, refunded", a, st)
			}
		case "list the refunds":
			if n := strings.Count(r.Body, `"refundId"`); n != 2 {
				t.Errorf("list: %d refunds in %s, want 2", n, r.Body)
			}
		}
		if s.balance != "" {
			if b := h.do(t, "GET", "/users/alice/balance", "", nil).Body; !strings.Contains(b, s.balance) {
				t.Errorf("%s: balance %s, want %s", s.name, b, s.balance)
			}
		}
	}
	if o := h.do(t, "GET", "/orders/"+order, "", nil).Body; !strings.Contains(o, `"status":"refunded"`) || !strings.Contains(o, `"refunded":3000`) {
		t.Errorf("order after the refunds: %s", o)
	}
	if l := h.do(t, "GET", "/orders?status=refunded", "", nil).Body; !strings.Contains(l, order) {
		t.Errorf("orders refunded: %s, want %s", l, order)
	}
}

// A customer reads its own order's refunds but refunds nothing; another
// customer's order is answered as a missing one.
func TestRefundAuthorization(t *testing.T) {
	h := newHarness(t)
	for _, u := range []string{"alice", "bob"} {
		h.do(t, "POST", "/users", `{"userId":"`+u+`","name":"`+u+`","email":"`+u+`@example.com"}`, nil)
		h.do(t, "POST", "/users/"+u+"/credits", `{"amount":1000,"currency":"EUR"}`, key("seed-"+u))
	}
	r := h.must(t, 201, "POST", "/users/alice/orders", `{"currency":"EUR","items":[{"productId":"p1","quantity":1,"unitPrice":500}]}`, key("o"))
	order := field(t, r.Body, "orderId").(string)
	h.must(t, 201, "POST", "/orders/"+order+"/payments", `{"amount":500,"currency":"EUR"}`, key("c"))
	h.must(t, 200, "POST", "/orders/"+order+"/settle", "", key("s"))
	refund := h.must(t, 201, "POST", "/orders/"+order+"/refunds", `{"amount":100,"currency":"EUR"}`, key("r"))
	refundID := field(t, refund.Body, "refundId").(string)
	tests := []struct {
		name, who, method, path, body string
		status                        int
	}{
		{"customer refunds its own order", "alice", "POST", "/orders/" + order + "/refunds", `{"amount":1,"currency":"EUR"}`, 403},
		{"customer refunds another's order", "bob", "POST", "/orders/" + order + "/refunds", "", 403},
		{"customer lists its own refunds", "alice", "GET", "/orders/" + order + "/refunds", "", 200},
		{"customer reads its own refund", "alice", "GET", "/orders/" + order + "/refunds/" + refundID, "", 200},
		{"customer lists another's refunds", "bob", "GET", "/orders/" + order + "/refunds", "", 404},
		{"customer reads another's refund", "bob", "GET", "/orders/" + order + "/refunds/" + refundID, "", 404},
		{"service refunds any order", "", "POST", "/orders/" + order + "/refunds", `{"amount":1,"currency":"EUR"}`, 201},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var headers map[string]string
			if tt.method == "POST" {
				headers = key(fmt.Sprint("k", i))
			}
			ev := asService(event(tt.method, tt.path, tt.body, headers))
			if tt.who != "" {
				ev = asCustomer(ev, tt.who)
			}
			r, err := h.api.Handle(context.Background(), ev)
			if err != nil || r.StatusCode != tt.status {
				t.Fatalf("%d %s, %v; want %d", r.StatusCode, r.Body, err, tt.status)
			}
		})
	}
	if b := h.do(t, "GET", "/users/alice/balance", "", nil).Body; !strings.Contains(b, `"balance":601,`) {
		t.Errorf("alice's balance %s, want 601 (500 paid, 101 refunded)", b)
	}
}
