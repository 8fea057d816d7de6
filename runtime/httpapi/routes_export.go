package httpapi

import (
	"slices"
	"strings"
)

// Lambda functions that serve the routes. The three hot money flows have
// functions of their own (own concurrency, alarms and least-privilege
// role); every other route is served by the api function.
const (
	FunctionCharge = "charge"
	FunctionDebit  = "debit"
	FunctionSettle = "settle"
	FunctionAPI    = "api"
)

// ownFunction lists the routes that do not go to FunctionAPI.
var ownFunction = map[string]string{
	RouteCharge: FunctionCharge,
	RouteDebit:  FunctionDebit,
	RouteSettle: FunctionSettle,
}

// RouteSpec describes one route for the infrastructure: the HTTP API
// declares exactly these routes and sends each to Function.
type RouteSpec struct {
	Name     string // Route* constant, as passed to API.Only
	Method   string // "GET", "POST"
	Path     string // API Gateway path template, such as "/orders/{orderId}/payments"
	Flow     string // idempotent money flow (payments.Flow*), "" otherwise
	Function string // Function* constant of the Lambda function that serves it
	// Roles admitted, most privileged last; API Gateway admits a JWT with
	// any of their scopes (Auth.Scopes) and the handler checks again.
	Roles []Role
	// Owner names the user a customer may call the route for only as
	// itself; OwnerNone when the route names no user.
	Owner Owner
	// Deprecated: an unversioned path of LegacyRoutes.
	Deprecated bool
}

// Routes returns the route table in declaration order, each path under
// APIVersion ("/v1/orders/{orderId}"). It builds no handler and needs no
// client.
func Routes() []RouteSpec {
	out := routes()
	for i := range out {
		out[i].Path = versionPath(out[i].Path)
	}
	return out
}

// LegacyRoutes are the routes without the version segment, deprecated and
// served until LegacySunset: the HTTP API declares them beside Routes.
func LegacyRoutes() []RouteSpec {
	out := routes()
	for i := range out {
		out[i].Deprecated = true
	}
	return out
}

func routes() []RouteSpec {
	var a API
	table := a.table()
	out := make([]RouteSpec, len(table))
	for i, r := range table {
		fn, ok := ownFunction[r.name]
		if !ok {
			fn = FunctionAPI
		}
		out[i] = RouteSpec{Name: r.name, Method: r.method, Path: "/" + strings.Join(r.pattern, "/"), Flow: r.flow, Function: fn,
			Roles: slices.Clone(r.roles), Owner: r.owner}
	}
	return out
}
