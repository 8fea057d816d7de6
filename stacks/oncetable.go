package stacks

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/oncetable/oncetable/constructs/alarms"
	"github.com/oncetable/oncetable/constructs/backup"
	"github.com/oncetable/oncetable/constructs/singletable"
	"github.com/oncetable/oncetable/stacks/envconfig"
)

// OnceTableStackProps carries the environment's settings. StackProps.Env is
// filled from Config when left nil.
type OnceTableStackProps struct {
	awscdk.StackProps
	Config envconfig.Config
}

// OnceTableStack is one environment of oncetable.
type OnceTableStack struct {
	awscdk.Stack
	Table      *singletable.Table
	Operations *alarms.Operations
	Backup     *backup.TableBackup
}

// StackName is the stack name of an environment: OnceTable-<env>.
func StackName(env string) string { return "OnceTable-" + env }

// NewOnceTableStack adds one environment's stack to scope. nil props give
// every construct its production defaults.
func NewOnceTableStack(scope constructs.Construct, id string, props *OnceTableStackProps) *OnceTableStack {
	if props == nil {
		props = &OnceTableStackProps{}
	}
	sp := props.StackProps
	cfg := props.Config
	if sp.Env == nil && cfg.Region != "" {
		sp.Env = &awscdk.Environment{Region: jsii.String(cfg.Region)}
		if cfg.Account != "" {
			sp.Env.Account = jsii.String(cfg.Account)
		}
	}
	stack := awscdk.NewStack(scope, jsii.String(id), &sp)
	s := &OnceTableStack{Stack: stack}

	s.Table = singletable.NewTable(stack, "Data", tableProps(cfg))
	s.Operations = alarms.NewOperations(stack, "Operations", operationsProps(cfg))
	s.Operations.MonitorTable("Table", s.Table.Table, tableAlarmsProps(cfg))
	s.Backup = backup.NewTableBackup(stack, "Backup", s.Table.Table, backupProps(cfg, s.Operations))

	// Compute (issue 5): the Lambda functions and the HTTP API construct are
	// added here. They get s.Table.Table (grant access, TABLE_NAME env var)
	// and add their alarms and widgets with s.Operations.AddAlarm and
	// s.Operations.AddWidgets.

	return s
}

func tableProps(cfg envconfig.Config) *singletable.TableProps {
	if cfg.Name == "" {
		return nil
	}
	p := &singletable.TableProps{
		PITRRecoveryPeriodDays:    cfg.PITRRecoveryPeriodDays,
		AllowDestroy:              cfg.RemovalPolicy == envconfig.Destroy,
		DisableDeletionProtection: !cfg.DeletionProtection,
		CustomerManagedKey:        cfg.CustomerManagedKey,
		ContributorInsights:       cfg.ContributorInsights,
		Stream:                    cfg.Stream,
	}
	if c := cfg.Capacity; c.Mode == envconfig.Provisioned {
		p.Provisioned = &singletable.ProvisionedCapacity{
			MinRead: c.MinRead, MaxRead: c.MaxRead,
			MinWrite: c.MinWrite, MaxWrite: c.MaxWrite,
			TargetUtilizationPercent: c.TargetUtilization,
		}
	}
	return p
}

func removalPolicy(cfg envconfig.Config) awscdk.RemovalPolicy {
	if cfg.RemovalPolicy == envconfig.Destroy {
		return awscdk.RemovalPolicy_DESTROY
	}
	return awscdk.RemovalPolicy_RETAIN
}

func operationsProps(cfg envconfig.Config) *alarms.OperationsProps {
	if cfg.Name == "" {
		return nil
	}
	return &alarms.OperationsProps{
		SlackWorkspaceID: cfg.Slack.WorkspaceID,
		SlackChannelID:   cfg.Slack.ChannelID,
		DashboardName:    StackName(cfg.Name),
		RemovalPolicy:    removalPolicy(cfg),
	}
}

func tableAlarmsProps(cfg envconfig.Config) *alarms.TableAlarmsProps {
	if cfg.Name == "" {
		return nil
	}
	a := cfg.Alarms
	return &alarms.TableAlarmsProps{
		ThrottleEvents:       a.ThrottleEvents,
		SystemErrors:         a.SystemErrors,
		TransactionConflicts: a.TransactionConflicts,
		ReadUnitsPerSecond:   a.ReadUnitsPerSecond,
		WriteUnitsPerSecond:  a.WriteUnitsPerSecond,
	}
}

func backupProps(cfg envconfig.Config, ops *alarms.Operations) *backup.TableBackupProps {
	if cfg.Name == "" {
		return &backup.TableBackupProps{AlarmTopic: ops.Topic}
	}
	b := cfg.Backup
	var rules []backup.Rule
	for _, r := range []backup.Rule{
		{Schedule: backup.Daily, RetentionDays: b.DailyRetentionDays},
		{Schedule: backup.Weekly, RetentionDays: b.WeeklyRetentionDays},
		{Schedule: backup.Monthly, RetentionDays: b.MonthlyRetentionDays},
	} {
		if r.RetentionDays > 0 {
			rules = append(rules, r)
		}
	}
	lock := backup.VaultLock{
		Mode:              backup.Governance,
		MinRetentionDays:  b.VaultLock.MinRetentionDays,
		MaxRetentionDays:  b.VaultLock.MaxRetentionDays,
		ChangeableForDays: b.VaultLock.ChangeableForDays,
	}
	if b.VaultLock.Mode == envconfig.Compliance {
		lock.Mode = backup.Compliance
	}
	return &backup.TableBackupProps{
		Rules:             rules,
		VaultLock:         &lock,
		AlarmTopic:        ops.Topic,
		CopyVaultARN:      b.CopyVaultARN,
		CopyRetentionDays: b.CopyRetentionDays,
		RemovalPolicy:     removalPolicy(cfg),
	}
}
