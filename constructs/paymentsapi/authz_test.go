package paymentsapi_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/oncetable/oncetable/constructs/paymentsapi"
	"github.com/oncetable/oncetable/runtime/httpapi"
)

// TestInvokeWildcardsStayInTheirRoutes: IAM's * matches any characters,
// "/" included, so a role's route ARN such as POST/users/*/debits must not
// also match a route the role lacks (POST/users/x/credits, or a longer path
// ending alike). Every route the role lacks, with its parameters filled
// with ids that contain "/" too, is matched against every ARN of the role.
func TestInvokeWildcardsStayInTheirRoutes(t *testing.T) {
	for _, role := range paymentsapi.InvokePolicyRoles {
		allowed := paymentsapi.RoutesOf(role)
		for _, r := range paymentsapi.DeclaredRoutes() {
			if slices.Contains(r.Roles, role) {
				continue
			}
			for _, id := range []string{"x1", "a/b"} {
				concrete := r.Method + strings.NewReplacer("{userId}", id, "{orderId}", id, "{paymentId}", id, "{productId}", id).Replace(r.Path)
				for _, a := range allowed {
					if iamMatch(a.Method+paymentsapi.InvokePath(a.Path), concrete) {
						t.Errorf("%s: the ARN of %s %s also matches %s, a route the role lacks", role, a.Method, a.Path, concrete)
					}
				}
			}
		}
	}
	for _, r := range paymentsapi.DeclaredRoutes() {
		concrete := r.Method + strings.NewReplacer("{userId}", "a/b", "{orderId}", "o1", "{paymentId}", "p1", "{productId}", "x").Replace(r.Path)
		if !iamMatch(r.Method+paymentsapi.InvokePath(r.Path), concrete) {
			t.Errorf("the ARN of %s %s does not match its own request %s", r.Method, r.Path, concrete)
		}
	}
	if n := len(paymentsapi.RoutesOf(httpapi.RoleOperator)); n != len(paymentsapi.DeclaredRoutes()) {
		t.Errorf("OperatorInvoke covers %d routes, want all %d", n, len(paymentsapi.DeclaredRoutes()))
	}
}

// iamMatch is IAM's resource wildcard: * matches any run of characters,
// "/" included (path.Match's * stops at "/", so split on it first).
func iamMatch(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for i, p := range parts[1:] {
		last := i == len(parts)-2
		if last {
			return strings.HasSuffix(s, p)
		}
		j := strings.Index(s, p)
		if j < 0 {
			return false
		}
		s = s[j+len(p):]
	}
	return s == ""
}
