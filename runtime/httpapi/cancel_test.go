package httpapi_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestCancelRoutes walks a cancel in order: each step's status, problem
// and DynamoDB requests, and the balance after it. A cancelled order is
// neither charged nor settled afterwards, a paid one is refunded instead,
// and the customer cancels its own order but not another's.
func TestCancelRoutes(t *testing.T) {
	h := newHarness(t)
	for _, u := range []string{"alice", "bob"} {
		h.do(t, "POST", "/users", `{"userId":"`+u+`","name":"`+u+`","email":"`+u+`@example.com"}`, nil)
		h.do(t, "POST", "/users/"+u+"/credits", `{"amount":10000,"currency":"EUR"}`, key("seed-"+u))
	}
	newOrder := func(k string) string {
		r := h.must(t, 201, "POST", "/users/alice/orders", `{"currency":"EUR","items":[{"productId":"p1","quantity":2,"unitPrice":1500}]}`, key(k))
		return field(t, r.Body, "orderId").(string)
	}
	open, paid := newOrder("o1"), newOrder("o2")
	h.must(t, 201, "POST", "/orders/"+open+"/payments", `{"amount":3000,"currency":"EUR"}`, key("c1"))
	h.must(t, 201, "POST", "/orders/"+paid+"/payments", `{"amount":3000,"currency":"EUR"}`, key("c2"))
	h.must(t, 200, "POST", "/orders/"+paid+"/settle", "", key("s2"))
	read := map[string]int{"BatchGetItem": 1}
	readLookup := map[string]int{"BatchGetItem": 1, "GetItem": 2, "PutItem": 1}
	// a customer's call reads the order's owner first (one GetItem)
	ownerReadTx := map[string]int{"BatchGetItem": 1, "GetItem": 1, "TransactWriteItems": 1}
	ownerRead := map[string]int{"BatchGetItem": 1, "GetItem": 1}
	steps := []struct {
		name, who, method, path, body, key string
		status                             int
		problem                            string
		requests                           map[string]int
	}{
		{"cancel without a key", "", "POST", "/orders/{open}/cancel", "", "", 400, "idempotency-key-missing", map[string]int{}},
		{"cancel with a body", "", "POST", "/orders/{open}/cancel", `{"reason":"x"}`, "x0", 400, "bad-request", map[string]int{}},
		{"cancel of no order", "", "POST", "/orders/o_none/cancel", "", "x1", 404, "not-found", read},
		{"cancel of another's order", "bob", "POST", "/orders/{open}/cancel", "", "x2", 404, "not-found", nil},
		{"cancel of a paid order", "", "POST", "/orders/{paid}/cancel", "", "x3", 409, "refund-required", readLookup},
		{"cancel of its own order", "alice", "POST", "/orders/{open}/cancel", `{}`, "x4", 200, "", ownerReadTx},
		{"cancel replayed", "alice", "POST", "/orders/{open}/cancel", `{}`, "x4", 200, "", ownerRead},
		{"cancel again under another key", "", "POST", "/orders/{open}/cancel", "", "x5", 409, "order-cancelled", readLookup},
		{"settle of the cancelled order", "", "POST", "/orders/{open}/settle", "", "s1", 409, "order-cancelled", nil},
		{"charge of the cancelled order", "", "POST", "/orders/{open}/payments", `{"amount":3000,"currency":"EUR"}`, "c3", 409, "order-cancelled", nil},
		{"orders by status cancelled", "", "GET", "/orders?status=cancelled", "", "", 200, "", nil},
	}
	for i, s := range steps {
		path := strings.NewReplacer("{open}", open, "{paid}", paid).Replace(s.path)
		var headers map[string]string
		if s.key != "" {
			headers = key(s.key)
		}
		ev := event(s.method, path, s.body, headers)
		if s.who != "" {
			ev = asCustomer(asService(ev), s.who)
		}
		h.env.Requests.Reset()
		r, err := h.api.Handle(context.Background(), ev)
		if err != nil || r.StatusCode != s.status {
			t.Fatalf("step %d, %s: %d %s, %v; want %d", i, s.name, r.StatusCode, r.Body, err, s.status)
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
		case "cancel of its own order":
			if st := field(t, r.Body, "status"); st != "cancelled" {
				t.Errorf("cancel: status %v, want cancelled", st)
			}
		case "cancel replayed":
			if r.Headers["Idempotent-Replayed"] != "true" {
				t.Errorf("cancel replayed without Idempotent-Replayed: %v", r.Headers)
			}
		case "orders by status cancelled":
			if !strings.Contains(r.Body, `"orderId":"`+open+`"`) || strings.Contains(r.Body, `"orderId":"`+paid+`"`) {
				t.Errorf("orders cancelled: %s, want %s only", r.Body, open)
			}
		}
	}
	if b := h.do(t, "GET", "/users/alice/balance", "", nil).Body; !strings.Contains(b, `"balance":7000,`) {
		t.Errorf("alice's balance after a settle and a cancel: %s, want 7000", b)
	}
	order := h.do(t, "GET", "/orders/"+open, "", nil).Body
	if !strings.Contains(order, `"status":"voided"`) {
		t.Errorf("the cancelled order's payment is not voided: %s", order)
	}
}
