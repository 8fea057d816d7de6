package totals

import (
	"cmp"
	"fmt"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambdaeventsources"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"

	"github.com/oncetable/oncetable/constructs/alarms"
	"github.com/oncetable/oncetable/constructs/gofunction"
	"github.com/oncetable/oncetable/constructs/oncall"
	"github.com/oncetable/oncetable/runtime/config"
	"github.com/oncetable/oncetable/runtime/obs"
	"github.com/oncetable/oncetable/runtime/platform"
	"github.com/oncetable/oncetable/runtime/schema"
)

// Defaults of Props.
const (
	// DefaultBatchSize is one totals transaction's entries: the filter
	// admits ledger entries only, so a full batch is one TransactWriteItems.
	DefaultBatchSize      = platform.MaxEntriesPerTransaction
	DefaultBatchingWindow = 5 * time.Second
	DefaultRetryAttempts  = 10
	DefaultMaxRecordAge   = 24 * time.Hour
	// DefaultIteratorAge is the totals' lag that opens a ticket: the
	// verifier counts entries not totalled yet as lag, not as violations,
	// so minutes of lag are harmless.
	DefaultIteratorAge = 15 * time.Minute
)

// Props configures the totaller. Only Table is required; the zero value of
// every other field is its default.
type Props struct {
	// Table is the single table; it must have a stream. Required.
	Table awsdynamodb.ITableV2
	// TableKey is the table's customer-managed key: stream records and
	// items are decrypted with it through DynamoDB, and it encrypts the
	// function's logs. Default: nil.
	TableKey awskms.IKey
	// ModuleDir is the Go module holding lambdas/totals. Default:
	// oncetable's own module as the app's build resolves it.
	ModuleDir string
	// Shards is each platform account's shard count (PLATFORM_SHARDS,
	// 1..config.MaxPlatformShards); the report must be given the same.
	// Default: config.DefaultPlatformShards.
	Shards int
	// BatchSize and BatchingWindow shape the mapping's batches.
	// Defaults: DefaultBatchSize, DefaultBatchingWindow.
	BatchSize      int
	BatchingWindow time.Duration
	// RetryAttempts and MaxRecordAge bound the retries of a failing record
	// before it goes to FailureQueue; new(0) sends it there at once.
	// Defaults: nil: DefaultRetryAttempts, DefaultMaxRecordAge.
	RetryAttempts *int
	MaxRecordAge  time.Duration
	// IteratorAge is the lag that opens the totals-lag ticket. Default:
	// DefaultIteratorAge.
	IteratorAge time.Duration
	// RemovalPolicy applies to FailureQueue. Default:
	// RETAIN_ON_UPDATE_OR_DELETE.
	RemovalPolicy awscdk.RemovalPolicy
	// LogRetentionDays and DestroyLogs apply to the function's logs.
	// Defaults: 30 days, retained.
	LogRetentionDays int
	DestroyLogs      bool
	// Monitor receives the alarms and the dashboard row. Default: nil, no
	// alarms (Alarms holds the queue's and the lag's all the same).
	Monitor gofunction.Monitor
}

// settings are Props with every default filled in.
type settings struct {
	Props
	retryAttempts int
}

func withDefaults(p Props) settings {
	p.Shards = cmp.Or(p.Shards, config.DefaultPlatformShards)
	p.BatchSize = cmp.Or(p.BatchSize, DefaultBatchSize)
	p.BatchingWindow = cmp.Or(p.BatchingWindow, DefaultBatchingWindow)
	p.MaxRecordAge = cmp.Or(p.MaxRecordAge, DefaultMaxRecordAge)
	p.IteratorAge = cmp.Or(p.IteratorAge, DefaultIteratorAge)
	p.RemovalPolicy = cmp.Or(p.RemovalPolicy, awscdk.RemovalPolicy_RETAIN_ON_UPDATE_OR_DELETE)
	s := settings{Props: p, retryAttempts: DefaultRetryAttempts}
	if p.RetryAttempts != nil {
		s.retryAttempts = *p.RetryAttempts
	}
	return s
}

func (s settings) validate() error {
	switch {
	case s.Table == nil:
		return fmt.Errorf("props.Table is required")
	case s.Shards < 1 || s.Shards > config.MaxPlatformShards:
		return fmt.Errorf("props.Shards %d must be 1..%d", s.Shards, config.MaxPlatformShards)
	case s.BatchSize < 1 || s.BatchSize > 10000 || s.BatchingWindow < 0 || s.BatchingWindow > 300*time.Second:
		return fmt.Errorf("props.BatchSize %d must be 1..10000 and BatchingWindow %s 0..5m", s.BatchSize, s.BatchingWindow)
	case s.retryAttempts < 0 || s.retryAttempts > 10000 || s.MaxRecordAge < time.Minute || s.MaxRecordAge > 7*24*time.Hour:
		return fmt.Errorf("props.RetryAttempts %d must be 0..10000 and MaxRecordAge %s 1m..7d", s.retryAttempts, s.MaxRecordAge)
	case s.IteratorAge < time.Minute:
		return fmt.Errorf("props.IteratorAge %s must be at least 1m", s.IteratorAge)
	}
	return nil
}

// Totals is the deployed totaller and what it owns.
type Totals struct {
	// Construct is the scope of every resource below.
	Construct constructs.Construct
	Function  *gofunction.Function
	// Mapping reads the table's stream into Function through Filter;
	// FailureQueue receives the batches it gives up on.
	Mapping      awslambda.EventSourceMapping
	FailureQueue awssqs.Queue
	// IteratorAge is the mapping's lag (Maximum per 5 minutes).
	IteratorAge awscloudwatch.Metric
	// LagAlarm (totals-lag) and DeadLettersAlarm (totals-dead-letters),
	// then the function's own with Props.Monitor.
	LagAlarm         awscloudwatch.Alarm
	DeadLettersAlarm awscloudwatch.Alarm
	Alarms           []awscloudwatch.Alarm
}

// New deploys the totaller of props.Table's stream into scope. It panics
// on invalid props.
func New(scope constructs.Construct, id string, props *Props) *Totals {
	if props == nil {
		props = &Props{}
	}
	p := withDefaults(*props)
	if err := p.validate(); err != nil {
		panic("totals: " + err.Error())
	}
	if p.Table.TableStreamArn() == nil {
		panic("totals: the table has no stream")
	}
	c := constructs.NewConstruct(scope, jsii.String(id))
	t := &Totals{Construct: c}
	t.Function = gofunction.New(c, "Function", &gofunction.Props{
		Entry:            "./lambdas/totals",
		ModuleDir:        p.ModuleDir,
		ModulePath:       gofunction.OwnModulePath,
		Description:      "oncetable totals: adds each new ledger entry's platform legs to the platform totals, exactly once",
		Timeout:          time.Minute,
		LogRetentionDays: p.LogRetentionDays,
		DestroyLogs:      p.DestroyLogs,
		LogKey:           p.TableKey,
		Environment:      config.Totals{Table: *p.Table.TableName(), Shards: p.Shards}.Environment(),
	})
	grant(t.Function.Role, p.Table, p.TableKey, FunctionAccess())
	t.mapping(c, p)
	t.FailureQueue.ApplyRemovalPolicy(p.RemovalPolicy)
	suppressNag(t.Function, p.TableKey == nil)
	t.monitor(c, p)
	return t
}

// grant gives role acc on the table and the stream's reads.
func grant(role awsiam.Role, table awsdynamodb.ITableV2, key awskms.IKey, acc Access) {
	role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid: jsii.String("TotalLedgerEntries"), Actions: jsii.Strings(acc.WriteActions...), Resources: &[]*string{table.TableArn()},
		Conditions: &map[string]any{"ForAllValues:StringLike": map[string]any{"dynamodb:LeadingKeys": acc.WritePartitions}},
	}))
	gofunction.GrantStreamRead(role, table)
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

// mapping connects the stream to the function through Filter. A batch
// fails from its first untotalled record (ReportBatchItemFailures): the
// mapping bisects and retries, then sends what still fails to the queue.
func (t *Totals) mapping(c constructs.Construct, p settings) {
	t.FailureQueue = alarms.DeadLetterQueue(c, "FailureQueue",
		"This queue is itself the on-failure destination of the totals function's stream mapping, read by people after its alarm.")
	t.Mapping = t.Function.Function.AddEventSourceMapping(jsii.String("TableStream"), &awslambda.EventSourceMappingOptions{
		EventSourceArn:          p.Table.TableStreamArn(),
		StartingPosition:        awslambda.StartingPosition_TRIM_HORIZON,
		BatchSize:               jsii.Number(float64(p.BatchSize)),
		MaxBatchingWindow:       awscdk.Duration_Seconds(jsii.Number(p.BatchingWindow.Seconds())),
		BisectBatchOnError:      jsii.Bool(true),
		RetryAttempts:           jsii.Number(float64(p.retryAttempts)),
		MaxRecordAge:            awscdk.Duration_Seconds(jsii.Number(p.MaxRecordAge.Seconds())),
		ReportBatchItemFailures: jsii.Bool(true),
		OnFailure:               awslambdaeventsources.NewSqsDlq(t.FailureQueue),
		Filters: &[]*map[string]any{awslambda.FilterCriteria_Filter(&map[string]any{
			"eventName": []string{Filter.EventName},
			"dynamodb":  map[string]any{"NewImage": map[string]any{schema.EntityType: map[string]any{"S": []string{Filter.EntityType}}}},
		})},
	})
}

// monitor adds the lag and dead-letter alarms, the function's own and a
// dashboard row graphing every metric of obs.TotalsNamespace.
func (t *Totals) monitor(c constructs.Construct, p settings) {
	period := awscdk.Duration_Minutes(jsii.Number(5))
	t.IteratorAge = t.Function.Function.Metric(jsii.String("IteratorAge"), &awscloudwatch.MetricOptions{
		Period: period, Statistic: jsii.String("Maximum"),
	})
	t.LagAlarm = t.IteratorAge.CreateAlarm(c, jsii.String("LagAlarm"), &awscloudwatch.CreateAlarmOptions{
		AlarmDescription: jsii.String(fmt.Sprintf("totals: the oldest ledger entry not totalled waited %s or more in 3 periods of 5 minutes "+
			"running: the platform totals lag (the verifier counts the entries as lag, not violations); stream records live 24 hours.", alarms.Span(p.IteratorAge))),
		Threshold: jsii.Number(float64(p.IteratorAge.Milliseconds())), EvaluationPeriods: jsii.Number(3), DatapointsToAlarm: jsii.Number(3),
		ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
		// No batch, no data: nothing waits.
		TreatMissingData: awscloudwatch.TreatMissingData_NOT_BREACHING,
	})
	t.DeadLettersAlarm = alarms.QueueNotEmpty(c, "FailureQueueAlarm", t.FailureQueue,
		"totals: stream batches were given up on (retries or age exhausted): their ledger entries are not in the platform totals; "+
			"run lambdas/platform -catch-up, then read and purge FailureQueue.")
	t.Alarms = []awscloudwatch.Alarm{t.LagAlarm, t.DeadLettersAlarm}
	if p.Monitor == nil {
		return
	}
	p.Monitor.AddAlarm(oncall.TotalsLag, t.LagAlarm)
	p.Monitor.AddAlarm(oncall.TotalsDeadLetters, t.DeadLettersAlarm)
	t.Alarms = append(t.Alarms, t.Function.Monitor(p.Monitor, &gofunction.AlarmProps{Name: "totals"})...)
	var graphed []awscloudwatch.IMetric
	for _, m := range obs.Catalogue() {
		if m.Namespace == obs.TotalsNamespace {
			graphed = append(graphed, awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
				Namespace: jsii.String(m.Namespace), MetricName: jsii.String(m.Name),
				DimensionsMap: &map[string]*string{"Table": p.Table.TableName()},
				Statistic:     jsii.String("Sum"), Period: period, Label: jsii.String(m.Name),
			}))
		}
	}
	p.Monitor.AddWidgets(awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
		Title: jsii.String(fmt.Sprintf("Platform totals (%s, per 5 minutes)", obs.TotalsNamespace)), Width: jsii.Number(12), Left: &graphed,
	}), awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
		Title: jsii.String("totals: stream iterator age (ms, max)"), Width: jsii.Number(6),
		Left:            &[]awscloudwatch.IMetric{t.IteratorAge},
		LeftAnnotations: &[]*awscloudwatch.HorizontalAnnotation{{Label: jsii.String("alarm"), Value: jsii.Number(float64(p.IteratorAge.Milliseconds()))}},
	}), alarms.QueueDepthWidget("totals: failure queue (dead letters)", t.FailureQueue))
}

// suppressNag records why the rules that do not fit the function are
// suppressed.
func suppressNag(fn *gofunction.Function, noKey bool) {
	s := []*cdknag.NagPackSuppression{
		gofunction.StreamMappingDLQ(),
		{Id: jsii.String("PCI.DSS.321-LambdaInsideVPC"), Reason: jsii.String("The function calls only IAM-authenticated AWS " +
			"endpoints (DynamoDB, X-Ray; Lambda reads the stream for it) over TLS and no private resource; a VPC would add " +
			"NAT or endpoint costs without narrowing what the role may reach.")},
		{Id: jsii.String("PCI.DSS.321-IAMNoInlinePolicy"), Reason: jsii.String("The policy is the function's own role policy, " +
			"attached to that one role and created and deleted with it; its statements are asserted in test/cdk.")},
		gofunction.ListStreamsOnAnyResource(),
	}
	if noKey {
		s = append(s, &cdknag.NagPackSuppression{Id: jsii.String("PCI.DSS.321-CloudWatchLogGroupEncrypted"), Reason: jsii.String(
			"This environment has no customer-managed key (customerManagedKey is off in cdk.json): CloudWatch Logs encrypts the " +
				"group at rest with its own key. Environments with a key (prod) encrypt every log group with it.")})
	}
	cdknag.NagSuppressions_AddResourceSuppressions(fn.Construct, &s, jsii.Bool(true))
}
