package httpapi_test

import (
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/oncetable/oncetable/runtime/httpapi"
)

func TestRoutesExport(t *testing.T) {
	anyone := []httpapi.Role{httpapi.RoleCustomer, httpapi.RoleService, httpapi.RoleOperator}
	want := map[string]httpapi.RouteSpec{
		httpapi.RouteCharge: {Name: httpapi.RouteCharge, Method: http.MethodPost, Path: "/v1/orders/{orderId}/payments", Flow: "charge", Function: httpapi.FunctionCharge,
			Roles: anyone, Owner: httpapi.OwnerOrder},
		httpapi.RouteDebit: {Name: httpapi.RouteDebit, Method: http.MethodPost, Path: "/v1/users/{userId}/debits", Flow: "debit", Function: httpapi.FunctionDebit,
			Roles: anyone, Owner: httpapi.OwnerUser},
		httpapi.RouteSettle: {Name: httpapi.RouteSettle, Method: http.MethodPost, Path: "/v1/orders/{orderId}/settle", Flow: "settle", Function: httpapi.FunctionSettle,
			Roles: anyone, Owner: httpapi.OwnerOrder},
		httpapi.RouteGetUser: {Name: httpapi.RouteGetUser, Method: http.MethodGet, Path: "/v1/users/{userId}", Function: httpapi.FunctionAPI,
			Roles: anyone, Owner: httpapi.OwnerUser},
		httpapi.RouteCredit: {Name: httpapi.RouteCredit, Method: http.MethodPost, Path: "/v1/users/{userId}/credits", Flow: "credit", Function: httpapi.FunctionAPI,
			Roles: []httpapi.Role{httpapi.RoleOperator}},
	}
	seen := map[string]bool{}
	for _, r := range httpapi.Routes() {
		key := r.Method + " " + r.Path
		if seen[key] {
			t.Errorf("route %s declared twice", key)
		}
		seen[key] = true
		if !strings.HasPrefix(r.Path, "/") || strings.HasSuffix(r.Path, "/") {
			t.Errorf("route %s: path %q is not an API Gateway path template", r.Name, r.Path)
		}
		if len(r.Roles) == 0 {
			t.Errorf("route %s admits no role", r.Name)
		}
		if r.Owner != httpapi.OwnerNone && !strings.Contains(r.Path, "{"+string(r.Owner)+"}") {
			t.Errorf("route %s: owner %q is not a parameter of %s", r.Name, r.Owner, r.Path)
		}
		if w, ok := want[r.Name]; ok {
			if !reflect.DeepEqual(r, w) {
				t.Errorf("route %s: got %+v, want %+v", r.Name, r, w)
			}
			delete(want, r.Name)
		} else if r.Function != httpapi.FunctionAPI {
			t.Errorf("route %s: got function %q, want %q", r.Name, r.Function, httpapi.FunctionAPI)
		}
	}
	for name := range want {
		t.Errorf("route %s missing from Routes()", name)
	}
}
