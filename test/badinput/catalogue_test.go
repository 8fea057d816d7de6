package badinput_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/oncetable/oncetable/runtime/httpapi"
	"github.com/oncetable/oncetable/runtime/localrun"
	"github.com/oncetable/oncetable/test/authz"
)

var update = flag.Bool("update", false, "rewrite docs/bad-input-catalogue.md")

const cataloguePath = "../../docs/bad-input-catalogue.md"

// badInput is one row of the catalogue.
type badInput struct {
	group, name  string
	method, path string
	header       http.Header
	body         []byte
	shown        string // how the request is shown in the docs, when not the body itself
	status       int
	problem      string // problem type slug
	detail       string // what the problem's detail must say, when set (shown in the row)
	raw          string // the request as sent on the wire, for what net/http itself refuses
}

// hdr builds headers: "Content-Type" application/json by default plus
// name/value pairs; a pair with value "-" removes the header.
func hdr(kv ...string) http.Header {
	h := http.Header{"Content-Type": {"application/json"}}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "-" {
			h.Del(kv[i])
			continue
		}
		h[http.CanonicalHeaderKey(kv[i])] = []string{kv[i+1]}
	}
	return h
}

func key(k string) http.Header { return hdr("Idempotency-Key", k) }

func catalogue(aliceCursor, bobCursor string) []badInput {
	credit := func(group, name, body string, status int, problem string) badInput {
		return badInput{group: group, name: name, method: "POST", path: "/users/alice/credits", header: key("cat-" + name),
			body: []byte(body), status: status, problem: problem}
	}
	long := strings.Repeat("a", 129)
	tampered := []byte(aliceCursor)
	if tampered[2] == 'A' {
		tampered[2] = 'B'
	} else {
		tampered[2] = 'A'
	}
	mb := `{"amount":100,"currency":"EUR","pad":"` + strings.Repeat("x", 1<<20) + `"}`
	over := `{"amount":100,"currency":"EUR","pad":"` + strings.Repeat("x", httpapi.MaxBodyBytes) + `"}`
	return []badInput{
		withDetail(credit("amount", "negative amount", `{"amount":-100,"currency":"EUR"}`, 400, "invalid-amount"), "must be a positive integer of minor units"),
		credit("amount", "zero amount", `{"amount":0,"currency":"EUR"}`, 400, "invalid-amount"),
		credit("amount", "float amount", `{"amount":12.5,"currency":"EUR"}`, 400, "invalid-amount"),
		credit("amount", "float amount with zero fraction", `{"amount":100.0,"currency":"EUR"}`, 400, "invalid-amount"),
		credit("amount", "exponent amount", `{"amount":1e3,"currency":"EUR"}`, 400, "invalid-amount"),
		credit("amount", "amount above the maximum (10^12 + 1)", `{"amount":1000000000001,"currency":"EUR"}`, 400, "invalid-amount"),
		credit("amount", "amount beyond int64", `{"amount":99999999999999999999999,"currency":"EUR"}`, 400, "invalid-amount"),
		credit("amount", "amount as a string", `{"amount":"100","currency":"EUR"}`, 400, "invalid-amount"),
		credit("amount", "non-numeric amount", `{"amount":"ten","currency":"EUR"}`, 400, "invalid-amount"),
		credit("amount", "amount with leading zeros", `{"amount":0100,"currency":"EUR"}`, 400, "bad-request"),
		credit("amount", "null amount", `{"amount":null,"currency":"EUR"}`, 400, "invalid-amount"),
		credit("amount", "missing amount", `{"currency":"EUR"}`, 400, "invalid-amount"),
		credit("amount", "boolean amount", `{"amount":true,"currency":"EUR"}`, 400, "invalid-amount"),
		credit("currency", "unknown currency", `{"amount":100,"currency":"ABC"}`, 400, "unknown-currency"),
		credit("currency", "lower-case currency", `{"amount":100,"currency":"eur"}`, 400, "unknown-currency"),
		credit("currency", "empty currency", `{"amount":100,"currency":""}`, 400, "unknown-currency"),
		credit("currency", "missing currency", `{"amount":100}`, 400, "unknown-currency"),
		{group: "currency", name: "debit in another currency than the balance", method: "POST", path: "/users/alice/debits",
			header: key("cat-usd-debit"), body: []byte(`{"amount":100,"currency":"USD"}`), status: 422, problem: "currency-mismatch"},

		{group: "idempotency key", name: "missing Idempotency-Key", method: "POST", path: "/users/alice/credits",
			header: hdr(), body: []byte(`{"amount":100,"currency":"EUR"}`), shown: "no Idempotency-Key", status: 400, problem: "idempotency-key-missing"},
		{group: "idempotency key", name: "empty Idempotency-Key", method: "POST", path: "/users/alice/credits",
			header: key(""), body: []byte(`{"amount":100,"currency":"EUR"}`), shown: "Idempotency-Key: (empty)", status: 400, problem: "idempotency-key-missing"},
		{group: "idempotency key", name: "256-character Idempotency-Key", method: "POST", path: "/users/alice/credits",
			header: key(strings.Repeat("k", 256)), body: []byte(`{"amount":100,"currency":"EUR"}`), shown: "Idempotency-Key: k×256",
			status: 400, problem: "idempotency-key-invalid"},
		{group: "idempotency key", name: "non-ASCII Idempotency-Key", method: "POST", path: "/users/alice/credits",
			header: key("schlüssel"), body: []byte(`{"amount":100,"currency":"EUR"}`), shown: "Idempotency-Key: schlüssel",
			status: 400, problem: "idempotency-key-invalid"},
		{group: "idempotency key", name: "Idempotency-Key with a tab", method: "POST", path: "/users/alice/credits",
			header: key("a\tb"), body: []byte(`{"amount":100,"currency":"EUR"}`), shown: `Idempotency-Key: a\tb`,
			status: 400, problem: "idempotency-key-invalid"},
		{group: "idempotency key", name: "two Idempotency-Key headers", method: "POST", path: "/users/alice/credits",
			header: http.Header{"Content-Type": {"application/json"}, "Idempotency-Key": {"a", "b"}}, body: []byte(`{"amount":100,"currency":"EUR"}`),
			shown: "Idempotency-Key: a and Idempotency-Key: b", status: 400, problem: "idempotency-key-invalid", detail: "send exactly one Idempotency-Key header"},
		{group: "idempotency key", name: "replay with a different body", method: "POST", path: "/users/alice/credits",
			header: key("replay-key"), body: []byte(`{"amount":301,"currency":"EUR"}`), shown: "Idempotency-Key: replay-key (first sent with amount 300)",
			status: 422, problem: "idempotency-key-reused"},
		{group: "idempotency key", name: "replay on another route (same key, other operation)", method: "POST", path: "/users/alice/debits",
			header: key("replay-key"), body: []byte(`{"amount":999999,"currency":"EUR"}`), shown: "Idempotency-Key: replay-key (a credit key; keys are scoped per operation)",
			status: 402, problem: "insufficient-funds"},

		{group: "id", name: "user id with #", method: "POST", path: "/users/a%23b/credits", header: key("cat-id-hash"),
			body: []byte(`{"amount":100,"currency":"EUR"}`), status: 400, problem: "invalid-id"},
		{group: "id", name: "user id with / (escaped)", method: "POST", path: "/users/a%2Fb/credits", header: key("cat-id-slash"),
			body: []byte(`{"amount":100,"currency":"EUR"}`), status: 400, problem: "invalid-id"},
		{group: "id", name: "user id with a control character", method: "POST", path: "/users/a%01b/credits", header: key("cat-id-ctl"),
			body: []byte(`{"amount":100,"currency":"EUR"}`), status: 400, problem: "invalid-id"},
		{group: "id", name: "user id of 129 characters", method: "POST", path: "/users/" + long + "/credits", header: key("cat-id-long"),
			body: []byte(`{"amount":100,"currency":"EUR"}`), shown: "POST /users/a×129/credits", status: 400, problem: "invalid-id"},
		{group: "id", name: "new user id with # in the body", method: "POST", path: "/users", header: hdr(),
			body: []byte(`{"userId":"eve#PROFILE","name":"Eve","email":"eve@example.com"}`), status: 400, problem: "invalid-id"},
		{group: "id", name: "new user id with / in the body", method: "POST", path: "/users", header: hdr(),
			body: []byte(`{"userId":"eve/x","name":"Eve","email":"eve@example.com"}`), status: 400, problem: "invalid-id"},
		{group: "id", name: "new user id with a control character", method: "POST", path: "/users", header: hdr(),
			body: []byte(`{"userId":"eve\u0007","name":"Eve","email":"eve@example.com"}`), status: 400, problem: "invalid-id"},
		{group: "id", name: "new user id of 129 characters", method: "POST", path: "/users", header: hdr(),
			body: []byte(`{"userId":"` + long + `","name":"Eve","email":"eve@example.com"}`), shown: `{"userId":"a×129",...}`, status: 400, problem: "invalid-id"},
		{group: "id", name: "order id with # in the body", method: "POST", path: "/users/alice/orders", header: key("cat-order-hash"),
			body: []byte(`{"orderId":"o#1","currency":"EUR","items":[{"productId":"p1","quantity":1,"unitPrice":100}]}`), status: 400, problem: "invalid-id"},
		{group: "id", name: "order id of 129 characters in the path", method: "POST", path: "/orders/" + long + "/settle", header: key("cat-order-long"),
			shown: "POST /orders/a×129/settle", status: 400, problem: "invalid-id"},
		{group: "id", name: "new user id with a zero width space", method: "POST", path: "/users", header: hdr(),
			body: []byte(`{"userId":"ali\u200bce","name":"Eve","email":"eve@example.com"}`), status: 400, problem: "invalid-id", detail: "invisible characters (U+200B)"},
		{group: "id", name: "user id with a right-to-left override in the path", method: "GET", path: "/users/alice%E2%80%AE/balance",
			status: 400, problem: "invalid-id", detail: "bidirectional control characters (U+202E)"},
		{group: "id", name: "user id with an unassigned code point", method: "POST", path: "/users", header: hdr(),
			body: []byte(`{"userId":"alice\u0378","name":"Eve","email":"eve@example.com"}`), status: 400, problem: "invalid-id", detail: "unassigned or private-use characters (U+0378)"},
		{group: "id", name: "order line naming a lookalike of a catalogue product (Cyrillic у) at its own price", method: "POST", path: "/users/alice/orders", header: key("cat-spoof-cyrillic"),
			body: []byte(`{"currency":"EUR","items":[{"productId":"m\u0443g","quantity":1,"unitPrice":1}]}`), status: 400, problem: "invalid-id", detail: "must be ASCII letters"},
		{group: "id", name: "order line naming the catalogue product with a zero width space", method: "POST", path: "/users/alice/orders", header: key("cat-spoof-zwsp"),
			body: []byte(`{"currency":"EUR","items":[{"productId":"mug\u200b","quantity":1,"unitPrice":1}]}`), status: 400, problem: "invalid-id", detail: "invisible characters (U+200B)"},
		{group: "id", name: "customer choosing an order id (another user's: the answer is that of a free id)", method: "POST", path: "/users/alice/orders",
			header: hdr("Idempotency-Key", "cat-oracle", localrun.CallerHeader, "alice", localrun.ScopesHeader, "payments/customer"),
			body:   []byte(`{"orderId":"o-big","currency":"EUR","items":[{"productId":"p1","quantity":1,"unitPrice":100}]}`),
			shown:  `as alice, X-Local-Scopes: payments/customer {"orderId":"o-big",...}`, status: 400, problem: "invalid-id", detail: "leave \"orderId\" out"},
		{group: "id", name: "product id with # in an order item", method: "POST", path: "/users/alice/orders", header: key("cat-product-hash"),
			body: []byte(`{"currency":"EUR","items":[{"productId":"p#1","quantity":1,"unitPrice":100}]}`), status: 400, problem: "invalid-id"},

		credit("JSON", "not JSON", `amount=100&currency=EUR`, 400, "bad-request"),
		credit("JSON", "truncated JSON", `{"amount":100,"curr`, 400, "bad-request"),
		credit("JSON", "duplicate keys", `{"amount":1,"amount":100000,"currency":"EUR"}`, 400, "bad-request"),
		credit("JSON", "duplicate keys differing only in case", `{"amount":1,"Amount":100000,"currency":"EUR"}`, 400, "bad-request"),
		credit("JSON", "unknown field", `{"amount":100,"currency":"EUR","note":"hi"}`, 400, "bad-request"),
		credit("JSON", "JSON array instead of an object", `[{"amount":100,"currency":"EUR"}]`, 400, "bad-request"),
		credit("JSON", "trailing data after the object", `{"amount":100,"currency":"EUR"}{}`, 400, "bad-request"),
		credit("JSON", "empty body", ``, 400, "bad-request"),
		credit("JSON", "invalid UTF-8", "{\"amount\":100,\"currency\":\"EUR\xff\"}", 400, "unknown-currency"),
		{group: "JSON", name: "order item quantity 0", method: "POST", path: "/users/alice/orders", header: key("cat-qty0"),
			body: []byte(`{"currency":"EUR","items":[{"productId":"p1","quantity":0,"unitPrice":100}]}`), status: 400, problem: "invalid-order"},
		{group: "JSON", name: "order without items", method: "POST", path: "/users/alice/orders", header: key("cat-noitems"),
			body: []byte(`{"currency":"EUR","items":[]}`), status: 400, problem: "invalid-order"},
		{group: "JSON", name: "order item with a negative unit price", method: "POST", path: "/users/alice/orders", header: key("cat-negprice"),
			body: []byte(`{"currency":"EUR","items":[{"productId":"p1","quantity":1,"unitPrice":-5}]}`), status: 400, problem: "invalid-amount"},
		{group: "JSON", name: "user with a malformed email", method: "POST", path: "/users", header: hdr(),
			body: []byte(`{"userId":"eve","name":"Eve","email":"Eve <eve@example.com>"}`), status: 400, problem: "bad-request"},

		{group: "body size", name: "1 MB body", method: "POST", path: "/users/alice/credits", header: key("cat-1mb"),
			body: []byte(mb), shown: `{"amount":100,"currency":"EUR","pad":"x×1048576"}`, status: 413, problem: "body-too-large"},
		{group: "body size", name: "64 KB + 40 bytes body", method: "POST", path: "/users/alice/credits", header: key("cat-64k"),
			body: []byte(over), shown: `{"amount":100,"currency":"EUR","pad":"x×65536"}`, status: 413, problem: "body-too-large"},
		{group: "body size", name: "10 MB declared with Expect: 100-continue (answered before the body is sent)", method: "POST", path: "/users/alice/credits",
			raw:   "POST /users/alice/credits HTTP/1.1\r\nHost: api.local\r\nContent-Type: application/json\r\nIdempotency-Key: cat-10mb\r\nExpect: 100-continue\r\nContent-Length: 10485760\r\n\r\n",
			shown: "Expect: 100-continue, Content-Length: 10485760, no body sent", status: 413, problem: "body-too-large", detail: "Content-Length 10485760"},
		{group: "body size", name: "10 MB declared without Expect (answered before the body is read)", method: "POST", path: "/users/alice/credits",
			raw:   "POST /users/alice/credits HTTP/1.1\r\nHost: api.local\r\nContent-Type: application/json\r\nIdempotency-Key: cat-10mb-noexpect\r\nContent-Length: 10485760\r\n\r\n",
			shown: "Content-Length: 10485760, no body sent", status: 413, problem: "body-too-large", detail: "Content-Length 10485760"},

		{group: "Content-Type", name: "text/plain", method: "POST", path: "/users/alice/credits",
			header: hdr("Content-Type", "text/plain", "Idempotency-Key", "cat-ct-text"), body: []byte(`{"amount":100,"currency":"EUR"}`),
			shown: "Content-Type: text/plain", status: 415, problem: "unsupported-media-type"},
		{group: "Content-Type", name: "missing Content-Type", method: "POST", path: "/users/alice/credits",
			header: hdr("Content-Type", "-", "Idempotency-Key", "cat-ct-none"), body: []byte(`{"amount":100,"currency":"EUR"}`),
			shown: "no Content-Type", status: 415, problem: "unsupported-media-type"},
		{group: "Content-Type", name: "application/x-www-form-urlencoded", method: "POST", path: "/users",
			header: hdr("Content-Type", "application/x-www-form-urlencoded"), body: []byte(`userId=eve&name=Eve`),
			shown: "Content-Type: application/x-www-form-urlencoded", status: 415, problem: "unsupported-media-type"},

		{group: "cursor", name: "tampered cursor", method: "GET", path: "/users/alice/ledger?limit=1&cursor=" + string(tampered),
			shown: "GET /users/alice/ledger?cursor=<alice's cursor with one character changed>", status: 400, problem: "invalid-cursor"},
		{group: "cursor", name: "foreign cursor (another user's ledger)", method: "GET", path: "/users/alice/ledger?limit=1&cursor=" + bobCursor,
			shown: "GET /users/alice/ledger?cursor=<a cursor of bob's ledger>", status: 400, problem: "invalid-cursor"},
		{group: "cursor", name: "cursor of another query (ledger cursor on the orders list)", method: "GET", path: "/users/alice/orders?limit=1&cursor=" + aliceCursor,
			shown: "GET /users/alice/orders?cursor=<a cursor of alice's ledger>", status: 400, problem: "invalid-cursor"},
		{group: "cursor", name: "cursor signed with the API's secret, outside its query (ledger cursor at alice's profile)", method: "GET",
			path:  "/users/alice/ledger?cursor=" + forge("ledger", map[string]string{"PK": "USER#alice", "SK": "PROFILE"}),
			shown: "GET /users/alice/ledger?cursor=<signed {PK: USER#alice, SK: PROFILE}>", status: 400, problem: "invalid-cursor"},
		{group: "cursor", name: "cursor signed with the API's secret, with a key attribute missing", method: "GET",
			path:  "/users/alice/orders?cursor=" + forge("userOrders", map[string]string{"PK": "USER#alice"}),
			shown: "GET /users/alice/orders?cursor=<signed {PK: USER#alice}>", status: 400, problem: "invalid-cursor"},
		{group: "cursor", name: "garbage cursor", method: "GET", path: "/users/alice/ledger?cursor=not-a-cursor", status: 400, problem: "invalid-cursor"},
		{group: "cursor", name: "limit 0", method: "GET", path: "/users/alice/ledger?limit=0", status: 400, problem: "bad-request"},
		{group: "cursor", name: "non-numeric limit", method: "GET", path: "/users/alice/ledger?limit=ten", status: 400, problem: "bad-request"},

		{group: "settle", name: "settle of an unknown order", method: "POST", path: "/orders/o-nope/settle", header: key("cat-settle-unknown"),
			status: 404, problem: "not-found"},
		{group: "settle", name: "settle with a different amount", method: "POST", path: "/orders/o-open/settle", header: key("cat-settle-amount"),
			body: []byte(`{"amount":2499,"currency":"EUR"}`), status: 422, problem: "amount-mismatch"},
		{group: "business rule", name: "settle of an order already paid", method: "POST", path: "/orders/o-paid/settle", header: key("cat-settle-paid"),
			status: 409, problem: "already-paid"},
		{group: "business rule", name: "settle of an order not charged yet", method: "POST", path: "/orders/o-open/settle", header: key("cat-settle-uncharged"),
			status: 409, problem: "not-charged", detail: "charge its total"},
		{group: "business rule", name: "settle beyond the balance", method: "POST", path: "/orders/o-big/settle", header: key("cat-settle-funds"),
			status: 402, problem: "insufficient-funds"},
		{group: "fulfilment", name: "ship without an Idempotency-Key", method: "POST", path: "/orders/o-paid/ship",
			status: 400, problem: "idempotency-key-missing"},
		{group: "fulfilment", name: "ship with a body", method: "POST", path: "/orders/o-paid/ship", header: key("cat-ship-body"),
			body: []byte(`{"carrier":"x"}`), status: 400, problem: "bad-request"},
		{group: "fulfilment", name: "ship of an unknown order", method: "POST", path: "/orders/o-nope/ship", header: key("cat-ship-unknown"),
			status: 404, problem: "not-found"},
		{group: "fulfilment", name: "ship of an order not paid yet", method: "POST", path: "/orders/o-open/ship", header: key("cat-ship-unpaid"),
			status: 409, problem: "invalid-transition", detail: "only an order that is paid or partially_refunded becomes shipped"},
		{group: "fulfilment", name: "deliver of an order not shipped (a skipped step)", method: "POST", path: "/orders/o-paid/deliver", header: key("cat-deliver-paid"),
			status: 409, problem: "invalid-transition", detail: "only an order that is shipped becomes delivered"},
		{group: "business rule", name: "charge with a different amount", method: "POST", path: "/orders/o-open/payments", header: key("cat-charge-amount"),
			body: []byte(`{"amount":1,"currency":"EUR"}`), status: 422, problem: "amount-mismatch"},
		{group: "business rule", name: "charge in another currency than the order's", method: "POST", path: "/orders/o-open/payments", header: key("cat-charge-usd"),
			body: []byte(`{"amount":2500,"currency":"USD"}`), status: 422, problem: "currency-mismatch", detail: "is in EUR, the request in USD"},
		{group: "business rule", name: "order in another currency than the balance", method: "POST", path: "/users/alice/orders", header: key("cat-order-usd"),
			body: []byte(`{"currency":"USD","items":[{"productId":"p1","quantity":1,"unitPrice":100}]}`), status: 422, problem: "currency-mismatch", detail: "is in EUR, the order in USD"},
		{group: "business rule", name: "debit beyond the balance", method: "POST", path: "/users/bob/debits", header: key("cat-debit-funds"),
			body: []byte(`{"amount":571,"currency":"EUR"}`), status: 402, problem: "insufficient-funds"},
		{group: "business rule", name: "debit of an unknown user", method: "POST", path: "/users/nobody/debits", header: key("cat-debit-nobody"),
			body: []byte(`{"amount":1,"currency":"EUR"}`), status: 404, problem: "not-found"},
		{group: "business rule", name: "credit of an unknown user", method: "POST", path: "/users/nobody/credits", header: key("cat-credit-nobody"),
			body: []byte(`{"amount":1,"currency":"EUR"}`), status: 404, problem: "not-found"},
		{group: "transfer", name: "transfer to oneself", method: "POST", path: "/users/bob/transfers", header: key("cat-transfer-self"),
			body: []byte(`{"toUserId":"bob","amount":1,"currency":"EUR"}`), status: 400, problem: "invalid-transfer", detail: "names the sender"},
		{group: "transfer", name: "transfer without a recipient", method: "POST", path: "/users/bob/transfers", header: key("cat-transfer-noone"),
			body: []byte(`{"amount":1,"currency":"EUR"}`), status: 400, problem: "invalid-id", detail: "\"toUserId\" is required"},
		{group: "transfer", name: "transfer to an unknown user", method: "POST", path: "/users/bob/transfers", header: key("cat-transfer-nobody"),
			body: []byte(`{"toUserId":"nobody","amount":1,"currency":"EUR"}`), status: 404, problem: "not-found", detail: "recipient \"nobody\""},
		{group: "transfer", name: "transfer beyond the balance", method: "POST", path: "/users/bob/transfers", header: key("cat-transfer-funds"),
			body: []byte(`{"toUserId":"alice","amount":571,"currency":"EUR"}`), status: 402, problem: "insufficient-funds"},
		{group: "hold", name: "hold expiring in 0 seconds", method: "POST", path: "/users/bob/holds", header: key("cat-hold-zero"),
			body: []byte(`{"amount":1,"currency":"EUR","expiresInSeconds":0}`), status: 400, problem: "invalid-hold"},
		{group: "hold", name: "hold expiry as a string", method: "POST", path: "/users/bob/holds", header: key("cat-hold-string"),
			body: []byte(`{"amount":1,"currency":"EUR","expiresInSeconds":"3600"}`), status: 400, problem: "invalid-hold"},
		{group: "hold", name: "hold beyond the balance", method: "POST", path: "/users/bob/holds", header: key("cat-hold-funds"),
			body: []byte(`{"amount":571,"currency":"EUR"}`), status: 402, problem: "insufficient-funds"},
		{group: "hold", name: "capture of an unknown hold", method: "POST", path: "/users/bob/holds/hold_nope/capture", header: key("cat-capture-nope"),
			body: []byte(`{"amount":1,"currency":"EUR"}`), status: 404, problem: "not-found"},
		{group: "hold", name: "void with a body", method: "POST", path: "/users/bob/holds/hold_nope/void", header: key("cat-void-body"),
			body: []byte(`{"reason":"x"}`), status: 400, problem: "bad-request"},
		{group: "business rule", name: "order line below the catalogue price", method: "POST", path: "/users/alice/orders", header: key("cat-price"),
			body:   []byte(`{"currency":"EUR","items":[{"productId":"p1","quantity":1,"unitPrice":100},{"productId":"mug","quantity":1,"unitPrice":1}]}`),
			status: 422, problem: "price-mismatch", detail: "items[1] (product \"mug\") has unit price 0.01 EUR, the catalogue 12.50 EUR"},
		{group: "business rule", name: "ledger of an unknown user", method: "GET", path: "/users/nobody/ledger", status: 404, problem: "not-found"},
		{group: "business rule", name: "orders of an unknown user", method: "GET", path: "/users/nobody/orders", status: 404, problem: "not-found"},
		{group: "id", name: "new user without an id (a retry would create a second user)", method: "POST", path: "/users", header: hdr(),
			body: []byte(`{"name":"Eve","email":"eve@example.com"}`), status: 400, problem: "invalid-id", detail: "\"userId\" is required"},
		{group: "id", name: "new product without an id", method: "POST", path: "/products", header: hdr(),
			body: []byte(`{"name":"Mug","price":1250,"currency":"EUR"}`), status: 400, problem: "invalid-id", detail: "\"productId\" is required"},
		{group: "id", name: "new address without an id", method: "POST", path: "/users/alice/addresses", header: hdr(),
			body: []byte(`{"line1":"1 Main St","city":"Berlin","postalCode":"10115","country":"DE"}`), status: 400, problem: "invalid-id", detail: "\"addressId\" is required"},
		{group: "JSON", name: "address country that is not an ISO 3166-1 code", method: "POST", path: "/users/alice/addresses", header: hdr(),
			body: []byte(`{"addressId":"home","line1":"1 Main St","city":"Berlin","postalCode":"10115","country":"D1"}`), status: 400, problem: "bad-request", detail: "not an ISO 3166-1 alpha-2 country code"},
		{group: "JSON", name: "address country reserved but not assigned (UK for GB)", method: "POST", path: "/users/alice/addresses", header: hdr(),
			body: []byte(`{"addressId":"home","line1":"1 Main St","city":"London","postalCode":"SW1A 1AA","country":"UK"}`), status: 400, problem: "bad-request", detail: "not an ISO 3166-1 alpha-2 country code"},
		{group: "business rule", name: "user that exists already", method: "POST", path: "/users", header: hdr(),
			body: []byte(`{"userId":"alice","name":"Alice 2","email":"alice2@example.com"}`), status: 409, problem: "already-exists"},

		withShown(withDetail(credit("metadata", "metadata with 51 keys", `{"amount":100,"currency":"EUR","metadata":`+metaKeys(51)+`}`, 400, "invalid-metadata"),
			"metadata has more than 50 keys"), `{"amount":100,"currency":"EUR","metadata":{"k00":"v",...,"k50":"v"}}`),
		withShown(withDetail(credit("metadata", "metadata key of 41 characters", `{"amount":100,"currency":"EUR","metadata":{"`+strings.Repeat("k", 41)+`":"v"}}`, 400, "invalid-metadata"),
			"the key is 41 characters, at most 40"), `{"amount":100,"currency":"EUR","metadata":{"k×41":"v"}}`),
		withShown(withDetail(credit("metadata", "metadata value of 501 characters", `{"amount":100,"currency":"EUR","metadata":{"k":"`+strings.Repeat("v", 501)+`"}}`, 400, "invalid-metadata"),
			"the value is 501 characters, at most 500"), `{"amount":100,"currency":"EUR","metadata":{"k":"v×501"}}`),
		withDetail(credit("metadata", "empty metadata key", `{"amount":100,"currency":"EUR","metadata":{"":"v"}}`, 400, "invalid-metadata"), "a key must not be empty"),
		withDetail(credit("metadata", "metadata key with [ ]", `{"amount":100,"currency":"EUR","metadata":{"items[0]":"v"}}`, 400, "invalid-metadata"), "must not contain '[', ']'"),
		withDetail(credit("metadata", "metadata value that is a number", `{"amount":100,"currency":"EUR","metadata":{"k":1}}`, 400, "invalid-metadata"), "metadata[k]: the value must be a JSON string"),
		withDetail(credit("metadata", "metadata value that is an object", `{"amount":100,"currency":"EUR","metadata":{"k":{"a":"b"}}}`, 400, "invalid-metadata"), "got an object"),
		withDetail(credit("metadata", "metadata that is an array", `{"amount":100,"currency":"EUR","metadata":["k"]}`, 400, "invalid-metadata"), "metadata must be a JSON object"),
		withDetail(credit("metadata", "metadata key named twice", `{"amount":100,"currency":"EUR","metadata":{"k":"1","k":"2"}}`, 400, "invalid-metadata"), "the key is named twice"),
		{group: "metadata", name: "new user with a metadata value that is a number", method: "POST", path: "/users", header: hdr(),
			body: []byte(`{"userId":"eve","name":"Eve","email":"eve@example.com","metadata":{"k":1}}`), status: 400, problem: "invalid-metadata"},
		{group: "metadata", name: "order with a metadata key of 41 characters", method: "POST", path: "/users/alice/orders", header: key("cat-meta-order"),
			body:  []byte(`{"currency":"EUR","items":[{"productId":"p1","quantity":1,"unitPrice":100}],"metadata":{"` + strings.Repeat("k", 41) + `":"v"}}`),
			shown: `{"currency":"EUR","items":[...],"metadata":{"k×41":"v"}}`, status: 400, problem: "invalid-metadata"},
		{group: "metadata", name: "charge with metadata that is a string", method: "POST", path: "/orders/o-open/payments", header: key("cat-meta-charge"),
			body: []byte(`{"amount":2500,"currency":"EUR","metadata":"k"}`), status: 400, problem: "invalid-metadata"},
		{group: "metadata", name: "settle with a metadata value that is a number", method: "POST", path: "/orders/o-open/settle", header: key("cat-meta-settle"),
			body: []byte(`{"metadata":{"k":1}}`), status: 400, problem: "invalid-metadata"},
		{group: "metadata", name: "refund with a metadata value that is null", method: "POST", path: "/orders/o-paid/refunds", header: key("cat-meta-refund"),
			body: []byte(`{"metadata":{"k":null}}`), status: 400, problem: "invalid-metadata"},
		{group: "metadata", name: "transfer with an empty metadata key", method: "POST", path: "/users/bob/transfers", header: key("cat-meta-transfer"),
			body: []byte(`{"toUserId":"alice","amount":1,"currency":"EUR","metadata":{"":"v"}}`), status: 400, problem: "invalid-metadata"},
		{group: "metadata", name: "hold with a metadata value of 501 characters", method: "POST", path: "/users/alice/holds", header: key("cat-meta-hold"),
			body:  []byte(`{"amount":1,"currency":"EUR","metadata":{"k":"` + strings.Repeat("v", 501) + `"}}`),
			shown: `{"amount":1,"currency":"EUR","metadata":{"k":"v×501"}}`, status: 400, problem: "invalid-metadata"},
		{group: "metadata", name: "capture with metadata that is an array", method: "POST", path: "/users/alice/holds/hold-none/capture", header: key("cat-meta-capture"),
			body: []byte(`{"amount":1,"currency":"EUR","metadata":[]}`), status: 400, problem: "invalid-metadata"},
		{group: "metadata", name: "void with a metadata key with [ ]", method: "POST", path: "/users/alice/holds/hold-none/void", header: key("cat-meta-void"),
			body: []byte(`{"metadata":{"a]":"v"}}`), status: 400, problem: "invalid-metadata"},

		{group: "route", name: "unknown route", method: "POST", path: "/users/alice/gifts", header: key("cat-route"),
			body: []byte(`{"amount":100,"currency":"EUR"}`), status: 404, problem: "route-not-found"},
		{group: "route", name: "wrong method", method: "DELETE", path: "/users/alice/credits", header: key("cat-method"), status: 405, problem: "method-not-allowed"},
		{group: "route", name: "malformed percent-escape in the path (refused by net/http itself)", method: "GET", path: "/users/%ZZ",
			raw: "GET /users/%ZZ HTTP/1.1\r\nHost: api.local\r\n\r\n", status: 400, problem: "bad-request", detail: "malformed request line"},
		{group: "route", name: "orders by an unknown status", method: "GET", path: "/orders?status=returned", status: 400, problem: "bad-request"},
	}
}

// authorization is test/authz's catalogue on this table: bob as the wrong
// customer on alice's data and her order o-open, a customer or a service on
// a route its role lacks, and tokens without a recognised scope.
func authorization() []badInput {
	attempts, _ := authz.Attempts(authz.Fixture{Victim: "alice", Attacker: "bob", Order: "o-open", Total: 2500, Currency: "EUR", CursorSecret: cursorSecret})
	out := make([]badInput, len(attempts))
	for i, a := range attempts {
		h := hdr(localrun.CallerHeader, a.Caller, localrun.ScopesHeader, a.Scopes)
		if a.Key != "" {
			h.Set("Idempotency-Key", a.Key)
		}
		shown := a.Method + " " + a.Path + " as " + a.Caller + ", X-Local-Scopes: " + a.Scopes
		out[i] = badInput{group: "authorization", name: a.Group + " (" + a.Route + ")", method: a.Method, path: a.Path, header: h,
			body: []byte(a.Body), shown: shown, status: a.Status, problem: a.Problem}
	}
	return out
}

// TestCatalogue sends every bad input, asserts its status and problem type
// and that the table is unchanged, and renders the catalogue.
func TestCatalogue(t *testing.T) {
	e := newEnv(t)
	cases := append(catalogue(e.nextCursor(t, "alice"), e.nextCursor(t, "bob")), authorization()...)
	before := e.snapshot(t)
	var doc bytes.Buffer
	doc.WriteString(header)
	fmt.Fprintf(&doc, "| # | group | bad input | request | status | problem type |\n|---:|---|---|---|---:|---|\n")
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var r response
			if c.raw != "" {
				r = e.wire(c.raw)
			} else {
				r = e.do(c.method, c.path, c.header, c.body)
			}
			typ := strings.TrimPrefix(r.typ, httpapi.ProblemTypeBase)
			if r.status != c.status || typ != c.problem || !strings.Contains(problemDetail(r.body), c.detail) {
				t.Errorf("%s %s: got %d %q, want %d %q (detail %q); body %s", c.method, c.path, r.status, typ, c.status, c.problem, c.detail, truncate(r.body, 400))
			}
			declined := storedProblem(c.problem)
			if after := e.snapshot(t); after != before {
				if !declined || !onlyRecord(before, after, r.status) {
					t.Errorf("%s %s (%d) wrote to the table:\nbefore: %s\nafter:  %s", c.method, c.path, r.status, before, after)
				}
				before = after
			} else if declined && c.header.Get("Idempotency-Key") != "" {
				t.Errorf("%s %s (%d): a declined money flow stored no answer under its key", c.method, c.path, r.status)
			}
			name := c.name
			if c.detail != "" {
				name += " (says “" + c.detail + "”)"
			}
			if declined {
				name += " — declined: the answer is stored under the key"
			}
			fmt.Fprintf(&doc, "| %d | %s | %s | %s | %d | `%s` |\n", i+1, c.group, name, cellFor(c), r.status, r.typ)
		})
	}
	fmt.Fprintf(&doc, "\n%d bad inputs; for every one the test asserted that the table was unchanged, but for a declined money flow's one idempotency record holding its answer.\n", len(cases))

	if *update {
		if err := os.WriteFile(cataloguePath, doc.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(cataloguePath)
	if err != nil {
		t.Fatalf("read %s: %v (generate it with: go test ./test/badinput -run TestCatalogue -update)", cataloguePath, err)
	}
	if !bytes.Equal(want, doc.Bytes()) {
		t.Errorf("%s differs from what the API answers now; regenerate it with: go test ./test/badinput -run TestCatalogue -update\ngot:\n%s", cataloguePath, doc.String())
	}
}

// storedProblem reports whether a money flow declined with the problem
// slug stores its answer under the key.
func storedProblem(slug string) bool {
	for _, pt := range httpapi.ProblemTypes() {
		if pt.Type == httpapi.ProblemTypeBase+slug {
			return pt.Stored
		}
	}
	return false
}

// onlyRecord reports whether after is before plus one idempotency record
// that stores an answer of status.
func onlyRecord(before, after string, status int) bool {
	had := map[string]bool{}
	for _, l := range strings.Split(before, "\n")[1:] {
		had[l] = true
	}
	var added []string
	for _, l := range strings.Split(after, "\n")[1:] {
		if !had[l] {
			added = append(added, l)
		}
		delete(had, l)
	}
	return len(had) == 0 && len(added) == 1 && strings.Contains(added[0], `"EntityType":"Idempotency"`) &&
		strings.Contains(added[0], fmt.Sprintf(`"responseStatus":%d`, status))
}

const header = `# Bad input catalogue

Use this page to see how the API answers every kind of bad input and every refused caller, and that none of them writes anything.

Generated by ` + "`go test ./test/badinput -run TestCatalogue -update`" + ` (test/badinput/catalogue_test.go); the same
test, run without -update as part of ` + "`make test`" + `, fails when this file and the API disagree. Each request goes
through the local runner's code path (net/http -> API Gateway v2 event -> runtime/httpapi) on the embedded
engine, against a table holding users alice (balance 10300 EUR) and bob (570 EUR), the product mug (12.50 EUR), an open order o-open
(2500 EUR), a paid order o-paid and bob's charged order o-big (90000 EUR). After each request the whole table is read
and compared with the state before it: **no bad input wrote anything**, but a money flow that started and was declined
(insufficient funds, already paid, a mismatch) stores its answer as one idempotency record under its key, so that a retry
is refused the same way (docs/runtime.md, "Idempotency semantics"); a request refused before it started stores nothing. Problem types are
` + "`urn:oncetable:problem:<slug>`" + `; every error body is application/problem+json (RFC 9457).
Requests are POST with ` + "`Content-Type: application/json`" + ` and an Idempotency-Key unless the row says otherwise.
The authorization rows are test/authz's catalogue (X-Local-Caller and X-Local-Scopes as the local runner reads them; the
same attempts pass through the API Gateway v2 handler in that package's test): a customer naming another user's data
is answered 404 exactly as if it did not exist, a role the route does not admit 403.

Fuzz targets cover the same ground with generated input. Their seed corpora (testdata/fuzz) run with every
` + "`go test`" + `; ` + "`go test -run XXX -fuzz <Target> -fuzzminimizetime 50x <package>`" + ` explores further.

| target | package | property |
|---|---|---|
| FuzzRequest | test/badinput | any method, path and query, Content-Type, Idempotency-Key and body through the local runner's handler: no panic, no 5xx, and a refused request leaves the whole table unchanged |
| FuzzParseJSON | runtime/money | no panic; an accepted amount is exactly a plain integer literal in 1..10^12 with a known currency; a refusal wraps a money sentinel |
| FuzzValidateKey | runtime/idempotency/idemhttp | an accepted Idempotency-Key is exactly 1..255 printable ASCII bytes (the header's rule; the core library takes any non-empty key) |
| FuzzDecode | runtime/cursor | only a cursor the codec issued for this query verifies; round trip; a cursor of another query is refused |

`

// problemDetail is the detail member of a problem+json body.
func problemDetail(body string) string {
	var p struct{ Detail string }
	json.Unmarshal([]byte(body), &p)
	return p.Detail
}

func withShown(c badInput, shown string) badInput {
	c.shown = shown
	return c
}

// metaKeys is a metadata object of n keys k00...
func metaKeys(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf(`"k%02d":"v"`, i)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func withDetail(c badInput, detail string) badInput {
	c.detail = detail
	return c
}

func cellFor(c badInput) string {
	s := c.method + " " + c.path
	if strings.HasPrefix(c.shown, c.method+" ") {
		s = c.shown
	} else if c.shown != "" {
		s += " — " + c.shown
	} else if len(c.body) > 0 {
		s += " " + string(c.body)
	}
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == 0xfffd {
			return '·'
		}
		return r
	}, s)
	return "`" + strings.ReplaceAll(s, "`", "'") + "`"
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
