package cdk

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/oncetable/oncetable/constructs/paymentsapi"
	"github.com/oncetable/oncetable/runtime/config"
	"github.com/oncetable/oncetable/runtime/httpapi"
)

// jwtCustomerScope is the JWT variant's customer scope, not the default:
// the routes and the functions must carry the configured one.
const jwtCustomerScope = "shop/customer"

// TestRouteScopes: under a JWT authorizer every route requires the scopes
// of the roles it admits, as configured; under IAM none.
func TestRouteScopes(t *testing.T) {
	auth := httpapi.Auth{CustomerScope: jwtCustomerScope}
	want := map[string][]any{}
	for _, r := range paymentsapi.DeclaredRoutes() {
		for _, sc := range auth.Scopes(r.Roles) {
			want[r.Method+" "+r.Path] = append(want[r.Method+" "+r.Path], sc)
		}
	}
	for name, s := range map[string]*synthesized{"jwt": variant(t).jwt, "dev": stackOf("dev")} {
		t.Run(name, func(t *testing.T) {
			for _, r := range resources(s, "AWS::ApiGatewayV2::Route") {
				p := props(r)
				key := p["RouteKey"].(string)
				got, _ := p["AuthorizationScopes"].([]any)
				if name == "dev" && got != nil || name == "jwt" && !reflect.DeepEqual(got, want[key]) {
					t.Errorf("route %q: scopes %v, want %v", key, got, map[bool][]any{true: want[key]}[name == "jwt"])
				}
			}
		})
	}
}

// TestFunctionsCheckAuthorization: every function gets the scopes and the
// user claim (and the IAM operators) it checks each request against.
func TestFunctionsCheckAuthorization(t *testing.T) {
	for name, tc := range map[string]struct {
		s        *synthesized
		customer string
	}{"jwt": {variant(t).jwt, jwtCustomerScope}, "prod": {stackOf("prod"), httpapi.DefaultCustomerScope}} {
		for fn, f := range tc.s.payments.Functions {
			env := props(tc.s.json["Resources"].(map[string]any)[logicalID(tc.s, f.Function)].(map[string]any))["Environment"].(map[string]any)["Variables"].(map[string]any)
			if env[config.AuthCustomerScopeEnv] != tc.customer || env[config.AuthOperatorScopeEnv] != httpapi.DefaultOperatorScope ||
				env[config.AuthServiceScopeEnv] != httpapi.DefaultServiceScope || env[config.AuthUserClaimEnv] != httpapi.DefaultUserClaim {
				t.Errorf("%s/%s: environment %v, want the AUTH_* variables with customer scope %s", name, fn, env, tc.customer)
			}
		}
	}
}

// TestInvokePolicies: under IAM, ServiceInvoke and OperatorInvoke allow
// execute-api:Invoke on exactly their role's routes of this API's stage;
// with a JWT authorizer there are none.
func TestInvokePolicies(t *testing.T) {
	if n := len(resources(variant(t).jwt, "AWS::IAM::ManagedPolicy")); n != 0 {
		t.Errorf("JWT variant: %d managed policies, want none", n)
	}
	s := stackOf("prod")
	apiID := logicalID(s, s.payments.API)
	for _, role := range paymentsapi.InvokePolicyRoles {
		policy := s.payments.InvokePolicies[role]
		p := props(s.json["Resources"].(map[string]any)[logicalID(s, policy)].(map[string]any))
		stmts := p["PolicyDocument"].(map[string]any)["Statement"].([]any)
		if len(stmts) != 1 {
			t.Fatalf("%s: %d statements, want 1", role, len(stmts))
		}
		st := stmts[0].(map[string]any)
		var got []string
		for _, res := range st["Resource"].([]any) {
			arn := flatten(res)
			if !strings.Contains(arn, ":execute-api:") || !strings.Contains(arn, "{Ref:"+apiID+"}/") {
				t.Errorf("%s: resource %s is not a route of this API", role, arn)
			}
			got = append(got, arn[strings.Index(arn, "{Ref:"+apiID+"}/")+len(apiID)+6:])
			sort.Strings(got)
		}
		var want []string
		for _, r := range paymentsapi.RoutesOf(role) {
			want = append(want, "/$default/"+r.Method+paymentsapi.InvokePath(r.Path))
		}
		sort.Strings(want)
		if st["Action"] != "execute-api:Invoke" || st["Effect"] != "Allow" || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: statement %v with routes %q, want execute-api:Invoke on %q", role, st, got, want)
		}
	}
}

// flatten renders a CloudFormation string (Fn::Join, Ref) as one string.
func flatten(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case map[string]any:
		if j, ok := x["Fn::Join"].([]any); ok {
			var b strings.Builder
			for i, part := range j[1].([]any) {
				if i > 0 {
					b.WriteString(j[0].(string))
				}
				b.WriteString(flatten(part))
			}
			return b.String()
		}
		if r, ok := x["Ref"].(string); ok {
			return "{Ref:" + r + "}"
		}
	}
	return fmt.Sprint(v)
}
