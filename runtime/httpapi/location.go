package httpapi

import (
	"encoding/json"
	"net/url"
	"strings"
)

// locations names, by route, the resource a 201 of the route created, as a
// path template filled from the route's parameters and the top-level
// string members of the answer's body. Every 201 of such a route carries
// Location (RFC 9110 section 10.2.2) under the current version, replays
// included. A route that creates something readable adds its entry here.
var locations = map[string]string{
	RouteCreateUser:    "/users/{userId}",
	RouteCredit:        "/users/{userId}/ledger/{entryId}",
	RouteDebit:         "/users/{userId}/ledger/{entryId}",
	RouteTransfer:      "/users/{userId}/ledger/{entryId}", // the sender's entry
	RouteAuthorizeHold: "/users/{userId}/holds/{holdId}",
	RouteAddAddress:    "/users/{userId}", // an address is read with its user
	RouteCreateOrder:   "/orders/{orderId}",
	RouteCharge:        "/orders/{orderId}/payments/{paymentId}",
	RouteCreateProduct: "/products/{productId}",
	RouteRefund:        "/orders/{orderId}/refunds/{refundId}",
}

// location is the Location of a 201 of route name with body, or "" when
// the route names none or a value is missing.
func location(name string, params map[string]string, body string) string {
	tmpl, ok := locations[name]
	if !ok {
		return ""
	}
	var members map[string]json.RawMessage
	_ = json.Unmarshal([]byte(body), &members)
	segs := strings.Split(strings.Trim(tmpl, "/"), "/")
	for i, s := range segs {
		name, ok := strings.CutPrefix(s, "{")
		if !ok {
			continue
		}
		name = strings.TrimSuffix(name, "}")
		v := params[name]
		var fromBody string
		if json.Unmarshal(members[name], &fromBody) == nil && fromBody != "" {
			v = fromBody
		}
		if v == "" {
			return ""
		}
		segs[i] = url.PathEscape(v)
	}
	return versionPath(strings.Join(segs, "/"))
}
