package stacks

import (
	"strings"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/oncetable/oncetable/constructs/alarms"
	"github.com/oncetable/oncetable/constructs/backup"
	"github.com/oncetable/oncetable/constructs/paymentsapi"
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
	Payments   *paymentsapi.PaymentsAPI
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

	s.Payments = paymentsapi.New(stack, "Payments", paymentsProps(cfg, s))
	awscdk.NewCfnOutput(stack, jsii.String("ApiUrl"), &awscdk.CfnOutputProps{
		Description: jsii.String("Invoke URL of the payments HTTP API"),
		Value:       s.Payments.URL,
	})
	for _, name := range paymentsapi.Functions() {
		awscdk.NewCfnOutput(stack, jsii.String(outputID(name)), &awscdk.CfnOutputProps{
			Description: jsii.String("Name of the " + name + " Lambda function"),
			Value:       s.Payments.Functions[name].Function.FunctionName(),
		})
	}

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

// outputID names a function's stack output: ChargeFunctionName, ...
func outputID(function string) string {
	return strings.ToUpper(function[:1]) + function[1:] + "FunctionName"
}

func paymentsProps(cfg envconfig.Config, s *OnceTableStack) *paymentsapi.Props {
	p := &paymentsapi.Props{Table: s.Table.Table, TableKey: s.Table.Key, Monitor: s.Operations}
	if cfg.Name == "" {
		return p
	}
	a := cfg.API
	p.ThrottleRatePerSecond, p.ThrottleBurst = a.ThrottleRatePerSecond, a.ThrottleBurst
	p.LogRetentionDays = a.LogRetentionDays
	p.DestroyLogs = cfg.RemovalPolicy == envconfig.Destroy
	p.ServerErrors = a.ServerErrors
	p.LatencyP99 = time.Duration(a.LatencyP99Ms) * time.Millisecond
	p.ReservedConcurrency = a.ReservedConcurrency
	if a.JWT != nil {
		p.JWT = &paymentsapi.JWTAuth{Issuer: a.JWT.Issuer, Audience: a.JWT.Audience}
	}
	return p
}
