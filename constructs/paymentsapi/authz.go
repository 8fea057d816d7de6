package paymentsapi

import (
	"regexp"
	"slices"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"

	"github.com/oncetable/oncetable/runtime/httpapi"
)

// InvokePolicyRoles are the roles that get an invoke policy under IAM: a
// customer authenticates with a JWT, never with IAM.
var InvokePolicyRoles = []httpapi.Role{httpapi.RoleService, httpapi.RoleOperator}

// auth is the runtime's view of the props: the scopes and user claim of
// the JWT, and the IAM operators.
func (p Props) auth() httpapi.Auth {
	a := httpapi.Auth{IAMOperators: p.IAMOperators}
	if j := p.JWT; j != nil {
		a.CustomerScope, a.OperatorScope, a.ServiceScope, a.UserClaim = j.CustomerScope, j.OperatorScope, j.ServiceScope, j.UserClaim
	}
	return a.WithDefaults()
}

// InvokePath is the resource path of a route in its execute-api ARN: each
// path parameter is "*", which IAM matches across "/" too; RouteARNs'
// test checks that no wildcard of a role's routes matches a route the
// role lacks.
func InvokePath(path string) string {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		if strings.HasPrefix(s, "{") {
			segs[i] = "*"
		}
	}
	return strings.Join(segs, "/")
}

// RoutesOf lists the declared routes (DeclaredRoutes: versioned, then
// legacy) that admit role, in table order.
func RoutesOf(role httpapi.Role) []httpapi.RouteSpec {
	var out []httpapi.RouteSpec
	for _, r := range DeclaredRoutes() {
		if slices.Contains(r.Roles, role) {
			out = append(out, r)
		}
	}
	return out
}

// invokePolicies creates, under IAM, one managed policy per role in
// InvokePolicyRoles allowing execute-api:Invoke on exactly the routes
// that admit the role. Attach it to a backend's role; the handler checks
// the role again (Props.IAMOperators).
func (a *PaymentsAPI) invokePolicies(c constructs.Construct) {
	a.InvokePolicies = map[httpapi.Role]awsiam.ManagedPolicy{}
	for _, role := range InvokePolicyRoles {
		var arns []*string
		var findings []any
		for _, r := range RoutesOf(role) {
			arns = append(arns, a.API.ArnForExecuteApi(jsii.String(r.Method), jsii.String(InvokePath(r.Path)), a.Stage.StageName()))
			if strings.Contains(r.Path, "{") {
				// cdk-nag's finding for this ARN: partition, region and account as
				// literals or <AWS::...>, the API's logical ID as <ID>.
				findings = append(findings, &cdknag.RegexAppliesTo{Regex: jsii.String(`/^Resource::arn:[^/:]+:execute-api:[^/]+:<[A-Za-z0-9]+>\/\$default\/` +
					r.Method + strings.ReplaceAll(regexp.QuoteMeta(InvokePath(r.Path)), "/", `\/`) + `$/`)})
			}
		}
		name := strings.ToUpper(string(role[:1])) + string(role[1:]) + "Invoke"
		policy := awsiam.NewManagedPolicy(c, jsii.String(name+"Policy"), &awsiam.ManagedPolicyProps{
			Description: jsii.String("oncetable payments API: invoke the routes of the " + string(role) + " role"),
			Statements: &[]awsiam.PolicyStatement{awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
				Sid:       jsii.String(name),
				Actions:   jsii.Strings("execute-api:Invoke"),
				Resources: &arns,
			})},
		})
		cdknag.NagSuppressions_AddResourceSuppressions(policy, &[]*cdknag.NagPackSuppression{{
			Id:        jsii.String("AwsSolutions-IAM5"),
			AppliesTo: &findings,
			Reason: jsii.String("Each resource is one route of this API and stage; its * stands for a path parameter ({userId}, " +
				"{orderId}), which an execute-api ARN cannot name otherwise. The synth test checks that no * of a role's routes matches a route the role lacks."),
		}}, jsii.Bool(false))
		a.InvokePolicies[role] = policy
	}
}

// routeScopes are the scopes API Gateway requires of a route's JWT (any
// one of them): its roles'. IAM routes have none.
func routeScopes(r httpapi.RouteSpec, jwt bool, auth httpapi.Auth) *[]*string {
	if !jwt {
		return nil
	}
	return jsii.Strings(auth.Scopes(r.Roles)...)
}
