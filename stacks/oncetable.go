package stacks

import (
	"strings"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/oncetable/oncetable/constructs/alarms"
	"github.com/oncetable/oncetable/constructs/backup"
	"github.com/oncetable/oncetable/constructs/canary"
	"github.com/oncetable/oncetable/constructs/checks"
	"github.com/oncetable/oncetable/constructs/paymentevents"
	"github.com/oncetable/oncetable/constructs/paymentsapi"
	"github.com/oncetable/oncetable/constructs/reconciler"
	"github.com/oncetable/oncetable/constructs/singletable"
	"github.com/oncetable/oncetable/constructs/slo"
	"github.com/oncetable/oncetable/constructs/totals"
	"github.com/oncetable/oncetable/runtime/httpapi"
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
	// Events is the outbox: the table's stream to the payment events bus.
	Events *paymentevents.PaymentEvents
	// Reconcile is the live reconciliation of the table's money.
	Reconcile *reconciler.Reconciler
	// SLO is the money routes' objectives and their burn-rate alerts.
	SLO *slo.SLO
	// Totals keeps the platform accounts' stored totals from the stream.
	Totals *totals.Totals
	// Canary probes the money routes every few minutes; nil under JWT.
	Canary *canary.Canary
	// DR is the disaster-recovery stack in backup.dr.region, nil without it.
	DR *DRStack
	// Global is the lease store and watch of an environment with replicas
	// (cdk.json regions), nil without them.
	Global *Global
	// Config is the environment the stack was built from.
	Config envconfig.Config
}

// DRStack holds the locked vault that receives the environment's copies.
type DRStack struct {
	awscdk.Stack
	Vault *backup.DRVault
}

// DRStackName is the stack name of an environment's disaster-recovery
// copy: OnceTable-<env>-dr.
func DRStackName(env string) string { return StackName(env) + "-dr" }

// DRVaultName is the name of an environment's disaster-recovery vault.
func DRVaultName(env string) string { return "oncetable-" + env + "-dr" }

// BusName is the name of an environment's payment events bus:
// OnceTable-<env>-payments.
func BusName(env string) string { return StackName(env) + "-payments" }

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
	s := &OnceTableStack{Stack: stack, Config: cfg}
	if dr := cfg.Backup.DR; dr != nil {
		s.DR = newDRStack(scope, cfg, sp.Env)
		stack.AddStackDependency(s.DR.Stack, jsii.String("the backup plan copies into the DR vault, which must exist first"))
	}
	awscdk.Aspects_Of(stack).Add(checks.New(&checks.Props{Production: cfg.Production}), nil)

	keys, keyARNs := replicaKeys(scope, stack, cfg, sp.Env)
	tp := tableProps(cfg)
	withReplicas(tp, cfg, keyARNs)
	s.Table = singletable.NewTable(stack, "Data", tp)
	s.Operations = alarms.NewOperations(stack, "Operations", operationsProps(cfg))
	s.Operations.MonitorTable("Table", s.Table.Table, tableAlarmsProps(cfg, s.Table))
	s.Backup = backup.NewTableBackup(stack, "Backup", s.Table.Table, backupProps(cfg, s.Operations, stack))

	s.Payments = paymentsapi.New(stack, "Payments", paymentsProps(cfg, s))
	addGlobal(s, keys)
	s.Events = paymentevents.New(stack, "Events", eventsProps(cfg, s))
	s.Reconcile = reconciler.New(stack, "Reconcile", reconcileProps(cfg, s))
	s.SLO = slo.New(stack, "SLO", &slo.Props{AccessLogs: s.Payments.AccessLogs, Monitor: s.Operations})
	s.Totals = totals.New(stack, "Totals", totalsProps(cfg, s))
	// The canary calls the API with IAM as an operator (it credits); a
	// JWT-only API has no invoke policy for it.
	if invoke, ok := s.Payments.InvokePolicies[httpapi.RoleOperator]; ok {
		s.Canary = canary.New(stack, "Canary", &canary.Props{URL: s.Payments.URL, InvokePolicy: invoke, Monitor: s.Operations,
			LogKey: s.Table.Key, LogRetentionDays: cfg.API.LogRetentionDays, DestroyLogs: cfg.RemovalPolicy == envconfig.Destroy})
		s.Payments.AddIAMOperator(s.Canary.Function.Role.RoleArn())
	}
	awscdk.NewCfnOutput(stack, jsii.String("ApiUrl"), &awscdk.CfnOutputProps{
		Description: jsii.String("Invoke URL of the payments HTTP API"),
		Value:       s.Payments.URL,
	})
	awscdk.NewCfnOutput(stack, jsii.String("TableName"), &awscdk.CfnOutputProps{
		Description: jsii.String("Name of the table (make freeze ENV=... reads it)"),
		Value:       s.Table.Table.TableName(),
	})
	awscdk.NewCfnOutput(stack, jsii.String("EventBusName"), &awscdk.CfnOutputProps{
		Description: jsii.String("Name of the payment events' bus (make republish ENV=... reads it)"),
		Value:       s.Events.Bus.EventBusName(),
	})
	awscdk.NewCfnOutput(stack, jsii.String("EventsFailureQueueUrl"), &awscdk.CfnOutputProps{
		Description: jsii.String("URL of the events function's failure queue (make republish ENV=... DLQ=1 reads it)"),
		Value:       s.Events.FailureQueue.QueueUrl(),
	})
	for _, name := range paymentsapi.Functions() {
		awscdk.NewCfnOutput(stack, jsii.String(outputID(name)), &awscdk.CfnOutputProps{
			Description: jsii.String("Name of the " + name + " Lambda function"),
			Value:       s.Payments.Functions[name].Function.FunctionName(),
		})
	}
	for _, role := range paymentsapi.InvokePolicyRoles {
		if policy, ok := s.Payments.InvokePolicies[role]; ok {
			awscdk.NewCfnOutput(stack, jsii.String(*policy.Node().Id()+"Arn"), &awscdk.CfnOutputProps{
				Description: jsii.String("Managed policy to attach to a " + string(role) + " backend's IAM role: execute-api:Invoke on its routes"),
				Value:       policy.ManagedPolicyArn(),
			})
		}
	}

	return s
}

func newDRStack(scope constructs.Construct, cfg envconfig.Config, primary *awscdk.Environment) *DRStack {
	env := &awscdk.Environment{Region: jsii.String(cfg.Backup.DR.Region)}
	if primary != nil {
		env.Account = primary.Account
	}
	stack := awscdk.NewStack(scope, jsii.String(DRStackName(cfg.Name)), &awscdk.StackProps{
		Env:         env,
		Description: jsii.String("oncetable " + cfg.Name + ": disaster-recovery vault for copies of the table's backups"),
	})
	return &DRStack{Stack: stack, Vault: backup.NewDRVault(stack, "Backup", &backup.DRVaultProps{
		VaultName:     DRVaultName(cfg.Name),
		VaultLock:     vaultLock(cfg),
		RemovalPolicy: removalPolicy(cfg),
	})}
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
		// Always on: the events function reads it (the setting remains for
		// consumers of the construct).
		Stream:               true,
		MaxReadRequestUnits:  cfg.Capacity.MaxReadRequestUnits,
		MaxWriteRequestUnits: cfg.Capacity.MaxWriteRequestUnits,
		Orders:               singletable.OrderIndexes{Stage: cfg.OrderIndexes, Shards: cfg.OrderShards},
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
	return awscdk.RemovalPolicy_RETAIN_ON_UPDATE_OR_DELETE
}

func operationsProps(cfg envconfig.Config) *alarms.OperationsProps {
	if cfg.Name == "" {
		return nil
	}
	n := cfg.Notifications
	return &alarms.OperationsProps{
		SlackWorkspaceID: cfg.Slack.WorkspaceID,
		Page:             alarms.Subscribers{SlackChannelID: cfg.Slack.ChannelID, Emails: n.Page.Emails, HTTPSEndpoints: n.Page.HTTPSEndpoints},
		Ticket:           alarms.Subscribers{SlackChannelID: cfg.Slack.TicketChannelID, Emails: n.Ticket.Emails, HTTPSEndpoints: n.Ticket.HTTPSEndpoints},
		Routing:          cfg.Alarms.Routing,
		RunbookURL:       cfg.Alarms.RunbookURL,
		DashboardName:    StackName(cfg.Name),
		RemovalPolicy:    removalPolicy(cfg),
	}
}

// tableAlarmsProps alarms on the throttles of the indexes the table has at
// its order index stage.
func tableAlarmsProps(cfg envconfig.Config, table *singletable.Table) *alarms.TableAlarmsProps {
	if cfg.Name == "" {
		return &alarms.TableAlarmsProps{IndexNames: table.IndexNames()}
	}
	a := cfg.Alarms
	return &alarms.TableAlarmsProps{
		IndexNames:           table.IndexNames(),
		ThrottleEvents:       a.ThrottleEvents,
		SystemErrors:         a.SystemErrors,
		TransactionConflicts: a.TransactionConflicts,
		ReadUnitsPerSecond:   a.ReadUnitsPerSecond,
		WriteUnitsPerSecond:  a.WriteUnitsPerSecond,
		OnDemandMaximum:      cfg.Capacity.MaxReadRequestUnits > 0 || cfg.Capacity.MaxWriteRequestUnits > 0,
	}
}

func backupProps(cfg envconfig.Config, ops *alarms.Operations, scope constructs.Construct) *backup.TableBackupProps {
	if cfg.Name == "" {
		return &backup.TableBackupProps{AlarmTopic: ops.Ticket.Topic, Monitor: ops}
	}
	b := cfg.Backup
	var drDays map[backup.Schedule]int
	if dr := b.DR; dr != nil {
		drDays = map[backup.Schedule]int{backup.Daily: dr.DailyRetentionDays, backup.Weekly: dr.WeeklyRetentionDays, backup.Monthly: dr.MonthlyRetentionDays}
	}
	var rules []backup.Rule
	for _, r := range []backup.Rule{
		{Schedule: backup.Daily, RetentionDays: b.DailyRetentionDays},
		{Schedule: backup.Weekly, RetentionDays: b.WeeklyRetentionDays},
		{Schedule: backup.Monthly, RetentionDays: b.MonthlyRetentionDays},
	} {
		if r.RetentionDays > 0 {
			if days, ok := drDays[r.Schedule]; ok {
				r.CopyRetentionDays = &days
			}
			rules = append(rules, r)
		}
	}
	// The failure events carry the job IDs: a ticket's record; the alarm
	// on them pages (routed by the Monitor).
	p := &backup.TableBackupProps{
		Rules:             rules,
		VaultLock:         vaultLock(cfg),
		AlarmTopic:        ops.Ticket.Topic,
		Monitor:           ops,
		CopyVaultARN:      b.CopyVaultARN,
		CopyRetentionDays: b.CopyRetentionDays,
		RemovalPolicy:     removalPolicy(cfg),
	}
	if dr := b.DR; dr != nil {
		p.CopyVaultARN = backup.DRVaultARN(scope, dr.Region, DRVaultName(cfg.Name))
	}
	if rt := b.RestoreTest; rt != nil {
		p.RestoreTest = &backup.RestoreTest{Schedule: backup.Weekly, ValidationWindowHours: rt.ValidationWindowHours,
			Validation: backup.RestoreValidation{LogRetentionDays: cfg.API.LogRetentionDays}}
		if rt.Schedule == "monthly" {
			p.RestoreTest.Schedule = backup.Monthly
		}
	}
	return p
}

func vaultLock(cfg envconfig.Config) *backup.VaultLock {
	l := cfg.Backup.VaultLock
	lock := backup.VaultLock{
		Mode:              backup.Governance,
		MinRetentionDays:  l.MinRetentionDays,
		MaxRetentionDays:  l.MaxRetentionDays,
		ChangeableForDays: l.ChangeableForDays,
	}
	if l.Mode == envconfig.Compliance {
		lock.Mode = backup.Compliance
	}
	return &lock
}

// msDuration is ms milliseconds.
func msDuration(ms int) time.Duration { return time.Duration(ms) * time.Millisecond }

// seconds is *s seconds as a duration; nil stays nil (the default).
func seconds(s *int) *time.Duration {
	if s == nil {
		return nil
	}
	d := time.Duration(*s) * time.Second
	return &d
}

func eventsProps(cfg envconfig.Config, s *OnceTableStack) *paymentevents.Props {
	e := cfg.Events
	p := &paymentevents.Props{
		Table:                s.Table.Table,
		TableKey:             s.Table.Key,
		BatchSize:            e.BatchSize,
		BatchingWindow:       seconds(e.BatchingWindowSeconds),
		RetryAttempts:        e.RetryAttempts,
		MaxRecordAge:         time.Duration(e.MaxRecordAgeSeconds) * time.Second,
		ArchiveRetentionDays: e.ArchiveRetentionDays,
		IteratorAge:          time.Duration(e.IteratorAgeAlarmSeconds) * time.Second,
		SteadyTraffic:        cfg.Alarms.SettledPaymentEveryMinutes > 0,
		LogRetentionDays:     cfg.API.LogRetentionDays,
		DestroyLogs:          cfg.RemovalPolicy == envconfig.Destroy,
		RemovalPolicy:        removalPolicy(cfg),
		Monitor:              s.Operations,
	}
	if cfg.Name != "" {
		p.BusName = BusName(cfg.Name)
	}
	return p
}

// outputID names a function's stack output: ChargeFunctionName, ...
func outputID(function string) string {
	return strings.ToUpper(function[:1]) + function[1:] + "FunctionName"
}

func paymentsProps(cfg envconfig.Config, s *OnceTableStack) *paymentsapi.Props {
	p := &paymentsapi.Props{Table: s.Table.Table, TableKey: s.Table.Key, Orders: s.Table.Orders, Monitor: s.Operations}
	if cfg.Name == "" {
		return p
	}
	p.Homes = cfg.Homes(cfg.Region, LeaseTableName(cfg.Name))
	a := cfg.API
	p.ThrottleRatePerSecond, p.ThrottleBurst = a.ThrottleRatePerSecond, a.ThrottleBurst
	p.LogRetentionDays = a.LogRetentionDays
	p.DestroyLogs = cfg.RemovalPolicy == envconfig.Destroy
	al := cfg.Alarms
	p.ServerErrorPercent, p.ClientErrorPercent, p.ThrottledPercent = al.ErrorRatePercent, al.ClientErrorPercent, al.ThrottledPercent
	p.MinRequests = al.MinRequests
	p.SettledPaymentEvery = time.Duration(al.SettledPaymentEveryMinutes) * time.Minute
	p.LatencyP99 = time.Duration(a.LatencyP99Ms) * time.Millisecond
	p.ReservedConcurrency = a.ReservedConcurrency
	p.RemovalPolicy = removalPolicy(cfg)
	p.MoneyRouteRatePerSecond, p.MoneyRouteBurst = a.MoneyRouteThrottleRatePerSecond, a.MoneyRouteThrottleBurst
	p.IAMOperators = a.IAMOperators
	if j := a.JWT; j != nil {
		p.JWT = &paymentsapi.JWTAuth{Issuer: j.Issuer, Audience: j.Audience,
			CustomerScope: j.Scopes.Customer, OperatorScope: j.Scopes.Operator, ServiceScope: j.Scopes.Service, UserClaim: j.UserClaim}
	}
	return p
}
