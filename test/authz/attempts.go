package authz

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/cursor"
	"github.com/oncetable/oncetable/runtime/httpapi"
)

// Fixture names the data the attempts aim at.
type Fixture struct {
	// Victim is a user with a balance in Currency; Attacker another user,
	// the wrong customer.
	Victim, Attacker string
	// Order is an unpaid order of Victim's of Total minor units.
	Order    string
	Total    int64
	Currency string
	// Auth gives the scopes. Default: httpapi.Auth's defaults.
	Auth httpapi.Auth
	// CursorSecret is the API's cursor secret, which an attacker who
	// learnt or derived it signs cursors with; "" leaves those attempts
	// out.
	CursorSecret string
}

// Request is one call of a route with a valid body.
type Request struct {
	Method, Path string // Path with the query, such as "/orders?status=created"
	Body         string
	Key          string // Idempotency-Key, "" when the route takes none
}

// Example is a valid call of the route on the fixture's data: only its
// caller may make it fail. ok is false for a route without an example.
func Example(f Fixture, r httpapi.RouteSpec) (req Request, ok bool) {
	path := strings.NewReplacer("{userId}", f.Victim, "{orderId}", f.Order, "{paymentId}", "pay-authz", "{productId}", "authz-mug", "{holdId}", "hold_authz", "{entryId}", "cr_authz", "{refundId}", "rf_authz").Replace(r.Path)
	amount := fmt.Sprintf(`{"amount":%d,"currency":%q}`, 100, f.Currency)
	body := map[string]string{
		httpapi.RouteCreateUser:    `{"userId":"authz-new","name":"New","email":"new@example.com"}`,
		httpapi.RouteAddAddress:    `{"addressId":"authz-home","line1":"1 Main St","city":"Berlin","postalCode":"10115","country":"DE"}`,
		httpapi.RouteCredit:        amount,
		httpapi.RouteDebit:         amount,
		httpapi.RouteCreateOrder:   fmt.Sprintf(`{"currency":%q,"items":[{"productId":"p1","quantity":1,"unitPrice":100}]}`, f.Currency),
		httpapi.RouteCharge:        fmt.Sprintf(`{"amount":%d,"currency":%q}`, f.Total, f.Currency),
		httpapi.RouteCreateProduct: fmt.Sprintf(`{"productId":"authz-mug","name":"Mug","price":1250,"currency":%q}`, f.Currency),
		httpapi.RouteTransfer:      fmt.Sprintf(`{"toUserId":%q,"amount":100,"currency":%q}`, f.Attacker, f.Currency),
		httpapi.RouteAuthorizeHold: amount,
		httpapi.RouteCaptureHold:   amount,
		httpapi.RouteRefund:        amount,
	}
	query := map[string]string{httpapi.RouteListOrders: "?status=created", httpapi.RouteListProducts: "?featured=true"}
	known := map[string]bool{httpapi.RouteGetUser: true, httpapi.RouteBalance: true, httpapi.RouteLedger: true,
		httpapi.RouteUserOrders: true, httpapi.RouteGetOrder: true, httpapi.RouteSettle: true, httpapi.RouteUnprocessed: true,
		httpapi.RouteProcessPayment: true, httpapi.RouteGetProduct: true, httpapi.RouteGetPayment: true, httpapi.RouteGetHold: true, httpapi.RouteVoidHold: true,
		httpapi.RouteLedgerEntry: true, httpapi.RouteListRefunds: true, httpapi.RouteGetRefund: true,
		httpapi.RouteCancelOrder: true, httpapi.RouteShipOrder: true, httpapi.RouteDeliverOrder: true}
	_, hasBody := body[r.Name]
	_, hasQuery := query[r.Name]
	if !hasBody && !hasQuery && !known[r.Name] {
		return Request{}, false
	}
	req = Request{Method: r.Method, Path: path + query[r.Name], Body: body[r.Name]}
	if r.Flow != "" {
		req.Key = "authz-" + r.Name
	}
	return req, true
}

// Attempt is one call that must be refused.
type Attempt struct {
	Group  string // one of the Group* constants
	Route  string // httpapi.Route*
	Caller string // the token's subject (the local X-Local-Caller)
	Scopes string // the token's scope claim (the local X-Local-Scopes)
	Request
	Status  int    // 403 or 404; 400 for the attempts that name the attacker's own data
	Problem string // problem type slug
}

// Groups of attempts.
const (
	GroupWrongCustomer = "wrong customer"
	GroupCustomerRole  = "customer on a route for other roles"
	GroupServiceRole   = "service on a back-office route"
	GroupNoScope       = "no recognised scope"
	// GroupOrderOracle: a customer creating an order in its own account
	// under the id of another user's order, to learn whether it exists
	// (or to take it): refused as any customer-chosen order id is.
	GroupOrderOracle = "customer naming an order id on create"
	// GroupForgedCursor: a customer paging its own list with a cursor
	// signed with the API's secret that points into the victim's data.
	GroupForgedCursor = "customer with a signed cursor into another user's data"
)

// NoScope is the scope claim of a token that grants no role.
const NoScope = "openid profile"

// Attempts lists, for every route in table order: the Attacker as a
// customer on the Victim's user or order (404 not-found, as if it did not
// exist), the Victim as a customer on a route customers may not call (403),
// a service on a route only operators may call (403), and the Victim with
// a token of no recognised scope (403). A route without an Example is
// returned in missing.
func Attempts(f Fixture) (out []Attempt, missing []string) {
	customer, service := f.Auth.Scope(httpapi.RoleCustomer), f.Auth.Scope(httpapi.RoleService)
	for _, r := range httpapi.Routes() {
		req, ok := Example(f, r)
		if !ok {
			missing = append(missing, r.Name)
			continue
		}
		add := func(group, caller, scopes string, status int, problem string) {
			out = append(out, Attempt{Group: group, Route: r.Name, Caller: caller, Scopes: scopes, Request: req, Status: status, Problem: problem})
		}
		switch {
		case !slices.Contains(r.Roles, httpapi.RoleCustomer):
			add(GroupCustomerRole, f.Victim, customer, http.StatusForbidden, "forbidden")
		case r.Owner != httpapi.OwnerNone:
			add(GroupWrongCustomer, f.Attacker, customer, http.StatusNotFound, "not-found")
		}
		if !slices.Contains(r.Roles, httpapi.RoleService) {
			add(GroupServiceRole, "authz-backend", service, http.StatusForbidden, "forbidden")
		}
		add(GroupNoScope, f.Victim, NoScope, http.StatusForbidden, "forbidden")
		out = append(out, ownAttempts(f, r, customer)...)
	}
	return out, missing
}

// ownAttempts are the attacks of a customer on its own routes that aim at
// the victim's data: an order id of the victim's on create, and cursors
// signed for the attacker's own lists that point at the victim's items.
func ownAttempts(f Fixture, r httpapi.RouteSpec, customer string) []Attempt {
	own := strings.ReplaceAll(r.Path, "{userId}", f.Attacker)
	at := func(group string, req Request, status int, problem string) Attempt {
		return Attempt{Group: group, Route: r.Name, Caller: f.Attacker, Scopes: customer, Request: req, Status: status, Problem: problem}
	}
	switch r.Name {
	case httpapi.RouteCreateOrder:
		body := fmt.Sprintf(`{"orderId":%q,"currency":%q,"items":[{"productId":"p1","quantity":1,"unitPrice":100}]}`, f.Order, f.Currency)
		return []Attempt{at(GroupOrderOracle, Request{Method: r.Method, Path: own, Body: body, Key: "authz-oracle"}, http.StatusBadRequest, "invalid-id")}
	case httpapi.RouteLedger, httpapi.RouteUserOrders:
		if f.CursorSecret == "" {
			return nil
		}
		binding, prefix := "ledger", "LEDGER#"
		if r.Name == httpapi.RouteUserOrders {
			binding, prefix = "userOrders", "ORDER#"
		}
		var out []Attempt
		for _, key := range []map[string]string{
			{"PK": "USER#" + f.Victim, "SK": prefix + "9999"},    // the victim's partition
			{"PK": "USER#" + f.Attacker, "SK": "PROFILE#ADDR#x"}, // outside the list's prefix
		} {
			out = append(out, at(GroupForgedCursor, Request{Method: r.Method, Path: own + "?cursor=" + url.QueryEscape(signCursor(f.CursorSecret, binding, key))},
				http.StatusBadRequest, "invalid-cursor"))
		}
		return out
	}
	return nil
}

// signCursor signs a cursor as the API does (runtime/cursor).
func signCursor(secret, binding string, key map[string]string) string {
	av := map[string]types.AttributeValue{}
	for k, v := range key {
		av[k] = &types.AttributeValueMemberS{Value: v}
	}
	c, err := cursor.New([]byte(secret)).Encode(binding, av)
	if err != nil {
		panic(err) // string attributes always encode
	}
	return c
}
