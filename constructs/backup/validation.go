package backup

import (
	"cmp"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsevents"
	"github.com/aws/aws-cdk-go/awscdk/v2/awseventstargets"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambdadestinations"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"

	"github.com/oncetable/oncetable/constructs/alarms"
	"github.com/oncetable/oncetable/constructs/gofunction"
	"github.com/oncetable/oncetable/constructs/oncall"
	"github.com/oncetable/oncetable/runtime/config"
	"github.com/oncetable/oncetable/runtime/restorevalidation"
)

// RestoreValidation configures the check of each restore test's table: a
// function (lambdas/restorevalidation) that EventBridge invokes when a
// restore testing job of the plan completes, which verifies the restored
// table's money invariants (runtime/verify) and reports the verdict to AWS
// Backup with PutRestoreValidationResult. Its zero value is the default.
type RestoreValidation struct {
	// Disable leaves restore tests unchecked (a restore that completes
	// passes). Default: false, checked.
	Disable bool
	// ModuleDir is the Go module holding lambdas/restorevalidation.
	// Default: oncetable's own module as the app's build resolves it
	// (gofunction.ModuleDir), wherever the app's module is.
	ModuleDir string
	// Segments is the number of parallel Scan segments. Default: 8.
	Segments int
	// MaxRCU caps the read units per second the scan consumes (the
	// restore-test table serves nobody else). Default: 2000.
	MaxRCU int
	// MemoryMB of the function. Default: 1024.
	MemoryMB int
	// Timeout of the function; a scan that outruns it is reported
	// TIMED_OUT. Default: 15 minutes (Lambda's maximum).
	Timeout time.Duration
	// LogRetentionDays of the function's log group, one of CloudWatch
	// Logs' values. Default: 30. The group is deleted with the stack when
	// TableBackupProps.RemovalPolicy is DESTROY, else retained.
	LogRetentionDays int
}

// Validation is the restore-test check and what it owns.
type Validation struct {
	Function *gofunction.Function
	// Rule invokes Function on every completed restore testing job of
	// the plan; its target's failures go to DLQ, which DLQAlarm watches.
	Rule     awsevents.Rule
	DLQ      awssqs.Queue
	DLQAlarm awscloudwatch.Alarm
	// Failed is the metric of failed verdicts (1 per FAILED or TIMED_OUT
	// validation) and FailedAlarm the alarm on it (kind
	// restore-validation-failed, a page; DLQAlarm is restore-validation-lost,
	// a ticket), routed by TableBackupProps.Monitor or to AlarmTopic.
	Failed      awscloudwatch.Metric
	FailedAlarm awscloudwatch.Alarm
}

func (r *RestoreTesting) validation(c constructs.Construct, table awsdynamodb.ITableV2, v RestoreValidation, watch func(oncall.Kind, awscloudwatch.Alarm), removal awscdk.RemovalPolicy) {
	if v.Disable {
		return
	}
	stack := awscdk.Stack_Of(c)
	r.Validation = &Validation{}
	val := r.Validation
	val.Function = gofunction.New(c, "RestoreValidation", &gofunction.Props{
		Entry:       "./lambdas/restorevalidation",
		ModuleDir:   v.ModuleDir,
		ModulePath:  gofunction.OwnModulePath,
		Description: "oncetable restore testing: verifies the money invariants of each restored table",
		MemoryMB:    cmp.Or(v.MemoryMB, 1024),
		Timeout:     cmp.Or(v.Timeout, 15*time.Minute),
		LogKey:      table.EncryptionKey(),
		// Each verdict's report is in the log: keep it as long as the
		// functions' logs, or with the stack's data when that goes.
		LogRetentionDays: v.LogRetentionDays,
		DestroyLogs:      removal == awscdk.RemovalPolicy_DESTROY,
		Environment: config.RestoreValidation{SourceTable: *table.TableName(), PlanARN: *r.Plan.AttrRestoreTestingPlanArn(),
			Segments: v.Segments, MaxRCU: float64(v.MaxRCU)}.Environment(),
	})
	restored := stack.FormatArn(&awscdk.ArnComponents{Service: jsii.String("dynamodb"), Resource: jsii.String("table"),
		ResourceName: jsii.String(restorevalidation.RestoredTablePrefix + "*"), ArnFormat: awscdk.ArnFormat_SLASH_RESOURCE_NAME})
	role := val.Function.Role
	role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:       jsii.String("ReadRestoreTestTables"),
		Actions:   jsii.Strings("dynamodb:DescribeTable", "dynamodb:Scan"),
		Resources: &[]*string{restored},
	}))
	role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:        jsii.String("ReportValidation"),
		Actions:    jsii.Strings("backup:PutRestoreValidationResult"),
		Resources:  jsii.Strings("*"),
		Conditions: &map[string]any{"StringEquals": map[string]any{"aws:RequestedRegion": stack.Region()}},
	}))
	if key := table.EncryptionKey(); key != nil {
		// A restore of a table under a customer-managed key is encrypted
		// with it (AWS Backup's inferred metadata), and a Scan decrypts.
		key.GrantDecrypt(role)
	}
	suppressValidationNag(val.Function, table.EncryptionKey() == nil)
	cdknag.NagSuppressions_AddResourceSuppressions(role, &[]*cdknag.NagPackSuppression{{
		Id: jsii.String("AwsSolutions-IAM5"),
		Reason: jsii.String("AWS Backup names each restore-test table itself, always awsbackup-restore-test…, so the function may " +
			"read only tables of that prefix (never the protected table); PutRestoreValidationResult supports no resource-level " +
			"permission and is limited to this region."),
		AppliesTo: &[]any{"Resource::*", &cdknag.RegexAppliesTo{
			Regex: jsii.String(`/^Resource::arn:.*:dynamodb:.*:table\/` + restorevalidation.RestoredTablePrefix + `\*$/g`)}},
	}}, jsii.Bool(true))

	val.DLQ = alarms.DeadLetterQueue(c, "RestoreValidationDLQ",
		"This queue is itself a dead-letter queue: restore-test completions the validation function could not take or "+
			"report, read by people after its alarm.")
	val.Function.Function.ConfigureAsyncInvoke(&awslambda.EventInvokeConfigOptions{
		OnFailure: awslambdadestinations.NewSqsDestination(val.DLQ), RetryAttempts: jsii.Number(2),
	})
	val.Rule = awsevents.NewRule(c, jsii.String("RestoreValidationRule"), &awsevents.RuleProps{
		Description: jsii.String("Completed restore testing jobs of the table's plan, for the money-invariant check"),
		EventPattern: &awsevents.EventPattern{
			Source:     jsii.Strings("aws.backup"),
			DetailType: jsii.Strings("Restore Job State Change"),
			Detail: &map[string]any{"status": []string{"COMPLETED"}, "resourceType": []string{"DynamoDB"},
				"restoreTestingPlanArn": []any{r.Plan.AttrRestoreTestingPlanArn()}},
		},
		Targets: &[]awsevents.IRuleTarget{awseventstargets.NewLambdaFunction(val.Function.Function, &awseventstargets.LambdaFunctionProps{
			DeadLetterQueue: val.DLQ, RetryAttempts: jsii.Number(4), MaxEventAge: awscdk.Duration_Hours(jsii.Number(2)),
		})},
	})
	val.DLQAlarm = alarms.QueueNotEmpty(c, "RestoreValidationDLQAlarm", val.DLQ,
		"A completed restore test could not be validated (event or invocation lost): read RestoreValidationDLQ and run "+
			"lambdas/verify on the restored table before AWS Backup deletes it (docs/recovery.md)")
	val.Failed = awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
		Namespace: jsii.String(restorevalidation.Namespace), MetricName: jsii.String(restorevalidation.MetricValidationFailed),
		DimensionsMap: &map[string]*string{restorevalidation.DimensionTableName: table.TableName()},
		Statistic:     jsii.String("Maximum"), Period: awscdk.Duration_Hours(jsii.Number(1)),
	})
	val.FailedAlarm = val.Failed.CreateAlarm(c, jsii.String("RestoreValidationFailedAlarm"), &awscloudwatch.CreateAlarmOptions{
		AlarmDescription: jsii.String("A restore test's table breaks the money invariants (or could not be verified in time): " +
			"the backup holds torn or missing money. The function's log has the report (docs/recovery.md)"),
		Threshold: jsii.Number(1), EvaluationPeriods: jsii.Number(1),
		ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
		// A verdict is one data point a week or a month: no data is no test.
		TreatMissingData: awscloudwatch.TreatMissingData_NOT_BREACHING,
	})
	if watch != nil {
		watch(oncall.RestoreValidation, val.FailedAlarm)
		watch(oncall.RestoreValidationLost, val.DLQAlarm)
	}
}

// suppressValidationNag records why the rules that do not fit the
// validation function are suppressed.
func suppressValidationNag(fn *gofunction.Function, noKey bool) {
	s := []*cdknag.NagPackSuppression{
		{Id: jsii.String("Serverless-LambdaDLQ"), Reason: jsii.String("Its asynchronous invocations' failures go to an on-failure " +
			"destination (RestoreValidationDLQ, alarmed), which Lambda prefers to a dead-letter queue and which keeps the whole event.")},
		{Id: jsii.String("PCI.DSS.321-LambdaInsideVPC"), Reason: jsii.String("The function calls only IAM-authenticated AWS " +
			"endpoints (DynamoDB, AWS Backup, X-Ray) over TLS and no private resource; a VPC would add NAT or endpoint costs " +
			"without narrowing what the role may reach.")},
		{Id: jsii.String("PCI.DSS.321-IAMNoInlinePolicy"), Reason: jsii.String("The policy is the function's own role policy, " +
			"attached to that one role and created and deleted with it; its statements are asserted in test/cdk.")},
	}
	if noKey {
		s = append(s, &cdknag.NagPackSuppression{Id: jsii.String("PCI.DSS.321-CloudWatchLogGroupEncrypted"), Reason: jsii.String(
			"This environment has no customer-managed key (customerManagedKey is off in cdk.json): CloudWatch Logs encrypts the " +
				"group at rest with its own key. Environments with a key (prod) encrypt every log group with it.")})
	}
	cdknag.NagSuppressions_AddResourceSuppressions(fn.Construct, &s, jsii.Bool(true))
}
