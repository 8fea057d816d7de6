package httpapi

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-lambda-go/events"
)

// Role is who may call a route. A caller has the roles its authorizer
// grants (see [Auth.Principal]); a route lists the roles it admits.
type Role string

// Roles.
const (
	// RoleCustomer acts only on the user it is (Principal.UserID) and on
	// that user's orders.
	RoleCustomer Role = "customer"
	// RoleService is a trusted backend acting for any user; it may not
	// create money (credits), set prices or work the back-office queues.
	RoleService Role = "service"
	// RoleOperator is the back office: every route, any user.
	RoleOperator Role = "operator"
)

// privilege orders the roles from the most to the least privileged: a
// caller with several acts in the first one the route admits.
var privilege = []Role{RoleOperator, RoleService, RoleCustomer}

// Owner says how a route names the user whose data it reads or moves; a
// customer may call it only for itself.
type Owner string

// Owners.
const (
	OwnerNone  Owner = ""        // no user's data: the catalogue, back-office lists
	OwnerUser  Owner = "userId"  // the path's {userId}
	OwnerOrder Owner = "orderId" // the user of the path's {orderId}, read from the order
)

// Default JWT scopes and claim of [Auth].
const (
	DefaultCustomerScope = "payments/customer"
	DefaultOperatorScope = "payments/operator"
	DefaultServiceScope  = "payments/service"
	DefaultUserClaim     = "sub"
)

// Auth says how a request's authorizer context becomes roles. Every field
// has a default; nothing grants a role by default that no authorizer
// vouched for.
type Auth struct {
	// Scopes grant roles to a JWT (its "scope" claim, space-separated) or
	// to a Lambda authorizer's context key "scope". Defaults:
	// payments/customer, payments/operator, payments/service. A token with
	// none of them has no role and may call nothing.
	CustomerScope, OperatorScope, ServiceScope string
	// UserClaim names the JWT claim (or Lambda authorizer context key)
	// whose value is the userId a customer acts as. Default: "sub", the
	// subject itself. A customer token without it has no customer role.
	UserClaim string
	// IAMOperators lists the IAM principals that are operators: an ARN
	// exactly, an ARN prefix ending in "*", or a role ARN
	// (arn:aws:iam::<account>:role/<name>), which covers that role's
	// sessions (arn:aws:sts::<account>:assumed-role/<name>/*). Every other
	// IAM caller is a service, except one with a Cognito identity (an end
	// user's identity-pool credentials), which has no role: IAM never
	// makes a customer. Default: none.
	IAMOperators []string
}

// WithDefaults fills the empty fields.
func (a Auth) WithDefaults() Auth {
	if a.CustomerScope == "" {
		a.CustomerScope = DefaultCustomerScope
	}
	if a.OperatorScope == "" {
		a.OperatorScope = DefaultOperatorScope
	}
	if a.ServiceScope == "" {
		a.ServiceScope = DefaultServiceScope
	}
	if a.UserClaim == "" {
		a.UserClaim = DefaultUserClaim
	}
	return a
}

// Validate reports scopes that are not distinct or contain spaces.
func (a Auth) Validate() error {
	a = a.WithDefaults()
	scopes := []string{a.CustomerScope, a.OperatorScope, a.ServiceScope}
	for i, s := range scopes {
		if strings.ContainsAny(s, " \t\n,") {
			return fmt.Errorf("httpapi: scope %q must not contain spaces or commas", s)
		}
		if slices.Contains(scopes[i+1:], s) {
			return fmt.Errorf("httpapi: the customer, operator and service scopes must differ, %q repeats", s)
		}
	}
	return nil
}

// Scope is the JWT scope that grants r.
func (a Auth) Scope(r Role) string {
	a = a.WithDefaults()
	return map[Role]string{RoleCustomer: a.CustomerScope, RoleOperator: a.OperatorScope, RoleService: a.ServiceScope}[r]
}

// Scopes are the JWT scopes of roles, in the order given: API Gateway
// admits a token that has any one of them.
func (a Auth) Scopes(roles []Role) []string {
	out := make([]string, len(roles))
	for i, r := range roles {
		out[i] = a.Scope(r)
	}
	return out
}

// Principal is the caller of a request as the authorizer described it.
type Principal struct {
	// Caller scopes Idempotency-Keys ([CallerIdentity]); "" when the
	// request carries no identity.
	Caller string
	// Roles are the roles granted, most privileged first.
	Roles []Role
	// UserID is the user a customer is; "" unless Roles has RoleCustomer.
	UserID string
}

// Principal reads the caller and its roles from the request context: JWT
// scopes, a Lambda authorizer's "scope", or the IAM principal.
func (a Auth) Principal(req *events.APIGatewayV2HTTPRequest) Principal {
	a = a.WithDefaults()
	p := Principal{Caller: CallerIdentity(req)}
	if p.Caller == "anonymous" {
		return Principal{}
	}
	az := req.RequestContext.Authorizer
	switch {
	case az.IAM != nil && az.IAM.CognitoIdentity.IdentityID != "":
		// An end user's credentials from a Cognito identity pool: IAM
		// vouches for the pool, not for a backend, so no role.
	case az.IAM != nil && (az.IAM.UserARN != "" || az.IAM.CallerID != ""):
		p.Roles = []Role{RoleService}
		if a.iamOperator(az.IAM.UserARN) {
			p.Roles = []Role{RoleOperator}
		}
	case az.JWT != nil && az.JWT.Claims["sub"] != "":
		scopes := append(strings.Fields(az.JWT.Claims["scope"]), az.JWT.Scopes...)
		p.Roles, p.UserID = a.scoped(scopes, az.JWT.Claims[a.UserClaim])
	default:
		scope, _ := az.Lambda["scope"].(string)
		user, _ := az.Lambda[a.UserClaim].(string)
		p.Roles, p.UserID = a.scoped(strings.Fields(scope), user)
	}
	return p
}

// scoped grants the roles of scopes; the customer role needs a user.
func (a Auth) scoped(scopes []string, user string) ([]Role, string) {
	var roles []Role
	for _, r := range privilege {
		if slices.Contains(scopes, a.Scope(r)) && (r != RoleCustomer || user != "") {
			roles = append(roles, r)
		}
	}
	if !slices.Contains(roles, RoleCustomer) {
		user = ""
	}
	return roles, user
}

func (a Auth) iamOperator(arn string) bool {
	for _, p := range a.IAMOperators {
		if roleSessions, ok := assumedRolePrefix(p); ok && strings.HasPrefix(arn, roleSessions) {
			return true
		}
		if prefix, ok := strings.CutSuffix(p, "*"); ok && strings.HasPrefix(arn, prefix) || p == arn {
			return true
		}
	}
	return false
}

// assumedRolePrefix turns arn:<partition>:iam::<account>:role/<path/><name>
// into the prefix of that role's session ARNs,
// arn:<partition>:sts::<account>:assumed-role/<name>/.
func assumedRolePrefix(arn string) (string, bool) {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" || parts[2] != "iam" || !strings.HasPrefix(parts[5], "role/") || strings.HasSuffix(arn, "*") {
		return "", false
	}
	name := parts[5][strings.LastIndex(parts[5], "/")+1:]
	return "arn:" + parts[1] + ":sts::" + parts[4] + ":assumed-role/" + name + "/", true
}

// Authorization errors. A customer naming another user's data gets
// store.ErrNotFound's answer instead, see [ErrNotOwner].
var (
	ErrUnauthenticated = errors.New("no authenticated caller")
	ErrForbidden       = errors.New("forbidden")
	// ErrNotOwner is a customer naming a user or order that is not its
	// own. It is answered exactly as a resource that does not exist (404
	// not-found), so a stranger learns nothing about which users and
	// orders exist.
	ErrNotOwner = errors.New("not the caller's")
)

// notOwnerError reads like the store's not-found error for the resource.
type notOwnerError struct{ entity, id string }

func (e *notOwnerError) Error() string        { return fmt.Sprintf("%s %q: not found", e.entity, e.id) }
func (e *notOwnerError) Is(target error) bool { return target == ErrNotOwner }

// roleFor is the role the caller acts in on the route, "" if none.
func (p Principal) roleFor(route []Role) Role {
	for _, r := range p.Roles {
		if slices.Contains(route, r) {
			return r
		}
	}
	return ""
}

// checkRole refuses a caller without an identity (401) or without a role
// the route admits (403). Like checkOwner it runs before the handler, so a
// refusal writes nothing and leaves the Idempotency-Key unused.
func (a *API) checkRole(c *call) error {
	switch {
	case c.principal.Caller == "":
		return fmt.Errorf("%w: the request carries no authorizer identity", ErrUnauthenticated)
	case len(c.principal.Roles) == 0:
		return fmt.Errorf("%w: the caller has no role; %s needs one of the scopes %s", ErrForbidden, c.route.name,
			strings.Join(a.auth.Scopes(c.route.roles), ", "))
	case c.principal.roleFor(c.route.roles) == "":
		return fmt.Errorf("%w: %s is for the roles %s, the caller is %s", ErrForbidden, c.route.name,
			joinRoles(c.route.roles), joinRoles(c.principal.Roles))
	}
	return nil
}

// checkOwner refuses a customer naming a user or an order that is not its
// own, with the answer a missing one gets (ErrNotOwner). An order's user
// costs one GetItem, for customers only.
func (a *API) checkOwner(ctx context.Context, c *call) error {
	if c.principal.roleFor(c.route.roles) != RoleCustomer {
		return nil
	}
	switch c.route.owner {
	case OwnerUser:
		if id := c.params["userId"]; id != c.principal.UserID {
			return &notOwnerError{"user", id}
		}
	case OwnerOrder:
		id := c.params["orderId"]
		owner, err := a.st.OrderOwner(ctx, id)
		if err != nil {
			return err
		}
		if owner != c.principal.UserID {
			return &notOwnerError{"order", id}
		}
	}
	return nil
}

func joinRoles(rs []Role) string {
	s := make([]string, len(rs))
	for i, r := range rs {
		s[i] = string(r)
	}
	return strings.Join(s, ", ")
}
