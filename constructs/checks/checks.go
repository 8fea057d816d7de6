package checks

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigatewayv2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsbackup"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// Rule IDs, the prefix of every finding.
const (
	TablePITR               = "OnceTable-TablePITR"
	TableDeletionProtection = "OnceTable-TableDeletionProtection"
	TableBackupPlan         = "OnceTable-TableBackupPlan"
	HTTPAPIRouteAuthorized  = "OnceTable-HttpApiRouteAuthorization"
	HTTPAPIAccessLogging    = "OnceTable-HttpApiAccessLogging"
	HTTPAPIThrottling       = "OnceTable-HttpApiThrottling"
)

// Props selects the rules. The zero value checks everything but deletion
// protection.
type Props struct {
	// Production also requires deletion protection on every table.
	Production bool
}

// Checks is the aspect; add it to a stack or an app.
type Checks struct {
	production bool
}

// New returns the aspect.
func New(props *Props) *Checks {
	if props == nil {
		props = &Props{}
	}
	return &Checks{production: props.Production}
}

// Visit implements awscdk.IAspect. Its receiver is a pointer, which jsii
// needs to call it back.
func (c *Checks) Visit(node constructs.IConstruct) {
	switch n := node.(type) {
	case awsdynamodb.CfnGlobalTable:
		c.globalTable(n)
	case awsapigatewayv2.CfnRoute:
		route(n)
	case awsapigatewayv2.CfnStage:
		stage(n)
	}
}

func report(node constructs.IConstruct, rule, format string, args ...any) {
	awscdk.Annotations_Of(node).AddError(jsii.String(rule + ": " + fmt.Sprintf(format, args...)))
}

func (c *Checks) globalTable(t awsdynamodb.CfnGlobalTable) {
	stack := awscdk.Stack_Of(t)
	replicas, _ := resolve(stack, t.Replicas()).([]any)
	if len(replicas) == 0 {
		report(t, TablePITR, "the table has no replica to check")
	}
	for _, r := range replicas {
		region := fmt.Sprint(field(r, "region"))
		if field(field(r, "pointInTimeRecoverySpecification"), "pointInTimeRecoveryEnabled") != true {
			report(t, TablePITR, "point-in-time recovery is off on the replica in %s: a bad write cannot be undone to the second", region)
		}
		if c.production && field(r, "deletionProtectionEnabled") != true {
			report(t, TableDeletionProtection, "deletion protection is off on the replica in %s of a production table", region)
		}
	}
	if !selectedByBackupPlan(stack, resolve(stack, t.AttrArn())) {
		report(t, TableBackupPlan, "no AWS Backup plan's selection in the stack names this table: it has no backups outside PITR")
	}
}

// selectedByBackupPlan reports whether a backup selection of the stack
// lists arn (resolved, so an intrinsic such as Fn::GetAtt) or "*".
func selectedByBackupPlan(stack awscdk.Stack, arn any) bool {
	want := canonical(arn)
	for _, n := range *stack.Node().FindAll(constructs.ConstructOrder_PREORDER) {
		sel, ok := n.(awsbackup.CfnBackupSelection)
		if !ok {
			continue
		}
		resources, _ := field(resolve(stack, sel.BackupSelection()), "resources").([]any)
		for _, r := range resources {
			if r == "*" || canonical(r) == want {
				return true
			}
		}
	}
	return false
}

func route(r awsapigatewayv2.CfnRoute) {
	stack := awscdk.Stack_Of(r)
	auth, _ := resolve(stack, r.AuthorizationType()).(string)
	switch auth {
	case "AWS_IAM", "JWT", "CUSTOM":
	default:
		key, _ := resolve(stack, r.RouteKey()).(string)
		report(r, HTTPAPIRouteAuthorized, "route %q has authorization type %q: anyone on the internet can call it", key, auth)
	}
}

func stage(s awsapigatewayv2.CfnStage) {
	stack := awscdk.Stack_Of(s)
	logs := resolve(stack, s.AccessLogSettings())
	if field(logs, "destinationArn") == nil || field(logs, "format") == nil {
		report(s, HTTPAPIAccessLogging, "the stage writes no access log (destination and format): requests cannot be traced to their callers")
	}
	settings := resolve(stack, s.DefaultRouteSettings())
	if !positive(field(settings, "throttlingRateLimit")) || !positive(field(settings, "throttlingBurstLimit")) {
		report(s, HTTPAPIThrottling, "the stage has no default rate and burst limit: one client can use the account's whole API Gateway quota")
	}
}

// resolve resolves tokens in v; an unset property (a nil pointer or
// interface) is nil, which Stack.Resolve would refuse.
func resolve(stack awscdk.Stack, v any) any {
	if v == nil {
		return nil
	}
	if p, ok := v.(*string); ok && p == nil {
		return nil
	}
	return stack.Resolve(v)
}

// field reads a property of a resolved value by name, in either casing
// (camelCase as resolved from an L1 property, PascalCase as in a template).
func field(v any, name string) any {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	for k, x := range m {
		if strings.EqualFold(k, name) {
			return x
		}
	}
	return nil
}

func positive(v any) bool {
	f, ok := v.(float64)
	return ok && f > 0
}

func canonical(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
