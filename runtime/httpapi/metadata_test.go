package httpapi_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// metaOf is the metadata member of a JSON body (nil when absent).
func metaOf(t *testing.T, body string) map[string]string {
	t.Helper()
	var v struct {
		Metadata map[string]string `json:"metadata"`
	}
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("body %q: %v", body, err)
	}
	return v.Metadata
}

// TestMetadataRoundTrips creates every resource that takes metadata with
// some, and checks it in the create response, in the replay (same key,
// same body) and in every read of the resource.
func TestMetadataRoundTrips(t *testing.T) {
	h := newHarness(t)
	h.must(t, 201, "POST", "/users", `{"userId":"bob","name":"Bob","email":"bob@example.com"}`, nil)
	vars := map[string]string{}
	sub := func(s string) string {
		for k, v := range vars {
			s = strings.ReplaceAll(s, "{"+k+"}", v)
		}
		return s
	}
	steps := []struct {
		name, path, body string
		status           int
		want             map[string]string // in the response
		save             map[string]string // var <- response member
		reads            map[string]map[string]string
	}{
		{"user", "/users", `{"userId":"alice","name":"Alice","email":"a@example.com","metadata":{"crm":"C-1"}}`, 201,
			map[string]string{"crm": "C-1"}, nil, map[string]map[string]string{"/users/alice": {"crm": "C-1"}}},
		{"credit", "/users/alice/credits", `{"amount":10000,"currency":"EUR","metadata":{"topup":"T-1"}}`, 201,
			map[string]string{"topup": "T-1"}, map[string]string{"credit": "entryId"},
			map[string]map[string]string{"/users/alice/ledger/{credit}": {"topup": "T-1"}}},
		{"debit", "/users/alice/debits", `{"amount":100,"currency":"EUR","metadata":{"why":"fee"}}`, 201,
			map[string]string{"why": "fee"}, map[string]string{"debit": "entryId"},
			map[string]map[string]string{"/users/alice/ledger/{debit}": {"why": "fee"}}},
		{"order", "/users/alice/orders", `{"currency":"EUR","items":[{"productId":"p1","quantity":1,"unitPrice":3000}],"metadata":{"cart":"K-9"}}`, 201,
			map[string]string{"cart": "K-9"}, map[string]string{"order": "orderId"},
			map[string]map[string]string{"/orders/{order}": {"cart": "K-9"}}},
		{"charge", "/orders/{order}/payments", `{"amount":3000,"currency":"EUR","metadata":{"psp":"P-1"}}`, 201,
			map[string]string{"psp": "P-1"}, map[string]string{"payment": "paymentId"},
			map[string]map[string]string{"/orders/{order}/payments/{payment}": {"psp": "P-1"}}},
		{"settle", "/orders/{order}/settle", `{"metadata":{"cart":"K-10","batch":"B-1"}}`, 200,
			map[string]string{"cart": "K-10", "batch": "B-1"}, nil,
			map[string]map[string]string{"/orders/{order}": {"cart": "K-10", "batch": "B-1"}}},
		{"refund", "/orders/{order}/refunds", `{"amount":500,"currency":"EUR","metadata":{"rma":"R-1"}}`, 201,
			map[string]string{"rma": "R-1"}, map[string]string{"refund": "refundId", "refundEntry": "entryId"},
			map[string]map[string]string{"/orders/{order}/refunds/{refund}": {"rma": "R-1"}, "/users/alice/ledger/{refundEntry}": {"rma": "R-1"}}},
		{"transfer", "/users/alice/transfers", `{"toUserId":"bob","amount":200,"currency":"EUR","metadata":{"memo":"rent"}}`, 201,
			map[string]string{"memo": "rent"}, map[string]string{"transfer": "transferId", "out": "entryId"},
			map[string]map[string]string{"/users/alice/ledger/{out}": {"memo": "rent"}, "/users/bob/ledger/{transfer}-in": nil}},
		{"hold", "/users/alice/holds", `{"amount":300,"currency":"EUR","metadata":{"rental":"car-7"}}`, 201,
			map[string]string{"rental": "car-7"}, map[string]string{"hold": "holdId"},
			map[string]map[string]string{"/users/alice/holds/{hold}": {"rental": "car-7"}}},
		{"capture", "/users/alice/holds/{hold}/capture", `{"amount":100,"currency":"EUR","metadata":{"km":"120"}}`, 200,
			map[string]string{"rental": "car-7", "km": "120"}, map[string]string{"capture": "entryId"},
			map[string]map[string]string{"/users/alice/holds/{hold}": {"rental": "car-7", "km": "120"}, "/users/alice/ledger/{capture}": {"km": "120"}}},
		{"second hold", "/users/alice/holds", `{"amount":300,"currency":"EUR"}`, 201,
			nil, map[string]string{"hold2": "holdId"}, map[string]map[string]string{"/users/alice/holds/{hold2}": nil}},
		{"void", "/users/alice/holds/{hold2}/void", `{"metadata":{"reason":"cancelled"}}`, 200,
			map[string]string{"reason": "cancelled"}, nil,
			map[string]map[string]string{"/users/alice/holds/{hold2}": {"reason": "cancelled"}}},
	}
	for i, s := range steps {
		path, k := sub(s.path), key(fmt.Sprintf("meta-%d", i))
		r := h.must(t, s.status, "POST", path, s.body, k)
		if got := metaOf(t, r.Body); !reflect.DeepEqual(got, s.want) {
			t.Errorf("%s: response metadata %v, want %v", s.name, got, s.want)
		}
		replay := h.must(t, s.status, "POST", path, s.body, k)
		if replay.Body != r.Body || replay.Headers["Idempotent-Replayed"] != "true" {
			t.Errorf("%s: replay %s (replayed %q), want %s", s.name, replay.Body, replay.Headers["Idempotent-Replayed"], r.Body)
		}
		for name, member := range s.save {
			vars[name] = field(t, r.Body, member).(string)
		}
		for read, want := range s.reads {
			got := h.must(t, 200, "GET", sub(read), "", nil)
			if m := metaOf(t, got.Body); !reflect.DeepEqual(m, want) {
				t.Errorf("%s: GET %s metadata %v, want %v", s.name, sub(read), m, want)
			}
		}
	}
	// The settle's own metadata is on its ledger entry.
	ledger := h.must(t, 200, "GET", "/users/alice/ledger?limit=50", "", nil)
	var page struct {
		Items []struct {
			Kind     string            `json:"kind"`
			Metadata map[string]string `json:"metadata"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(ledger.Body), &page); err != nil {
		t.Fatal(err)
	}
	settled := false
	for _, e := range page.Items {
		if e.Kind == "settle" {
			settled = true
			if want := map[string]string{"cart": "K-10", "batch": "B-1"}; !reflect.DeepEqual(e.Metadata, want) {
				t.Errorf("settle entry metadata %v, want %v", e.Metadata, want)
			}
		}
	}
	if !settled {
		t.Errorf("no settle entry in %s", ledger.Body)
	}
}

// TestMetadataKeyReuse: the metadata is part of the request's fingerprint,
// so the same key with other metadata is a reused key (422), which moves
// nothing and changes nothing.
func TestMetadataKeyReuse(t *testing.T) {
	h := newHarness(t)
	h.seed(t, "alice", 10000, map[string]int64{"o1": 1000, "o2": 1000})
	h.must(t, 201, "POST", "/users", `{"userId":"bob","name":"Bob","email":"bob@example.com"}`, nil)
	h.charge(t, "o2", 1000)
	hold := field(t, h.must(t, 201, "POST", "/users/alice/holds", `{"amount":100,"currency":"EUR"}`, key("h")).Body, "holdId").(string)
	voided := field(t, h.must(t, 201, "POST", "/users/alice/holds", `{"amount":100,"currency":"EUR"}`, key("h2")).Body, "holdId").(string)
	cases := []struct {
		name, path, first, second string
	}{
		{"user", "/users", `{"userId":"carol","name":"C","email":"c@example.com","metadata":{"a":"1"}}`, `{"userId":"carol","name":"C","email":"c@example.com","metadata":{"a":"2"}}`},
		{"credit", "/users/alice/credits", `{"amount":1,"currency":"EUR","metadata":{"a":"1"}}`, `{"amount":1,"currency":"EUR","metadata":{"a":"2"}}`},
		{"debit", "/users/alice/debits", `{"amount":1,"currency":"EUR","metadata":{"a":"1"}}`, `{"amount":1,"currency":"EUR"}`},
		{"order", "/users/alice/orders", `{"currency":"EUR","items":[{"productId":"p","quantity":1,"unitPrice":1}]}`, `{"currency":"EUR","items":[{"productId":"p","quantity":1,"unitPrice":1}],"metadata":{"a":"1"}}`},
		{"charge", "/orders/o1/payments", `{"amount":1000,"currency":"EUR","metadata":{"a":"1"}}`, `{"amount":1000,"currency":"EUR","metadata":{"A":"1"}}`},
		{"settle", "/orders/o2/settle", `{"metadata":{"a":"1"}}`, `{"metadata":{"a":"1","b":"2"}}`},
		{"transfer", "/users/alice/transfers", `{"toUserId":"bob","amount":1,"currency":"EUR","metadata":{"a":"1"}}`, `{"toUserId":"bob","amount":1,"currency":"EUR","metadata":{"a":"1 "}}`},
		{"hold", "/users/alice/holds", `{"amount":1,"currency":"EUR","metadata":{"a":"1"}}`, `{"amount":1,"currency":"EUR","metadata":{"a":"2"}}`},
		{"capture", "/users/alice/holds/" + hold + "/capture", `{"amount":50,"currency":"EUR","metadata":{"a":"1"}}`, `{"amount":50,"currency":"EUR","metadata":{"a":"2"}}`},
		{"refund", "/orders/o2/refunds", `{"amount":1,"currency":"EUR","metadata":{"a":"1"}}`, `{"amount":1,"currency":"EUR","metadata":{"a":"2"}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := key("reuse-" + c.name)
			first := h.do(t, "POST", c.path, c.first, k)
			if first.StatusCode >= 300 {
				t.Fatalf("first: %d %s", first.StatusCode, first.Body)
			}
			before := h.must(t, 200, "GET", "/users/alice/balance", "", nil).Body
			h.env.Requests.Reset()
			r := h.do(t, "POST", c.path, c.second, k)
			if r.StatusCode != 422 || !strings.Contains(r.Body, `"code":"idempotency_key_reused"`) {
				t.Fatalf("same key, other metadata: %d %s, want 422 idempotency_key_reused", r.StatusCode, r.Body)
			}
			for op := range h.env.Requests.Snapshot() {
				if op != "TransactWriteItems" && op != "GetItem" && op != "BatchGetItem" {
					t.Errorf("the reused key made a %s", op)
				}
			}
			if after := h.must(t, 200, "GET", "/users/alice/balance", "", nil).Body; after != before {
				t.Errorf("balance %s after the reused key, %s before", after, before)
			}
		})
	}
	k := key("reuse-void")
	h.must(t, 200, "POST", "/users/alice/holds/"+voided+"/void", `{"metadata":{"a":"1"}}`, k)
	if r := h.do(t, "POST", "/users/alice/holds/"+voided+"/void", `{"metadata":{"a":"2"}}`, k); r.StatusCode != 422 {
		t.Fatalf("void, same key, other metadata: %d %s, want 422", r.StatusCode, r.Body)
	}
}

// TestMetadataRefused: every bound, exactly at it (accepted) and just over
// it (400 invalid_metadata naming the member, no request to the table),
// on a credit; and the same refusal on every route that takes metadata.
func TestMetadataRefused(t *testing.T) {
	h := newHarness(t)
	h.seed(t, "alice", 10000, map[string]int64{"o1": 1000})
	keys50, keys51 := metaObject(50), metaObject(51)
	k40, k41 := strings.Repeat("k", 40), strings.Repeat("k", 41)
	v500, v501 := strings.Repeat("v", 500), strings.Repeat("v", 501)
	bounds := []struct {
		name, metadata string
		param          string // "" accepted
	}{
		{"50 keys", keys50, ""},
		{"51 keys", keys51, "metadata"},
		{"key of 40 characters", `{"` + k40 + `":"v"}`, ""},
		{"key of 41 characters", `{"` + k41 + `":"v"}`, "metadata[" + k41 + "]"},
		{"key of 40 characters in 80 bytes", `{"` + strings.Repeat("é", 40) + `":"v"}`, ""},
		{"value of 500 characters", `{"k":"` + v500 + `"}`, ""},
		{"value of 501 characters", `{"k":"` + v501 + `"}`, "metadata[k]"},
		{"value of 500 characters in 1500 bytes", `{"k":"` + strings.Repeat("€", 500) + `"}`, ""},
		{"empty key", `{"":"v"}`, "metadata[]"},
		{"key with [", `{"a[0]":"v"}`, "metadata[a[0]]"},
		{"number value", `{"k":1}`, "metadata[k]"},
		{"nested object", `{"k":{"x":"y"}}`, "metadata[k]"},
		{"array", `["k"]`, "metadata"},
		{"string", `"k"`, "metadata"},
		{"duplicate key", `{"k":"1","k":"2"}`, "metadata[k]"},
		{"keys differing by case", `{"k":"1","K":"2"}`, ""},
		{"null", `null`, ""},
	}
	for i, b := range bounds {
		t.Run(b.name, func(t *testing.T) {
			h.env.Requests.Reset()
			r := h.do(t, "POST", "/users/alice/credits", `{"amount":1,"currency":"EUR","metadata":`+b.metadata+`}`, key(fmt.Sprintf("bound-%d", i)))
			if b.param == "" {
				if r.StatusCode != 201 {
					t.Fatalf("%d %s, want 201", r.StatusCode, r.Body)
				}
				return
			}
			checkMetadataProblem(t, r.StatusCode, r.Body, b.param)
			if got := h.env.Requests.Snapshot(); len(got) != 0 {
				t.Errorf("a refused metadata made requests %v", got)
			}
		})
	}
	routes := []struct{ path, body string }{
		{"/users", `{"userId":"zed","name":"Z","email":"z@example.com","metadata":%s}`},
		{"/users/alice/credits", `{"amount":1,"currency":"EUR","metadata":%s}`},
		{"/users/alice/debits", `{"amount":1,"currency":"EUR","metadata":%s}`},
		{"/users/alice/orders", `{"currency":"EUR","items":[{"productId":"p","quantity":1,"unitPrice":1}],"metadata":%s}`},
		{"/orders/o1/payments", `{"amount":1000,"currency":"EUR","metadata":%s}`},
		{"/orders/o1/settle", `{"metadata":%s}`},
		{"/orders/o1/refunds", `{"metadata":%s}`},
		{"/users/alice/transfers", `{"toUserId":"bob","amount":1,"currency":"EUR","metadata":%s}`},
		{"/users/alice/holds", `{"amount":1,"currency":"EUR","metadata":%s}`},
		{"/users/alice/holds/h1/capture", `{"amount":1,"currency":"EUR","metadata":%s}`},
		{"/users/alice/holds/h1/void", `{"metadata":%s}`},
	}
	for _, rt := range routes {
		h.env.Requests.Reset()
		r := h.do(t, "POST", rt.path, fmt.Sprintf(rt.body, `{"k":1}`), key("bad-"+rt.path))
		checkMetadataProblem(t, r.StatusCode, r.Body, "metadata[k]")
		// A create that moves no money reads its key's record first (a
		// replay answers before validation); nothing writes.
		for op := range h.env.Requests.Snapshot() {
			if op != "GetItem" || rt.path != "/users" {
				t.Errorf("%s: a refused metadata made a %s", rt.path, op)
			}
		}
	}
}

// TestMetadataMergeBound: a settle whose keys would take the order past 50
// is refused (400 at metadata) and pays nothing.
func TestMetadataMergeBound(t *testing.T) {
	h := newHarness(t)
	h.seed(t, "alice", 10000, nil)
	o := field(t, h.must(t, 201, "POST", "/users/alice/orders",
		`{"currency":"EUR","items":[{"productId":"p","quantity":1,"unitPrice":1000}],"metadata":`+metaObject(50)+`}`, key("o")).Body, "orderId").(string)
	h.must(t, 201, "POST", "/orders/"+o+"/payments", `{"amount":1000,"currency":"EUR"}`, key("c"))
	r := h.do(t, "POST", "/orders/"+o+"/settle", `{"metadata":{"one-more":"x"}}`, key("s"))
	checkMetadataProblem(t, r.StatusCode, r.Body, "metadata")
	if b := h.must(t, 200, "GET", "/users/alice/balance", "", nil).Body; !strings.Contains(b, `"balance":10000,`) {
		t.Errorf("balance after the refused settle: %s", b)
	}
	h.must(t, 200, "POST", "/orders/"+o+"/settle", `{"metadata":{"k00":"replaced"}}`, key("s2"))
	if m := metaOf(t, h.must(t, 200, "GET", "/orders/"+o, "", nil).Body); len(m) != 50 || m["k00"] != "replaced" {
		t.Errorf("order metadata after settle: %d keys, k00=%q; want 50, replaced", len(m), m["k00"])
	}
}

func checkMetadataProblem(t *testing.T, status int, body, param string) {
	t.Helper()
	var p struct{ Code, Param, Type string }
	if err := json.Unmarshal([]byte(body), &p); err != nil {
		t.Fatal(err)
	}
	if status != 400 || p.Code != "invalid_metadata" || p.Param != param {
		t.Errorf("%d code %q param %q (%s), want 400 invalid_metadata at %q", status, p.Code, p.Param, body, param)
	}
}

// metaObject is a JSON object of n metadata keys k00...
func metaObject(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf(`"k%02d":"v"`, i)
	}
	return "{" + strings.Join(parts, ",") + "}"
}
