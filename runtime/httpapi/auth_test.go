package httpapi_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/oncetable/oncetable/runtime/config"
	"github.com/oncetable/oncetable/runtime/httpapi"
)

type authorizer = events.APIGatewayV2HTTPRequestContextAuthorizerDescription

func withAuthorizer(az *authorizer) *events.APIGatewayV2HTTPRequest {
	return &events.APIGatewayV2HTTPRequest{RequestContext: events.APIGatewayV2HTTPRequestContext{Authorizer: az}}
}

func jwt(claims map[string]string, scopes ...string) *authorizer {
	return &authorizer{JWT: &events.APIGatewayV2HTTPRequestContextAuthorizerJWTDescription{Claims: claims, Scopes: scopes}}
}

func iam(arn string) *authorizer {
	return &authorizer{IAM: &events.APIGatewayV2HTTPRequestContextAuthorizerIAMDescription{UserARN: arn}}
}

func TestPrincipal(t *testing.T) {
	customer, operator, service := httpapi.RoleCustomer, httpapi.RoleOperator, httpapi.RoleService
	custom := httpapi.Auth{CustomerScope: "shop/buy", OperatorScope: "shop/admin", UserClaim: "custom:userId",
		IAMOperators: []string{"arn:aws:iam::111122223333:role/ops/PaymentsOperator", "arn:aws:iam::111122223333:user/admin-*"}}
	tests := []struct {
		name  string
		auth  httpapi.Auth
		az    *authorizer
		roles []httpapi.Role
		user  string
	}{
		{"no authorizer", httpapi.Auth{}, nil, nil, ""},
		{"jwt customer, user is the subject", httpapi.Auth{}, jwt(map[string]string{"sub": "alice", "scope": "openid payments/customer"}), []httpapi.Role{customer}, "alice"},
		{"jwt scopes from the scopes list", httpapi.Auth{}, jwt(map[string]string{"sub": "alice"}, "payments/customer"), []httpapi.Role{customer}, "alice"},
		{"jwt operator", httpapi.Auth{}, jwt(map[string]string{"sub": "ops", "scope": "payments/operator"}), []httpapi.Role{operator}, ""},
		{"jwt service", httpapi.Auth{}, jwt(map[string]string{"sub": "svc", "scope": "payments/service"}), []httpapi.Role{service}, ""},
		{"jwt operator and customer, most privileged first", httpapi.Auth{}, jwt(map[string]string{"sub": "x", "scope": "payments/customer payments/operator"}),
			[]httpapi.Role{operator, customer}, "x"},
		{"jwt without a recognised scope", httpapi.Auth{}, jwt(map[string]string{"sub": "alice", "scope": "openid profile payments/customers"}), nil, ""},
		{"jwt default scope under a custom configuration", custom, jwt(map[string]string{"sub": "alice", "scope": "payments/customer"}), nil, ""},
		{"jwt custom scope and user claim", custom, jwt(map[string]string{"sub": "c0ffee", "custom:userId": "alice", "scope": "shop/buy"}), []httpapi.Role{customer}, "alice"},
		{"jwt customer without the user claim", custom, jwt(map[string]string{"sub": "c0ffee", "scope": "shop/buy"}), nil, ""},
		{"lambda authorizer customer", httpapi.Auth{}, &authorizer{Lambda: map[string]any{"sub": "bob", "scope": "payments/customer"}}, []httpapi.Role{customer}, "bob"},
		{"lambda authorizer without scope", httpapi.Auth{}, &authorizer{Lambda: map[string]any{"sub": "bob"}}, nil, ""},
		{"iam caller is a service", httpapi.Auth{}, iam("arn:aws:sts::111122223333:assumed-role/Checkout/i-1"), []httpapi.Role{service}, ""},
		{"iam operator role's session", custom, iam("arn:aws:sts::111122223333:assumed-role/PaymentsOperator/jane"), []httpapi.Role{operator}, ""},
		{"iam other role with the operator's name as a prefix", custom, iam("arn:aws:sts::111122223333:assumed-role/PaymentsOperatorX/jane"), []httpapi.Role{service}, ""},
		{"iam operator role in another account", custom, iam("arn:aws:sts::999999999999:assumed-role/PaymentsOperator/jane"), []httpapi.Role{service}, ""},
		{"iam operator by prefix", custom, iam("arn:aws:iam::111122223333:user/admin-jane"), []httpapi.Role{operator}, ""},
		{"iam end user of a Cognito identity pool", httpapi.Auth{}, &authorizer{IAM: &events.APIGatewayV2HTTPRequestContextAuthorizerIAMDescription{
			UserARN:         "arn:aws:sts::111122223333:assumed-role/Cognito_PaymentsAuth_Role/CognitoIdentityCredentials",
			CognitoIdentity: events.APIGatewayV2HTTPRequestContextAuthorizerCognitoIdentity{IdentityID: "eu-west-1:1234", IdentityPoolID: "eu-west-1:pool"}}}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.auth.Principal(withAuthorizer(tt.az))
			if !reflect.DeepEqual(p.Roles, tt.roles) || p.UserID != tt.user {
				t.Errorf("Principal = %+v, want roles %v user %q", p, tt.roles, tt.user)
			}
			if (tt.az == nil) != (p.Caller == "") {
				t.Errorf("Caller = %q", p.Caller)
			}
		})
	}
}

func TestAuthValidate(t *testing.T) {
	for _, a := range []httpapi.Auth{{CustomerScope: "a b"}, {CustomerScope: "x", OperatorScope: "x"}, {ServiceScope: httpapi.DefaultOperatorScope}} {
		if a.Validate() == nil {
			t.Errorf("Validate(%+v) = nil, want an error", a)
		}
	}
	if err := (httpapi.Auth{}).Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
}

// TestAuthFromEnv: the functions read the scopes, the user claim and the
// IAM operators from the environment the construct sets.
func TestAuthFromEnv(t *testing.T) {
	t.Setenv(config.TableNameEnv, "t")
	t.Setenv(config.AuthCustomerScopeEnv, "shop/buy")
	t.Setenv(config.AuthUserClaimEnv, "username")
	t.Setenv(config.AuthIAMOperatorsEnv, "arn:aws:iam::1:role/A, arn:aws:iam::1:role/B")
	c, err := httpapi.ConfigFromEnv()
	if a := c.Auth; err != nil || a.CustomerScope != "shop/buy" || a.UserClaim != "username" || len(a.IAMOperators) != 2 || a.IAMOperators[1] != "arn:aws:iam::1:role/B" {
		t.Fatalf("ConfigFromEnv = %+v, %v", a, err)
	}
	t.Setenv(config.AuthOperatorScopeEnv, "shop/buy")
	if _, err := httpapi.ConfigFromEnv(); err == nil {
		t.Error("ConfigFromEnv with the same scope for two roles: nil error")
	}
}

// TestUnauthenticated: behind a route without an authorizer nothing is
// served, not even the catalogue.
func TestUnauthenticated(t *testing.T) {
	h := newHarness(t)
	for _, r := range httpapi.Routes() {
		ev := event(r.Method, r.Path, "", nil)
		ev.RequestContext.Authorizer = nil
		resp, _ := h.api.Handle(context.Background(), ev)
		if resp.StatusCode != 401 || field(t, resp.Body, "type") != httpapi.ProblemTypeBase+"unauthenticated" {
			t.Errorf("%s %s without an identity: %d %s, want 401 unauthenticated", r.Method, r.Path, resp.StatusCode, resp.Body)
		}
	}
}

func ExampleAuth_Principal() {
	auth := httpapi.Auth{UserClaim: "custom:userId"}
	req := events.APIGatewayV2HTTPRequest{RequestContext: events.APIGatewayV2HTTPRequestContext{
		Authorizer: &events.APIGatewayV2HTTPRequestContextAuthorizerDescription{JWT: &events.APIGatewayV2HTTPRequestContextAuthorizerJWTDescription{
			Claims: map[string]string{"iss": "https://idp.example.com", "sub": "9f1c", "custom:userId": "alice", "scope": "openid payments/customer"}}}}}
	p := auth.Principal(&req)
	fmt.Println(p.Roles, p.UserID, p.Caller)
	// Output: [customer] alice jwt:https://idp.example.com|9f1c
}
