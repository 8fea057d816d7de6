package httpapi_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestFulfilRoutes walks an order's fulfilment in order: each step's
// status, problem and DynamoDB requests. A service or an operator ships a
// paid order and delivers it, forward only, one step at a time; a customer
// gets 403, even on its own order; a shipped order is listed by status,
// refunded in part (staying shipped) but not cancelled.
func TestFulfilRoutes(t *testing.T) {
	h := newHarness(t)
	h.do(t, "POST", "/users", `{"userId":"alice","name":"alice","email":"alice@example.com"}`, nil)
	h.do(t, "POST", "/users/alice/credits", `{"amount":10000,"currency":"EUR"}`, key("seed"))
	newOrder := func(k string) string {
		r := h.must(t, 201, "POST", "/users/alice/orders", `{"currency":"EUR","items":[{"productId":"p1","quantity":2,"unitPrice":1500}]}`, key(k))
		return field(t, r.Body, "orderId").(string)
	}
	open, paid := newOrder("o1"), newOrder("o2")
	h.must(t, 201, "POST", "/orders/"+paid+"/payments", `{"amount":3000,"currency":"EUR"}`, key("c2"))
	h.must(t, 200, "POST", "/orders/"+paid+"/settle", "", key("s2"))
	read := map[string]int{"BatchGetItem": 1}
	readTx := map[string]int{"BatchGetItem": 1, "TransactWriteItems": 1}
	readLookup := map[string]int{"BatchGetItem": 1, "GetItem": 2, "PutItem": 1}
	steps := []struct {
		name, who, method, path, body, key string
		status                             int
		problem                            string
		requests                           map[string]int
	}{
		{"ship without a key", "", "POST", "/orders/{paid}/ship", "", "", 400, "idempotency-key-missing", map[string]int{}},
		{"ship with a body", "", "POST", "/orders/{paid}/ship", `{"carrier":"x"}`, "f0", 400, "bad-request", map[string]int{}},
		{"ship of no order", "", "POST", "/orders/o_none/ship", "", "f1", 404, "not-found", read},
		{"ship by its customer", "alice", "POST", "/orders/{paid}/ship", "", "f2", 403, "forbidden", map[string]int{}},
		{"deliver by its customer", "alice", "POST", "/orders/{paid}/deliver", "", "f3", 403, "forbidden", map[string]int{}},
		{"ship of an unpaid order", "", "POST", "/orders/{open}/ship", "", "f4", 409, "invalid-transition", readLookup},
		{"deliver of a paid order (a skipped step)", "", "POST", "/orders/{paid}/deliver", "", "f5", 409, "invalid-transition", readLookup},
		{"ship of a paid order by a service", "service", "POST", "/orders/{paid}/ship", `{}`, "f6", 200, "", readTx},
		{"ship replayed", "service", "POST", "/orders/{paid}/ship", `{}`, "f6", 200, "", read},
		{"ship again under another key", "", "POST", "/orders/{paid}/ship", "", "f7", 409, "invalid-transition", readLookup},
		{"orders by status shipped", "", "GET", "/orders?status=shipped", "", "", 200, "", nil},
		{"cancel of the shipped order", "", "POST", "/orders/{paid}/cancel", "", "x1", 409, "refund-required", readLookup},
		{"partial refund of the shipped order", "service", "POST", "/orders/{paid}/refunds", `{"amount":500,"currency":"EUR"}`, "r1", 201, "", nil},
		{"deliver of the shipped order", "", "POST", "/orders/{paid}/deliver", "", "f8", 200, "", readTx},
		{"ship of the delivered order (going back)", "", "POST", "/orders/{paid}/ship", "", "f9", 409, "invalid-transition", readLookup},
		{"orders by status delivered", "", "GET", "/orders?status=delivered", "", "", 200, "", nil},
		{"orders by status shipped, after", "", "GET", "/orders?status=shipped", "", "", 200, "", nil},
	}
	for i, s := range steps {
		path := strings.NewReplacer("{open}", open, "{paid}", paid).Replace(s.path)
		var headers map[string]string
		if s.key != "" {
			headers = key(s.key)
		}
		ev := event(s.method, path, s.body, headers)
		switch s.who {
		case "":
		case "service":
			ev = asService(ev)
		default:
			ev = asCustomer(asService(ev), s.who)
		}
		h.env.Requests.Reset()
		r, err := h.api.Handle(context.Background(), ev)
		if err != nil || r.StatusCode != s.status {
			t.Fatalf("step %d, %s: %d %s, %v; want %d", i, s.name, r.StatusCode, r.Body, err, s.status)
		}
		if s.problem != "" && !strings.Contains(r.Body, `"type":"urn:oncetable:problem:`+s.problem+`"`) {
			t.Errorf("%s: %s, want problem %s", s.name, r.Body, s.problem)
		}
		if s.requests != nil {
			if got := h.env.Requests.Snapshot(); fmt.Sprint(got) != fmt.Sprint(s.requests) {
				t.Errorf("%s: requests = %v, want %v", s.name, got, s.requests)
			}
		}
		switch s.name {
		case "ship of a paid order by a service", "deliver of the shipped order":
			want := map[bool]string{true: "shipped", false: "delivered"}[strings.HasPrefix(s.name, "ship")]
			if st := field(t, r.Body, "status"); st != want {
				t.Errorf("%s: status %v, want %s", s.name, st, want)
			}
		case "ship replayed":
			if r.Headers["Idempotent-Replayed"] != "true" {
				t.Errorf("ship replayed without Idempotent-Replayed: %v", r.Headers)
			}
		case "partial refund of the shipped order":
			if st := field(t, r.Body, "orderStatus"); st != "shipped" {
				t.Errorf("partial refund of a shipped order left it %v, want shipped", st)
			}
		case "orders by status shipped", "orders by status delivered":
			if !strings.Contains(r.Body, `"orderId":"`+paid+`"`) || strings.Contains(r.Body, `"orderId":"`+open+`"`) {
				t.Errorf("%s: %s, want %s only", s.name, r.Body, paid)
			}
		case "orders by status shipped, after":
			if strings.Contains(r.Body, `"orderId":"`+paid+`"`) {
				t.Errorf("the delivered order is still listed as shipped: %s", r.Body)
			}
		}
	}
	if b := h.do(t, "GET", "/users/alice/balance", "", nil).Body; !strings.Contains(b, `"balance":7500,`) {
		t.Errorf("alice's balance after a settle of 3000 and a refund of 500: %s, want 7500", b)
	}
	order := h.do(t, "GET", "/orders/"+paid, "", nil).Body
	for _, want := range []string{`"status":"delivered"`, `"refunded":500`, `"shippedAt":"`, `"deliveredAt":"`} {
		if !strings.Contains(order, want) {
			t.Errorf("the delivered order %s lacks %s", order, want)
		}
	}
}
