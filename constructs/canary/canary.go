package canary

import (
	"cmp"
	"fmt"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsscheduler"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"

	"github.com/oncetable/oncetable/constructs/alarms"
	"github.com/oncetable/oncetable/constructs/gofunction"
	"github.com/oncetable/oncetable/constructs/oncall"
	probe "github.com/oncetable/oncetable/runtime/canary"
	"github.com/oncetable/oncetable/runtime/obs"
)

// Defaults of Props.
const (
	DefaultEvery  = 5 * time.Minute
	DefaultUserID = "canary"
)

// Props configures the canary. URL, InvokePolicy and Monitor are
// required; the zero value of every other field is its default.
type Props struct {
	// URL is the payments API's invoke URL (paymentsapi.PaymentsAPI.URL).
	URL *string
	// InvokePolicy lets the function's role call the API's routes with
	// IAM (paymentsapi's OperatorInvoke: the canary credits, which only
	// the back office may). The role must also be one of the API's IAM
	// operators (paymentsapi.PaymentsAPI.AddIAMOperator).
	InvokePolicy awsiam.IManagedPolicy
	// Monitor receives the alarm and the dashboard row. Required.
	Monitor alarms.Monitor
	// Every is the schedule's rate, whole minutes from 1 to 15.
	// Default: DefaultEvery.
	Every time.Duration
	// UserID is the canary user. Default: DefaultUserID.
	UserID string
	// ModuleDir is the Go module holding lambdas/canary. Default:
	// oncetable's own module as the app's build resolves it.
	ModuleDir string
	// LogKey encrypts the function's log group. Default: nil.
	LogKey awskms.IKey
	// LogRetentionDays of the function's log group. Default: 30.
	LogRetentionDays int
	// DestroyLogs deletes the log group with the stack. Default: retained.
	DestroyLogs bool
}

func (p Props) withDefaults() Props {
	p.Every = cmp.Or(p.Every, DefaultEvery)
	p.UserID = cmp.Or(p.UserID, DefaultUserID)
	return p
}

func (p Props) validate() error {
	switch {
	case p.URL == nil || p.InvokePolicy == nil || p.Monitor == nil:
		return fmt.Errorf("props.URL, props.InvokePolicy and props.Monitor are required")
	case p.Every%time.Minute != 0 || p.Every < time.Minute || p.Every > 15*time.Minute:
		return fmt.Errorf("props.Every %s must be whole minutes, 1m..15m", p.Every)
	}
	return nil
}

// Canary is the deployed probe and what it owns.
type Canary struct {
	Construct constructs.Construct
	Function  *gofunction.Function
	// Schedule invokes Function every Props.Every with ScheduleRole.
	Schedule     awsscheduler.CfnSchedule
	ScheduleRole awsiam.Role
	// Success is the runs' Success (Minimum per Props.Every).
	Success awscloudwatch.Metric
	// Alarm pages (canary-failed) when a run fails or none reports.
	Alarm awscloudwatch.Alarm
}

// New deploys the canary into scope. It panics on invalid props.
func New(scope constructs.Construct, id string, props *Props) *Canary {
	if props == nil {
		props = &Props{}
	}
	p := props.withDefaults()
	if err := p.validate(); err != nil {
		panic("canary: " + err.Error())
	}
	c := constructs.NewConstruct(scope, jsii.String(id))
	k := &Canary{Construct: c}
	k.Function = gofunction.New(c, "Function", &gofunction.Props{
		Entry:            "./lambdas/canary",
		ModuleDir:        p.ModuleDir,
		ModulePath:       gofunction.OwnModulePath,
		Description:      "oncetable canary: moves money on the canary user through the payments API and back",
		MemoryMB:         256,
		Timeout:          time.Minute,
		LogRetentionDays: p.LogRetentionDays,
		DestroyLogs:      p.DestroyLogs,
		LogKey:           p.LogKey,
		Environment:      probe.Config{URL: *p.URL, UserID: p.UserID}.Environment(),
	})
	k.Function.Role.AddManagedPolicy(p.InvokePolicy)
	k.schedule(c, p.Every)
	suppressNag(k.Function, p.LogKey == nil)
	k.monitor(p)
	return k
}

// schedule is an L1 schedule with a role of its own, as the reconciler's.
func (k *Canary) schedule(c constructs.Construct, every time.Duration) {
	stack := awscdk.Stack_Of(c)
	k.ScheduleRole = awsiam.NewRole(c, jsii.String("ScheduleRole"), &awsiam.RoleProps{
		Description: jsii.String("EventBridge Scheduler invokes the canary function with this role"),
		AssumedBy: awsiam.NewPrincipalWithConditions(awsiam.NewServicePrincipal(jsii.String("scheduler.amazonaws.com"), nil), &map[string]any{
			"StringEquals": map[string]any{"aws:SourceAccount": stack.Account()},
		}),
	})
	k.ScheduleRole.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid: jsii.String("InvokeCanary"), Actions: jsii.Strings("lambda:InvokeFunction"), Resources: &[]*string{k.Function.Function.FunctionArn()},
	}))
	cdknag.NagSuppressions_AddResourceSuppressions(k.ScheduleRole, &[]*cdknag.NagPackSuppression{{
		Id: jsii.String("PCI.DSS.321-IAMNoInlinePolicy"), Reason: jsii.String("The role's own policy (lambda:InvokeFunction on the " +
			"canary function only), attached to that one role and created and deleted with it."),
	}}, jsii.Bool(true))
	k.Schedule = awsscheduler.NewCfnSchedule(c, jsii.String("Schedule"), &awsscheduler.CfnScheduleProps{
		Description:        jsii.String(fmt.Sprintf("oncetable canary every %s", alarms.Span(every))),
		ScheduleExpression: jsii.String(fmt.Sprintf("rate(%d minutes)", int(every.Minutes()))),
		FlexibleTimeWindow: &awsscheduler.CfnSchedule_FlexibleTimeWindowProperty{Mode: jsii.String("OFF")},
		State:              jsii.String("ENABLED"),
		Target: &awsscheduler.CfnSchedule_TargetProperty{
			Arn: k.Function.Function.FunctionArn(), RoleArn: k.ScheduleRole.RoleArn(),
			// A probe late by a whole period is no longer the probe of
			// that period: the next one runs instead.
			RetryPolicy: &awsscheduler.CfnSchedule_RetryPolicyProperty{
				MaximumRetryAttempts: jsii.Number(0), MaximumEventAgeInSeconds: jsii.Number(every.Seconds()),
			},
		},
	})
	k.Schedule.Node().AddDependency(k.ScheduleRole)
}

// monitor pages when 2 of 3 periods of Every had a failed run or none at
// all: missing data breaches, since a canary that stops reporting is the
// very condition.
func (k *Canary) monitor(p Props) {
	period := awscdk.Duration_Minutes(jsii.Number(p.Every.Minutes()))
	k.Success = awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
		Namespace: jsii.String(obs.CanaryNamespace), MetricName: jsii.String(obs.CanarySuccess),
		DimensionsMap: &map[string]*string{"Canary": jsii.String(p.UserID)}, Statistic: jsii.String("Minimum"), Period: period,
	})
	k.Alarm = k.Success.CreateAlarm(k.Construct, jsii.String("FailedAlarm"), &awscloudwatch.CreateAlarmOptions{
		AlarmDescription: jsii.String(fmt.Sprintf("canary: in 2 of 3 periods of %s a run of the canary (credit, order, charge, settle, "+
			"refund, debit on user %s through the API) failed or none reported: callers cannot move money, or the probe is down.", alarms.Span(p.Every), p.UserID)),
		Threshold: jsii.Number(1), EvaluationPeriods: jsii.Number(3), DatapointsToAlarm: jsii.Number(2),
		ComparisonOperator: awscloudwatch.ComparisonOperator_LESS_THAN_THRESHOLD,
		TreatMissingData:   awscloudwatch.TreatMissingData_BREACHING,
	})
	p.Monitor.AddAlarm(oncall.CanaryFailed, k.Alarm)
	k.Function.Monitor(p.Monitor, &gofunction.AlarmProps{Name: "canary", ErrorCount: 2, Period: time.Hour})
	p.Monitor.AddWidgets(awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
		Title: jsii.String(fmt.Sprintf("Canary (%s %s, minimum per %s)", obs.CanaryNamespace, obs.CanarySuccess, alarms.Span(p.Every))),
		Width: jsii.Number(24), Left: &[]awscloudwatch.IMetric{k.Success},
		LeftAnnotations: &[]*awscloudwatch.HorizontalAnnotation{{Label: jsii.String("success"), Value: jsii.Number(1)}},
	}))
}

// suppressNag records why the rules that do not fit the function are
// suppressed.
func suppressNag(fn *gofunction.Function, noKey bool) {
	s := []*cdknag.NagPackSuppression{
		{Id: jsii.String("Serverless-LambdaDLQ"), Reason: jsii.String("Invoked by its schedule only, with an empty event: a failed " +
			"run is its metric's 0, and the next run probes again; nothing is lost.")},
		{Id: jsii.String("PCI.DSS.321-LambdaInsideVPC"), Reason: jsii.String("The function calls the payments API's public " +
			"endpoint, as a caller does, over TLS with SigV4; a VPC would add NAT costs without narrowing what it reaches.")},
		{Id: jsii.String("PCI.DSS.321-IAMNoInlinePolicy"), Reason: jsii.String("The policy is the function's own role policy, " +
			"attached to that one role and created and deleted with it.")},
	}
	if noKey {
		s = append(s, &cdknag.NagPackSuppression{Id: jsii.String("PCI.DSS.321-CloudWatchLogGroupEncrypted"), Reason: jsii.String(
			"This environment has no customer-managed key (customerManagedKey is off in cdk.json): CloudWatch Logs encrypts the " +
				"group at rest with its own key. Environments with a key (prod) encrypt every log group with it.")})
	}
	cdknag.NagSuppressions_AddResourceSuppressions(fn.Construct, &s, jsii.Bool(true))
}
