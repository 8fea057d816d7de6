package reconciler

import (
	"cmp"
	"fmt"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsscheduler"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"

	"github.com/oncetable/oncetable/constructs/alarms"
	"github.com/oncetable/oncetable/constructs/gofunction"
	"github.com/oncetable/oncetable/constructs/oncall"
	"github.com/oncetable/oncetable/runtime/config"
	"github.com/oncetable/oncetable/runtime/obs"
)

// Defaults of Props.
const (
	DefaultEvery      = 15 * time.Minute
	DefaultStallAfter = 6 * time.Hour
	DefaultMemoryMB   = 1024
)

// Props configures the reconciliation. Only Table is required; the zero
// value of every other field is its default.
type Props struct {
	// Table is the live table. Required.
	Table awsdynamodb.ITableV2
	// TableKey is the table's customer-managed key, used through DynamoDB
	// only; it also encrypts the function's log group. Default: nil.
	TableKey awskms.IKey
	// ModuleDir is the Go module holding lambdas/reconcile. Default:
	// oncetable's own module as the app's build resolves it.
	ModuleDir string
	// Every is the schedule's rate, whole minutes from 5m to 1h, and at
	// least Budget plus 2 minutes so that invocations do not overlap (an
	// overlapping one only counts Skipped). Default: DefaultEvery.
	Every time.Duration
	// Segments is a pass's parallel Scan segments. Default:
	// config.DefaultReconcileSegments.
	Segments int
	// MaxRCU caps the read units per second the scan consumes, so the
	// reconciliation never takes the table's capacity from the flows.
	// Default: config.DefaultReconcileMaxRCU.
	MaxRCU int
	// Budget is how long one invocation scans, 10s to 12m (the function's
	// timeout is 15 minutes: the rest checks the verdict). Default:
	// config.DefaultReconcileBudget.
	Budget time.Duration
	// IdempotencyExpiry is the payments functions' record expiry (the
	// verifier tolerates records about to expire). Default:
	// config.DefaultIdempotencyExpiry.
	IdempotencyExpiry time.Duration
	// StallAfter is how long without a completed pass opens the
	// reconcile-stalled ticket, whole hours from 1h to 24h and at least
	// 4 × Every. A pass reads about MaxRCU × 8 KB per second: a table of
	// 10 GB takes 3.5 hours at 100 RCU. Default: DefaultStallAfter.
	StallAfter time.Duration
	// MemoryMB of the function: a pass's facts are joined in memory
	// (about 100 bytes per money item). Default: DefaultMemoryMB.
	MemoryMB int
	// LogRetentionDays of the function's log group (its violations are
	// logged there). Default: 30.
	LogRetentionDays int
	// DestroyLogs deletes the log group with the stack. Default: retained.
	DestroyLogs bool
	// Monitor receives the alarms and the dashboard row. Default: nil, no
	// alarms (a construct user wires its own from Violations and
	// PassCompleted).
	Monitor gofunction.Monitor
}

func (p Props) withDefaults() Props {
	p.Every = cmp.Or(p.Every, DefaultEvery)
	p.StallAfter = cmp.Or(p.StallAfter, DefaultStallAfter)
	p.MemoryMB = cmp.Or(p.MemoryMB, DefaultMemoryMB)
	return p
}

func (p Props) validate() error {
	budget := cmp.Or(p.Budget, config.DefaultReconcileBudget)
	switch {
	case p.Table == nil:
		return fmt.Errorf("props.Table is required")
	case p.Every%time.Minute != 0 || p.Every < 5*time.Minute || p.Every > time.Hour:
		return fmt.Errorf("props.Every %s must be whole minutes, 5m..1h", p.Every)
	case budget < 10*time.Second || budget > 12*time.Minute:
		return fmt.Errorf("props.Budget %s must be 10s..12m", budget)
	case p.Every < budget+2*time.Minute:
		return fmt.Errorf("props.Every %s must be at least Budget %s plus 2m, or invocations overlap", p.Every, budget)
	case p.StallAfter%time.Hour != 0 || p.StallAfter < time.Hour || p.StallAfter > 24*time.Hour || p.StallAfter < 4*p.Every:
		return fmt.Errorf("props.StallAfter %s must be whole hours, 1h..24h, and at least 4 × Every (%s)", p.StallAfter, p.Every)
	case p.Segments < 0 || p.Segments > config.MaxReconcileSegments || p.MaxRCU < 0 || p.MemoryMB < 512:
		return fmt.Errorf("props.Segments %d must be 0..%d, MaxRCU %d at least 0, MemoryMB %d at least 512",
			p.Segments, config.MaxReconcileSegments, p.MaxRCU, p.MemoryMB)
	}
	return nil
}

// Reconciler is the deployed reconciliation and what it owns.
type Reconciler struct {
	// Construct is the scope of every resource below.
	Construct constructs.Construct
	Function  *gofunction.Function
	// Schedule invokes Function every Props.Every with ScheduleRole,
	// which may invoke that function only.
	Schedule     awsscheduler.CfnSchedule
	ScheduleRole awsiam.Role
	// Violations is the confirmed violations of each finished pass
	// (Maximum per 5 minutes) and PassCompleted the passes that finished
	// (Sum per hour), both for the table.
	Violations    awscloudwatch.Metric
	PassCompleted awscloudwatch.Metric
	// ViolationsAlarm (reconcile-violations, a page) and StalledAlarm
	// (reconcile-stalled, a ticket); nil without Props.Monitor.
	ViolationsAlarm awscloudwatch.Alarm
	StalledAlarm    awscloudwatch.Alarm
}

// New deploys the reconciliation of props.Table into scope. It panics on
// invalid props.
func New(scope constructs.Construct, id string, props *Props) *Reconciler {
	if props == nil {
		props = &Props{}
	}
	p := props.withDefaults()
	if err := p.validate(); err != nil {
		panic("reconciler: " + err.Error())
	}
	c := constructs.NewConstruct(scope, jsii.String(id))
	r := &Reconciler{Construct: c}
	table := *p.Table.TableName()
	r.Function = gofunction.New(c, "Function", &gofunction.Props{
		Entry:            "./lambdas/reconcile",
		ModuleDir:        p.ModuleDir,
		ModulePath:       gofunction.OwnModulePath,
		Description:      "oncetable reconcile: verifies the live table's money invariants, a part of a pass per invocation",
		MemoryMB:         p.MemoryMB,
		Timeout:          15 * time.Minute,
		LogRetentionDays: p.LogRetentionDays,
		DestroyLogs:      p.DestroyLogs,
		LogKey:           p.TableKey,
		Environment: config.Reconcile{Table: table, Segments: p.Segments, MaxRCU: float64(p.MaxRCU), Budget: p.Budget,
			IdempotencyExpiry: p.IdempotencyExpiry}.Environment(),
	})
	grant(r.Function.Role, p.Table, p.TableKey, FunctionAccess())
	r.schedule(c, table, p.Every)
	suppressNag(r.Function, p.TableKey == nil)
	r.metrics(table)
	if p.Monitor != nil {
		r.monitor(p)
	}
	return r
}

// schedule is an L1 schedule with a role of its own: the L2's shared role
// would be granted the function's versions and aliases too (ARN:*).
func (r *Reconciler) schedule(c constructs.Construct, table string, every time.Duration) {
	stack := awscdk.Stack_Of(c)
	r.ScheduleRole = awsiam.NewRole(c, jsii.String("ScheduleRole"), &awsiam.RoleProps{
		Description: jsii.String("EventBridge Scheduler invokes the reconcile function with this role"),
		AssumedBy: awsiam.NewPrincipalWithConditions(awsiam.NewServicePrincipal(jsii.String("scheduler.amazonaws.com"), nil), &map[string]any{
			"StringEquals": map[string]any{"aws:SourceAccount": stack.Account()},
		}),
	})
	r.ScheduleRole.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid: jsii.String("InvokeReconcile"), Actions: jsii.Strings("lambda:InvokeFunction"), Resources: &[]*string{r.Function.Function.FunctionArn()},
	}))
	cdknag.NagSuppressions_AddResourceSuppressions(r.ScheduleRole, &[]*cdknag.NagPackSuppression{{
		Id: jsii.String("PCI.DSS.321-IAMNoInlinePolicy"), Reason: jsii.String("The role's own policy (lambda:InvokeFunction on the " +
			"reconcile function only), attached to that one role and created and deleted with it."),
	}}, jsii.Bool(true))
	r.Schedule = awsscheduler.NewCfnSchedule(c, jsii.String("Schedule"), &awsscheduler.CfnScheduleProps{
		Description:        jsii.String(fmt.Sprintf("oncetable reconcile of %s every %s", table, alarms.Span(every))),
		ScheduleExpression: jsii.String(fmt.Sprintf("rate(%d minutes)", int(every.Minutes()))),
		FlexibleTimeWindow: &awsscheduler.CfnSchedule_FlexibleTimeWindowProperty{Mode: jsii.String("OFF")},
		State:              jsii.String("ENABLED"),
		Target: &awsscheduler.CfnSchedule_TargetProperty{
			Arn: r.Function.Function.FunctionArn(), RoleArn: r.ScheduleRole.RoleArn(),
			// A missed invocation is made up by the next one.
			RetryPolicy: &awsscheduler.CfnSchedule_RetryPolicyProperty{
				MaximumRetryAttempts: jsii.Number(2), MaximumEventAgeInSeconds: jsii.Number(every.Seconds()),
			},
		},
	})
	r.Schedule.Node().AddDependency(r.ScheduleRole)
}

// metrics has no labels: a labelled metric's alarm is rendered as metric
// math, without its namespace and name.
func (r *Reconciler) metrics(table string) {
	dims := &map[string]*string{"Table": jsii.String(table)}
	r.Violations = awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
		Namespace: jsii.String(obs.ReconcileNamespace), MetricName: jsii.String(obs.ReconcileViolations), DimensionsMap: dims,
		Statistic: jsii.String("Maximum"), Period: awscdk.Duration_Minutes(jsii.Number(5)),
	})
	r.PassCompleted = awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
		Namespace: jsii.String(obs.ReconcileNamespace), MetricName: jsii.String(obs.ReconcilePassCompleted), DimensionsMap: dims,
		Statistic: jsii.String("Sum"), Period: awscdk.Duration_Hours(jsii.Number(1)),
	})
}

// monitor adds the two alarms, the function's own and a dashboard row
// graphing every metric of obs.ReconcileNamespace.
func (r *Reconciler) monitor(p Props) {
	r.ViolationsAlarm = r.Violations.CreateAlarm(r.Construct, jsii.String("ViolationsAlarm"), &awscloudwatch.CreateAlarmOptions{
		AlarmDescription: jsii.String("reconcile: a finished pass found money violations that a strongly consistent re-read confirmed " +
			"(a balance that does not match its ledger, a torn transfer, ...): the function's log has one line per violation with its keys."),
		Threshold: jsii.Number(1), EvaluationPeriods: jsii.Number(1), DatapointsToAlarm: jsii.Number(1),
		ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
		// A verdict is one data point per pass: no data is no finished pass.
		TreatMissingData: awscloudwatch.TreatMissingData_NOT_BREACHING,
	})
	hours := int(p.StallAfter / time.Hour)
	r.StalledAlarm = r.PassCompleted.CreateAlarm(r.Construct, jsii.String("StalledAlarm"), &awscloudwatch.CreateAlarmOptions{
		AlarmDescription: jsii.String(fmt.Sprintf("reconcile: no pass over the table completed in %s (scheduled every %s): "+
			"the schedule is off, every invocation fails, or the table outgrew MaxRCU; money is unwatched.", alarms.Span(p.StallAfter), alarms.Span(p.Every))),
		Threshold: jsii.Number(1), EvaluationPeriods: jsii.Number(float64(hours)), DatapointsToAlarm: jsii.Number(float64(hours)),
		ComparisonOperator: awscloudwatch.ComparisonOperator_LESS_THAN_THRESHOLD,
		// An hour without a finished pass has no data: silence is the stall.
		TreatMissingData: awscloudwatch.TreatMissingData_BREACHING,
	})
	p.Monitor.AddAlarm(oncall.ReconcileViolations, r.ViolationsAlarm)
	p.Monitor.AddAlarm(oncall.ReconcileStalled, r.StalledAlarm)
	r.Function.Monitor(p.Monitor, &gofunction.AlarmProps{Name: "reconcile", ErrorCount: 2, Period: time.Hour})

	var graphed []awscloudwatch.IMetric
	for _, m := range obs.Catalogue() {
		if m.Namespace == obs.ReconcileNamespace {
			graphed = append(graphed, awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
				Namespace: jsii.String(m.Namespace), MetricName: jsii.String(m.Name),
				DimensionsMap: &map[string]*string{"Table": p.Table.TableName()},
				Statistic:     jsii.String("Sum"), Period: awscdk.Duration_Hours(jsii.Number(1)), Label: jsii.String(m.Name),
			}))
		}
	}
	// The alarms' status is in the table group's row (alarms.Operations).
	p.Monitor.AddWidgets(awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
		Title: jsii.String(fmt.Sprintf("Reconciliation (%s, per hour)", obs.ReconcileNamespace)), Width: jsii.Number(24), Left: &graphed,
	}))
}

// grant gives the role acc: reads on the table, writes on the control
// partitions only.
func grant(role awsiam.Role, table awsdynamodb.ITableV2, key awskms.IKey, acc Access) {
	role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid: jsii.String("ReadTable"), Actions: jsii.Strings(acc.ReadActions...), Resources: &[]*string{table.TableArn()},
	}))
	role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid: jsii.String("WriteReconcileControlItems"), Actions: jsii.Strings(acc.WriteActions...), Resources: &[]*string{table.TableArn()},
		Conditions: &map[string]any{"ForAllValues:StringLike": map[string]any{"dynamodb:LeadingKeys": acc.WritePartitions}},
	}))
	if key != nil {
		region := awscdk.Stack_Of(role).Region()
		role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Sid:       jsii.String("TableKeyViaDynamoDB"),
			Actions:   jsii.Strings("kms:Decrypt", "kms:DescribeKey", "kms:Encrypt", "kms:GenerateDataKey"),
			Resources: &[]*string{key.KeyArn()},
			Conditions: &map[string]any{
				"StringEquals": map[string]any{"kms:ViaService": "dynamodb." + *region + ".amazonaws.com"},
			},
		}))
	}
}

// suppressNag records why the rules that do not fit the function are
// suppressed.
func suppressNag(fn *gofunction.Function, noKey bool) {
	s := []*cdknag.NagPackSuppression{
		{Id: jsii.String("Serverless-LambdaDLQ"), Reason: jsii.String("Invoked by its schedule only, with an empty event: a failed " +
			"invocation loses nothing (the next resumes from the checkpoint in the table), and reconcile-stalled opens a ticket when no pass completes.")},
		{Id: jsii.String("PCI.DSS.321-LambdaInsideVPC"), Reason: jsii.String("The function calls only IAM-authenticated AWS " +
			"endpoints (DynamoDB, CloudWatch Logs, X-Ray) over TLS and no private resource; a VPC would add NAT or endpoint costs " +
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
