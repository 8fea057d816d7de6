package backup

import (
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsbackup"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatchactions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsevents"
	"github.com/aws/aws-cdk-go/awscdk/v2/awseventstargets"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"

	"github.com/oncetable/oncetable/constructs/alarms"
	"github.com/oncetable/oncetable/constructs/oncall"
)

// Schedule says how often a rule runs. The rules of a plan start in
// different hours (StartHour), so no two of them compete for the table:
// AWS Backup runs one job per resource at a time.
type Schedule string

// Schedules.
const (
	Daily   Schedule = "Daily"   // 05:00 UTC
	Weekly  Schedule = "Weekly"  // Saturdays, 07:00 UTC
	Monthly Schedule = "Monthly" // on the 1st, 09:00 UTC
)

// StartHour is the hour (UTC) at which a rule of the schedule starts; its
// start window is one hour, so each rule's jobs start before the next
// rule's hour.
func StartHour(s Schedule) int {
	return map[Schedule]int{Daily: 5, Weekly: 7, Monthly: 9}[s]
}

// Rule is one backup rule.
type Rule struct {
	Schedule      Schedule
	RetentionDays int
	// CopyRetentionDays keeps this rule's copy in TableBackupProps'
	// CopyVaultARN that long; new(0) copies nothing of this rule. Default:
	// nil, TableBackupProps.CopyRetentionDays (no copy when that is 0).
	CopyRetentionDays *int
}

// LockMode is the Vault Lock mode.
type LockMode string

// Vault Lock modes.
const (
	// Governance lets users with the right IAM permissions remove the lock.
	Governance LockMode = "governance"
	// Compliance becomes immutable after ChangeableForDays: nobody can
	// delete recovery points early or remove the lock, not even the root
	// user or AWS.
	Compliance LockMode = "compliance"
)

// VaultLock configures Vault Lock.
type VaultLock struct {
	Mode LockMode
	// MinRetentionDays and MaxRetentionDays bound the retention of every
	// recovery point in the vault; each rule's retention must lie within.
	MinRetentionDays, MaxRetentionDays int
	// ChangeableForDays is the compliance-mode cooling-off period, at least
	// 3 days; 0 in governance mode.
	ChangeableForDays int
}

// TableBackupProps configures the backups. The zero value of each field is
// its default, so nil props and &TableBackupProps{} are the same.
type TableBackupProps struct {
	// Rules are the backup rules. Default: DefaultRules.
	Rules []Rule

	// VaultLock locks the vault. Default: governance mode with retention
	// bounds of 1 to 400 days.
	VaultLock *VaultLock

	// AlarmTopic receives the events of failed, aborted and expired backup,
	// restore and copy jobs of the account and region (their job IDs and
	// messages: the stack passes the ticket topic) and, without Monitor,
	// the alarms too. Default: nil, no failed-jobs rule.
	AlarmTopic awssns.ITopic

	// Monitor receives the alarms by kind (a failed job, no completed
	// backup, an undelivered failure event, a failed or lost restore
	// validation)
	// and the backup widgets (*alarms.Operations). Default: nil, the
	// alarms go to AlarmTopic.
	Monitor alarms.Monitor

	// CopyVaultARN copies recovery points to that vault (a DRVault in
	// another region, usually): each rule's with its CopyRetentionDays, or
	// with CopyRetentionDays. Default: empty, no copy.
	CopyVaultARN      string
	CopyRetentionDays int

	// MissingBackupHours alarms on AlarmTopic when no backup job of the
	// vault has completed for that long: a plan that silently stops.
	// Default: 26 (a day and a bit, for the daily rule); 0 with no Daily
	// rule means 8 days, or 32 with only a Monthly rule.
	MissingBackupHours int

	// RestoreTest restores the latest recovery point on a schedule and
	// validates it. Default: nil, no restore testing.
	RestoreTest *RestoreTest

	// EncryptionKey encrypts the vault. Default: a new key with rotation.
	EncryptionKey awskms.IKey

	// VaultName names the vault. Default: CloudFormation names it.
	VaultName string

	// RemovalPolicy applies to the vault, its key and FailedJobsDLQ.
	// Default: RETAIN_ON_UPDATE_OR_DELETE (kept on update and delete, removed when the first create fails, so a retry does not meet it).
	RemovalPolicy awscdk.RemovalPolicy
}

// DefaultRules are daily backups kept 35 days, weekly kept 91 days and
// monthly kept 365 days.
var DefaultRules = []Rule{{Schedule: Daily, RetentionDays: 35}, {Schedule: Weekly, RetentionDays: 91}, {Schedule: Monthly, RetentionDays: 365}}

// DefaultVaultLock is a governance-mode lock with bounds of 1 to 400 days.
var DefaultVaultLock = VaultLock{Mode: Governance, MinRetentionDays: 1, MaxRetentionDays: 400}

// TableBackup is the vault, plan and selection protecting one table.
type TableBackup struct {
	// Construct is the scope holding every resource below. It is a field, not
	// embedded: jsii rejects a Go struct that embeds a construct as a scope.
	Construct constructs.Construct
	Vault     awsbackup.BackupVault
	Key       awskms.IKey
	Plan      awsbackup.BackupPlan
	Selection awsbackup.BackupSelection
	// FailedJobs routes failed backup and copy jobs to the alarm topic,
	// FailedRestores failed restore jobs (restore tests included); both
	// nil without AlarmTopic.
	FailedJobs     awsevents.Rule
	FailedRestores awsevents.Rule
	// FailedJobsDLQ keeps the failure events the rules could not deliver to
	// the topic (14 days), and FailedJobsDLQAlarm alarms on the first one;
	// both nil without AlarmTopic.
	FailedJobsDLQ      awssqs.Queue
	FailedJobsDLQAlarm awscloudwatch.Alarm
	// JobFailedAlarm fires when the FailedJobs or FailedRestores rule matched an event in
	// the last 5 minutes; nil without AlarmTopic.
	JobFailedAlarm awscloudwatch.Alarm
	// MissingBackupAlarm fires when no backup job has completed for
	// MissingBackupHours; nil without AlarmTopic and Monitor.
	MissingBackupAlarm awscloudwatch.Alarm

	topic   awssns.ITopic
	monitor alarms.Monitor
	// RestoreTesting is the restore testing plan and its selection; nil
	// without RestoreTest.
	RestoreTesting *RestoreTesting
}

// NewTableBackup backs up table. It panics on props that AWS Backup would
// reject at deploy time, such as a retention outside the lock's bounds.
func NewTableBackup(scope constructs.Construct, id string, table awsdynamodb.ITableV2, props *TableBackupProps) *TableBackup {
	if props == nil {
		props = &TableBackupProps{}
	}
	rules := props.Rules
	if rules == nil {
		rules = DefaultRules
	}
	lock := DefaultVaultLock
	if props.VaultLock != nil {
		lock = *props.VaultLock
	}
	if err := validate(rules, lock, props); err != nil {
		panic("backup: " + err.Error())
	}
	removal := props.RemovalPolicy
	if removal == "" {
		removal = awscdk.RemovalPolicy_RETAIN_ON_UPDATE_OR_DELETE
	}

	c := constructs.NewConstruct(scope, jsii.String(id))
	b := &TableBackup{Construct: c, Key: props.EncryptionKey, topic: props.AlarmTopic, monitor: props.Monitor}
	if b.Key == nil {
		b.Key = awskms.NewKey(c, jsii.String("VaultKey"), &awskms.KeyProps{
			Description:       jsii.String("Encrypts the oncetable backup vault"),
			EnableKeyRotation: jsii.Bool(true),
			RemovalPolicy:     removal,
		})
	}

	lockConfig := lockConfiguration(lock)
	var vaultName *string
	if props.VaultName != "" {
		vaultName = jsii.String(props.VaultName)
	}
	b.Vault = awsbackup.NewBackupVault(c, jsii.String("Vault"), &awsbackup.BackupVaultProps{
		BackupVaultName:   vaultName,
		EncryptionKey:     b.Key,
		LockConfiguration: lockConfig,
		RemovalPolicy:     removal,
	})

	var dest awsbackup.IBackupVault
	if props.CopyVaultARN != "" {
		dest = awsbackup.BackupVault_FromBackupVaultArn(c, jsii.String("CopyVault"), jsii.String(props.CopyVaultARN))
	}
	planRules := make([]awsbackup.BackupPlanRule, 0, len(rules))
	for _, r := range rules {
		var copyActions *[]*awsbackup.BackupPlanCopyActionProps
		days := props.CopyRetentionDays
		if r.CopyRetentionDays != nil {
			days = *r.CopyRetentionDays
		}
		if dest != nil && days > 0 {
			copyActions = &[]*awsbackup.BackupPlanCopyActionProps{{
				DestinationBackupVault: dest,
				DeleteAfter:            awscdk.Duration_Days(jsii.Number(days)),
			}}
		}
		planRules = append(planRules, awsbackup.NewBackupPlanRule(&awsbackup.BackupPlanRuleProps{
			RuleName:           jsii.String(string(r.Schedule)),
			ScheduleExpression: schedule(r.Schedule),
			StartWindow:        awscdk.Duration_Hours(jsii.Number(1)),
			CompletionWindow:   awscdk.Duration_Hours(jsii.Number(8)),
			DeleteAfter:        awscdk.Duration_Days(jsii.Number(r.RetentionDays)),
			CopyActions:        copyActions,
		}))
	}
	b.Plan = awsbackup.NewBackupPlan(c, jsii.String("Plan"), &awsbackup.BackupPlanProps{
		// Plan names are unique per account and region, like stack names.
		BackupPlanName:  jsii.String(*awscdk.Stack_Of(c).StackName() + "-" + id),
		BackupVault:     b.Vault,
		BackupPlanRules: &planRules,
	})
	b.Selection = b.Select("Table", table)

	if props.AlarmTopic != nil {
		b.failedJobs(c, id, props.AlarmTopic)
		b.FailedJobsDLQ.ApplyRemovalPolicy(removal)
	}
	if props.AlarmTopic != nil || props.Monitor != nil {
		b.MissingBackupAlarm = b.missingBackups(c, missingBackupHours(rules, props.MissingBackupHours))
	}
	if props.RestoreTest != nil {
		b.RestoreTesting = newRestoreTesting(c, b.Vault, table, *props.RestoreTest)
		var watch func(oncall.Kind, awscloudwatch.Alarm)
		if props.AlarmTopic != nil || props.Monitor != nil {
			watch = b.watch
		}
		b.RestoreTesting.validation(c, table, props.RestoreTest.Validation, watch, removal)
	}
	b.widgets(table)
	return b
}

// watch sends a's transitions to the monitor under kind, or without one
// to the alarm topic.
// Select adds table to the plan under id, restores allowed: a second
// table of the stack (a lease table) is backed up with the first.
func (b *TableBackup) Select(id string, table awsdynamodb.ITableV2) awsbackup.BackupSelection {
	sel := b.Plan.AddSelection(jsii.String(id), &awsbackup.BackupSelectionOptions{
		Resources:     &[]awsbackup.BackupResource{awsbackup.BackupResource_FromDynamoDbTable(table)},
		AllowRestores: jsii.Bool(true),
	})
	cdknag.NagSuppressions_AddResourceSuppressions(sel, &[]*cdknag.NagPackSuppression{{
		Id: jsii.String("AwsSolutions-IAM4"),
		Reason: jsii.String("Only AWS Backup assumes this selection role. AWSBackupServiceRolePolicyForBackup and " +
			"...ForRestores are the AWS-maintained policies that follow every permission Backup needs to back up and " +
			"restore DynamoDB; a hand-written copy would break backups or restores silently when that set changes."),
		AppliesTo: &[]any{
			"Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSBackupServiceRolePolicyForBackup",
			"Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSBackupServiceRolePolicyForRestores",
		},
	}}, jsii.Bool(true))
	return sel
}

func (b *TableBackup) watch(kind oncall.Kind, a awscloudwatch.Alarm) {
	if b.monitor != nil {
		b.monitor.AddAlarm(kind, a)
		return
	}
	action := awscloudwatchactions.NewSnsAction(b.topic)
	a.AddAlarmAction(action)
	a.AddOkAction(action)
}

// widgets graphs the vault's jobs on the monitor's dashboard.
func (b *TableBackup) widgets(table awsdynamodb.ITableV2) {
	if b.monitor == nil {
		return
	}
	hour := awscdk.Duration_Hours(jsii.Number(1))
	vault := func(name, label string) awscloudwatch.IMetric {
		return awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
			Namespace: jsii.String("AWS/Backup"), MetricName: jsii.String(name),
			DimensionsMap: &map[string]*string{"BackupVaultName": b.Vault.BackupVaultName()},
			Statistic:     jsii.String("Sum"), Period: hour, Label: jsii.String(label),
		})
	}
	left := []awscloudwatch.IMetric{
		vault("NumberOfBackupJobsCompleted", "backup jobs completed"), vault("NumberOfBackupJobsFailed", "backup jobs failed"),
		vault("NumberOfCopyJobsCompleted", "copy jobs completed"), vault("NumberOfCopyJobsFailed", "copy jobs failed"),
	}
	right := []awscloudwatch.IMetric{}
	if b.FailedJobs != nil {
		right = append(right, b.failedJobsMatched(hour))
	}
	if r := b.RestoreTesting; r != nil && r.Validation != nil {
		right = append(right, r.Validation.Failed)
	}
	row := []awscloudwatch.IWidget{awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
		Title: jsii.String("Backups: jobs of the vault per hour; failed jobs of the account (any type) and restore validations failed"), Width: jsii.Number(16),
		Left: &left, Right: &right,
	})}
	if b.FailedJobsDLQ != nil {
		row = append(row, alarms.QueueDepthWidget("Backups: undelivered failure events (FailedJobsDLQ)", b.FailedJobsDLQ))
	}
	b.monitor.AddWidgets(row...)
}

// failedJobsMatched is the number of failure events the FailedJobs and
// FailedRestores rules matched (AWS/Events TriggeredRules of rules of the
// default bus), summed.
func (b *TableBackup) failedJobsMatched(period awscdk.Duration) awscloudwatch.IMetric {
	matched := func(rule awsevents.Rule) awscloudwatch.IMetric {
		return awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
			Namespace: jsii.String("AWS/Events"), MetricName: jsii.String("TriggeredRules"),
			DimensionsMap: &map[string]*string{"RuleName": rule.RuleName()},
			Statistic:     jsii.String("Sum"), Period: period,
		})
	}
	return awscloudwatch.NewMathExpression(&awscloudwatch.MathExpressionProps{
		Expression:   jsii.String("FILL(jobs, 0) + FILL(restores, 0)"),
		UsingMetrics: &map[string]awscloudwatch.IMetric{"jobs": matched(b.FailedJobs), "restores": matched(b.FailedRestores)},
		Period:       period,
		Label:        jsii.String("failed, aborted or expired jobs"),
	})
}

// jobFailedAlarm fires on one failed job in 5 minutes; EventBridge
// publishes TriggeredRules only for matches, so no data does not breach.
func (b *TableBackup) jobFailedAlarm(c constructs.Construct) awscloudwatch.Alarm {
	return awscloudwatch.NewAlarm(c, jsii.String("JobFailedAlarm"), &awscloudwatch.AlarmProps{
		AlarmDescription: jsii.String("An AWS Backup backup, copy or restore job (restore tests too) of this account and region failed, aborted or expired; the event with its job ID went to the failed-jobs topic."),
		Metric:           b.failedJobsMatched(awscdk.Duration_Minutes(jsii.Number(5))),
		Threshold:        jsii.Number(1), EvaluationPeriods: jsii.Number(1), DatapointsToAlarm: jsii.Number(1),
		ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
		TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
	})
}

// failedStates are the final states of a job that did not succeed.
var failedStates = []string{"FAILED", "ABORTED", "EXPIRED"}

// failedJobsPatterns are the event patterns of the FailedJobs and
// FailedRestores rules. AWS Backup's Backup and Copy Job State Change
// events carry the job's state in detail.state, its Restore Job State
// Change events in detail.status (the AWS Backup EventBridge page names
// both), so restores need a rule of their own.
var failedJobsPatterns = map[string]*awsevents.EventPattern{
	"FailedJobs": {
		Source:     jsii.Strings("aws.backup"),
		DetailType: jsii.Strings("Backup Job State Change", "Copy Job State Change"),
		Detail:     &map[string]any{"state": failedStates},
	},
	"FailedRestores": {
		Source:     jsii.Strings("aws.backup"),
		DetailType: jsii.Strings("Restore Job State Change"),
		Detail:     &map[string]any{"status": failedStates},
	},
}

// failedJobs routes failed, aborted and expired jobs to the topic. The
// rules publish through a role that only EventBridge, for these rules of
// this account, may assume, instead of a topic policy for
// events.amazonaws.com that any account's rule could use. The rules are
// named so the role's trust policy can name their ARNs without a
// dependency cycle.
func (b *TableBackup) failedJobs(c constructs.Construct, id string, topic awssns.ITopic) {
	stack := awscdk.Stack_Of(c)
	descriptions := map[string]string{
		"FailedJobs":     "Failed, aborted or expired AWS Backup backup and copy jobs (detail.state)",
		"FailedRestores": "Failed, aborted or expired AWS Backup restore jobs, restore tests included (detail.status)",
	}
	names := map[string]string{}
	var arns []*string
	for _, rule := range []string{"FailedJobs", "FailedRestores"} {
		names[rule] = *stack.StackName() + "-" + id + "-" + rule
		arns = append(arns, stack.FormatArn(&awscdk.ArnComponents{
			Service: jsii.String("events"), Resource: jsii.String("rule"), ResourceName: jsii.String(names[rule]),
			ArnFormat: awscdk.ArnFormat_SLASH_RESOURCE_NAME,
		}))
	}
	role := awsiam.NewRole(c, jsii.String("FailedJobsRole"), &awsiam.RoleProps{
		Description: jsii.String("EventBridge publishes failed AWS Backup jobs to the alarm topic with this role"),
		AssumedBy: awsiam.NewPrincipalWithConditions(awsiam.NewServicePrincipal(jsii.String("events.amazonaws.com"), nil), &map[string]any{
			"StringEquals": map[string]any{"aws:SourceAccount": stack.Account(), "aws:SourceArn": arns},
		}),
	})
	dlq := b.failedJobsDLQ(c, topic)
	rules := map[string]awsevents.Rule{}
	for _, rule := range []string{"FailedJobs", "FailedRestores"} {
		rules[rule] = awsevents.NewRule(c, jsii.String(rule), &awsevents.RuleProps{
			RuleName:     jsii.String(names[rule]),
			Description:  jsii.String(descriptions[rule]),
			EventPattern: failedJobsPatterns[rule],
			Targets: &[]awsevents.IRuleTarget{awseventstargets.NewSnsTopic(topic, &awseventstargets.SnsTopicProps{
				DeadLetterQueue:    dlq,
				AuthorizeUsingRole: jsii.Bool(true),
				Role:               role,
			})},
		})
	}
	b.FailedJobs, b.FailedRestores = rules["FailedJobs"], rules["FailedRestores"]
	// The page: the events go to the topic with their details, but an alarm
	// carries the runbook link and an ALARM/OK state. A failed job is a
	// lasting condition (AWS Backup does not retry it: the table has no
	// new recovery point until someone acts), so one match fires it.
	b.JobFailedAlarm = b.jobFailedAlarm(c)
	b.watch(oncall.BackupJobFailed, b.JobFailedAlarm)
	// After the targets' binding, which wrote the role's policy.
	cdknag.NagSuppressions_AddResourceSuppressions(role, &[]*cdknag.NagPackSuppression{
		{Id: jsii.String("PCI.DSS.321-IAMNoInlinePolicy"), Reason: jsii.String("The role's own policy (sns:Publish on the alarm " +
			"topic, and its key) is attached to this one role, which only EventBridge may assume for these rules of this account; " +
			"a managed policy could be attached to other principals.")},
		{Id: jsii.String("AwsSolutions-IAM5"), Reason: jsii.String("Publishing to a KMS-encrypted topic needs kms:GenerateDataKey* " +
			"(SNS documents the wildcard), on the topic's key only."), AppliesTo: &[]any{"Action::kms:GenerateDataKey*"}},
	}, jsii.Bool(true))
}

// missingBackupHours is the silence after which no completed backup alarms:
// the longest gap between two runs of the most frequent rule, plus two hours.
func missingBackupHours(rules []Rule, set int) int {
	if set > 0 {
		return set
	}
	hours := 0
	for _, r := range rules {
		h := map[Schedule]int{Daily: 26, Weekly: 8*24 + 2, Monthly: 31*24 + 2}[r.Schedule]
		if hours == 0 || h < hours {
			hours = h
		}
	}
	return hours
}

// missingBackups alarms when the vault has seen no completed backup job for
// hours: one-hour periods, every one of them empty (missing data breaches:
// AWS Backup publishes nothing when nothing completes).
func (b *TableBackup) missingBackups(c constructs.Construct, hours int) awscloudwatch.Alarm {
	period := 1
	for hours/period > 24*7 { // CloudWatch evaluates at most 7 days of hourly periods
		period++
	}
	evaluations := (hours + period - 1) / period
	completed := awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
		Namespace:     jsii.String("AWS/Backup"),
		MetricName:    jsii.String("NumberOfBackupJobsCompleted"),
		DimensionsMap: &map[string]*string{"BackupVaultName": b.Vault.BackupVaultName()},
		Statistic:     jsii.String("Sum"),
		Period:        awscdk.Duration_Hours(jsii.Number(period)),
	})
	alarm := completed.CreateAlarm(c, jsii.String("MissingBackupAlarm"), &awscloudwatch.CreateAlarmOptions{
		AlarmDescription: jsii.String(fmt.Sprintf("No AWS Backup job of the table's vault has completed for %d hours: "+
			"the backup plan has stopped running or every job fails before completing.", evaluations*period)),
		Threshold:          jsii.Number(1),
		EvaluationPeriods:  jsii.Number(evaluations),
		DatapointsToAlarm:  jsii.Number(evaluations),
		ComparisonOperator: awscloudwatch.ComparisonOperator_LESS_THAN_THRESHOLD,
		TreatMissingData:   awscloudwatch.TreatMissingData_BREACHING,
	})
	b.watch(oncall.BackupMissing, alarm)
	return alarm
}

// failedJobsDLQ is the dead-letter queue of the failed-jobs rule's target:
// a failed backup whose notification cannot be delivered must not vanish.
// The queue alarms on the topic as soon as it holds a message; the alarm
// goes through CloudWatch, not EventBridge, so it still reaches the topic
// when the rule's delivery is what fails.
func (b *TableBackup) failedJobsDLQ(c constructs.Construct, topic awssns.ITopic) awssqs.IQueue {
	b.FailedJobsDLQ = alarms.DeadLetterQueue(c, "FailedJobsDLQ",
		"This queue is itself a dead-letter queue: that of the FailedJobs EventBridge rule's target, read by people after its alarm.")
	b.FailedJobsDLQAlarm = alarms.QueueNotEmpty(c, "FailedJobsDLQAlarm", b.FailedJobsDLQ,
		"A failed AWS Backup job could not be reported through EventBridge (the job-failed alarm still fires); read the FailedJobsDLQ queue.")
	b.watch(oncall.BackupEventsUndeliver, b.FailedJobsDLQAlarm)
	return b.FailedJobsDLQ
}

func schedule(s Schedule) awsevents.Schedule {
	cron := &awsevents.CronOptions{Minute: jsii.String("0"), Hour: jsii.String(fmt.Sprint(StartHour(s)))}
	switch s {
	case Weekly:
		cron.WeekDay = jsii.String("SAT")
	case Monthly:
		cron.Day = jsii.String("1")
	}
	return awsevents.Schedule_Cron(cron)
}

func validate(rules []Rule, lock VaultLock, props *TableBackupProps) error {
	switch lock.Mode {
	case Governance:
		if lock.ChangeableForDays != 0 {
			return fmt.Errorf("governance mode takes no ChangeableForDays")
		}
	case Compliance:
		if lock.ChangeableForDays < 3 {
			return fmt.Errorf("compliance mode needs ChangeableForDays >= 3, got %d", lock.ChangeableForDays)
		}
	default:
		return fmt.Errorf("unknown vault lock mode %q", lock.Mode)
	}
	if lock.MinRetentionDays < 1 || lock.MaxRetentionDays < lock.MinRetentionDays {
		return fmt.Errorf("vault lock needs 1 <= MinRetentionDays <= MaxRetentionDays, got %d..%d", lock.MinRetentionDays, lock.MaxRetentionDays)
	}
	if len(rules) == 0 {
		return fmt.Errorf("no backup rule")
	}
	seen := map[Schedule]bool{}
	for _, r := range rules {
		if r.Schedule != Daily && r.Schedule != Weekly && r.Schedule != Monthly {
			return fmt.Errorf("unknown schedule %q", r.Schedule)
		}
		if seen[r.Schedule] {
			return fmt.Errorf("two %s rules", r.Schedule)
		}
		seen[r.Schedule] = true
		if r.RetentionDays < lock.MinRetentionDays || r.RetentionDays > lock.MaxRetentionDays {
			return fmt.Errorf("%s retention of %d days is outside the vault lock's %d..%d", r.Schedule, r.RetentionDays, lock.MinRetentionDays, lock.MaxRetentionDays)
		}
	}
	copies := props.CopyRetentionDays > 0
	for _, r := range rules {
		copies = copies || r.CopyRetentionDays != nil && *r.CopyRetentionDays > 0
		if r.CopyRetentionDays != nil && *r.CopyRetentionDays < 0 {
			return fmt.Errorf("%s copy retention of %d days is negative", r.Schedule, *r.CopyRetentionDays)
		}
	}
	if (props.CopyVaultARN == "") == copies {
		return fmt.Errorf("set CopyVaultARN and CopyRetentionDays (or a rule's) together")
	}
	if rt := props.RestoreTest; rt != nil && rt.Schedule != Weekly && rt.Schedule != Monthly {
		return fmt.Errorf("restore tests run Weekly or Monthly, not %q", rt.Schedule)
	}
	return nil
}
