package cdk

import (
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigatewayv2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigatewayv2integrations"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/jsii-runtime-go"

	"github.com/oncetable/oncetable/constructs/checks"
)

// TestOwnRulesCatchBrokenConstructs builds a table and an HTTP API that
// break every rule of constructs/checks (cdk-nag sees neither: it checks
// CfnTable and REST APIs only) and checks each rule reports its finding as
// an error, as a nag finding would be. The real stacks pass the same rules
// in TestNag.
func TestOwnRulesCatchBrokenConstructs(t *testing.T) {
	// GIVEN a production stack whose table has no PITR, no deletion
	// protection and no backup plan, and whose HTTP API has an open route
	// and a default stage without access logs or throttling
	app := awscdk.NewApp(nil)
	stack := awscdk.NewStack(app, jsii.String("Broken"), &awscdk.StackProps{Env: &awscdk.Environment{Region: jsii.String("eu-west-1")}})
	awscdk.Aspects_Of(stack).Add(checks.New(&checks.Props{Production: true}), nil)
	awsdynamodb.NewTableV2(stack, jsii.String("Table"), &awsdynamodb.TablePropsV2{
		PartitionKey:       &awsdynamodb.Attribute{Name: jsii.String("PK"), Type: awsdynamodb.AttributeType_STRING},
		DeletionProtection: jsii.Bool(false),
		PointInTimeRecoverySpecification: &awsdynamodb.PointInTimeRecoverySpecification{
			PointInTimeRecoveryEnabled: jsii.Bool(false),
		},
	})
	api := awsapigatewayv2.NewHttpApi(stack, jsii.String("Api"), nil)
	api.AddRoutes(&awsapigatewayv2.AddRoutesOptions{
		Path:        jsii.String("/orders"),
		Methods:     &[]awsapigatewayv2.HttpMethod{awsapigatewayv2.HttpMethod_GET},
		Integration: awsapigatewayv2integrations.NewHttpUrlIntegration(jsii.String("Backend"), jsii.String("https://backend.example.com/"), nil),
	})

	// WHEN it is synthesized
	errs := messages(assertions.Annotations_FromStack(stack).FindError(jsii.String("*"), assertions.Match_StringLikeRegexp(jsii.String("OnceTable-.*"))))

	// THEN each rule reports once, on the resource that breaks it
	want := map[string]string{
		checks.TablePITR:               "/Broken/Table/Resource",
		checks.TableDeletionProtection: "/Broken/Table/Resource",
		checks.TableBackupPlan:         "/Broken/Table/Resource",
		checks.HTTPAPIRouteAuthorized:  "/Broken/Api/GET--orders/Resource",
		checks.HTTPAPIAccessLogging:    "/Broken/Api/DefaultStage/Resource",
		checks.HTTPAPIThrottling:       "/Broken/Api/DefaultStage/Resource",
	}
	got := map[string]string{}
	for _, e := range errs {
		path, msg, _ := strings.Cut(e, ": ")
		rule, _, _ := strings.Cut(msg, ":")
		if _, dup := got[rule]; dup {
			t.Errorf("rule %s reported twice: %q", rule, errs)
		}
		got[rule] = path
	}
	for rule, path := range want {
		if got[rule] != path {
			t.Errorf("rule %s: reported on %q, want %q", rule, got[rule], path)
		}
	}
	if len(got) != len(want) {
		t.Errorf("findings %q, want exactly one per rule %v", errs, sortedKeys(want))
	}

	// THEN without Production, deletion protection is not required
	dev := awscdk.NewStack(app, jsii.String("Dev"), &awscdk.StackProps{Env: &awscdk.Environment{Region: jsii.String("eu-west-1")}})
	awscdk.Aspects_Of(dev).Add(checks.New(nil), nil)
	awsdynamodb.NewTableV2(dev, jsii.String("Table"), &awsdynamodb.TablePropsV2{
		PartitionKey:       &awsdynamodb.Attribute{Name: jsii.String("PK"), Type: awsdynamodb.AttributeType_STRING},
		DeletionProtection: jsii.Bool(false),
	})
	devErrs := strings.Join(messages(assertions.Annotations_FromStack(dev).FindError(jsii.String("*"), assertions.Match_AnyValue())), "\n")
	if strings.Contains(devErrs, checks.TableDeletionProtection) || !strings.Contains(devErrs, checks.TableBackupPlan) {
		t.Errorf("non-production findings %q, want the backup finding and no deletion protection finding", devErrs)
	}
}

func sortedKeys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
