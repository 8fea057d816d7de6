package paymentevents

import (
	"cmp"
	"fmt"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsevents"
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
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/store"
)

// Defaults of Props.
const (
	DefaultBatchSize            = 100
	DefaultBatchingWindow       = time.Second
	DefaultRetryAttempts        = 10
	DefaultMaxRecordAge         = 24 * time.Hour
	DefaultArchiveRetentionDays = 30
	DefaultIteratorAge          = time.Minute
)

// EventRecord names stream records that can carry a payment event
// (runtime/outbox.FromRecord): an eventName and the entity types it
// applies to.
type EventRecord struct {
	EventName   string
	EntityTypes []string
}

// EventRecords are the records the mapping's filter admits, one filter
// each (a record passing any of them invokes the function): ledger entries
// inserted (CreditPosted, DebitPosted), holds inserted (HoldAuthorized),
// refunds inserted (RefundIssued), orders modified (PaymentCreated when
// charge gives the order its paymentId, OrderPaid when settle pays it,
// OrderRefunded, OrderCancelled, OrderShipped, OrderDelivered), payments modified (PaymentProcessed) and holds modified
// (HoldCaptured, HoldVoided). A payment's INSERT carries no event, so it
// does not invoke the function; nor do profiles, addresses, products,
// order items and idempotency records.
var EventRecords = []EventRecord{
	{EventName: "INSERT", EntityTypes: []string{store.TypeLedgerEntry, store.TypeHold, store.TypeRefund}},
	{EventName: "MODIFY", EntityTypes: []string{store.TypeOrder, store.TypePayment, store.TypeHold}},
}

// eventFilters are EventRecords as Lambda event filter patterns.
func eventFilters() *[]*map[string]any {
	var out []*map[string]any
	for _, r := range EventRecords {
		out = append(out, awslambda.FilterCriteria_Filter(&map[string]any{
			"eventName": []string{r.EventName},
			"dynamodb":  map[string]any{"NewImage": map[string]any{schema.EntityType: map[string]any{"S": r.EntityTypes}}},
		}))
	}
	return &out
}

// Props configures the outbox. Only Table is required.
type Props struct {
	// Table is the single table; it must have a stream. Required.
	Table awsdynamodb.ITableV2
	// TableKey is the environment's customer-managed key; it encrypts the
	// function's logs. Default: nil.
	TableKey awskms.IKey
	// ModuleDir is the directory of the Go module holding lambdas/events.
	// Default: oncetable's own module as the app's build resolves it
	// (gofunction.ModuleDir), wherever the app's module is.
	ModuleDir string
	// BatchSize and BatchingWindow shape the mapping's batches; a window of
	// new(time.Duration(0)) invokes as soon as records arrive.
	// Defaults: 100 records, nil: 1 second.
	BatchSize      int
	BatchingWindow *time.Duration
	// RetryAttempts and MaxRecordAge bound retries of a failing record
	// before it goes to the failure queue; RetryAttempts new(0) sends a
	// failing record there at once. Defaults: nil: 10, 24 hours.
	RetryAttempts *int
	MaxRecordAge  time.Duration
	// ArchiveRetentionDays keeps the bus's events for replay; new(0) keeps
	// them indefinitely. Default: nil: 30 days.
	ArchiveRetentionDays *int
	// Bus is an event bus of the app's own to publish to instead of a new
	// one; the app archives it as it sees fit (no Archive is made).
	// Default: nil, a new bus named BusName, archived.
	Bus awsevents.IEventBus
	// BusName names the new bus. Default: a name CloudFormation derives
	// from the construct's path, unique per stack, so two instances never
	// collide.
	BusName string
	// IteratorAge alarms when the oldest unprocessed record is older (the
	// outbox is stuck or behind). Default: 1 minute.
	IteratorAge time.Duration
	// RemovalPolicy applies to the event history: the bus, its archive and
	// the failure queue. Default: RETAIN_ON_UPDATE_OR_DELETE (kept on
	// update and delete, removed when the first create fails).
	RemovalPolicy awscdk.RemovalPolicy
	// SteadyTraffic says the environment always writes money events, so a
	// period without any IteratorAge is itself a breach (the mapping stopped
	// invoking the function). Default: false: such periods are not
	// breaching, and the stuck alarm (writes to the table but nothing
	// polled from its stream) catches a stopped mapping.
	SteadyTraffic bool
	// LogRetentionDays and DestroyLogs apply to the function's logs.
	LogRetentionDays int
	DestroyLogs      bool
	// Monitor receives the alarms and widgets (*alarms.Operations).
	Monitor gofunction.Monitor
}

// PaymentEvents is the bus, the function, its mapping and its alarms.
type PaymentEvents struct {
	Construct constructs.Construct
	// Bus is Props.Bus or the new bus; Archive archives a new bus (nil
	// with Props.Bus).
	Bus          awsevents.IEventBus
	Archive      awsevents.Archive
	Function     *gofunction.Function
	Mapping      awslambda.EventSourceMapping
	FailureQueue awssqs.Queue
	Alarms       []awscloudwatch.Alarm
}

// New adds the outbox to scope.
func New(scope constructs.Construct, id string, props *Props) *PaymentEvents {
	if props == nil || props.Table == nil {
		panic("paymentevents: Props.Table is required")
	}
	p := withDefaults(*props)
	if p.Table.TableStreamArn() == nil {
		panic("paymentevents: the table has no stream")
	}
	c := constructs.NewConstruct(scope, jsii.String(id))
	e := &PaymentEvents{Construct: c}
	stack := awscdk.Stack_Of(c)

	e.Bus = p.Bus
	if e.Bus == nil {
		var name *string
		if p.BusName != "" {
			name = jsii.String(p.BusName)
		}
		bus := awsevents.NewEventBus(c, jsii.String("Bus"), &awsevents.EventBusProps{
			EventBusName: name,
			Description:  jsii.String("oncetable payment events (runtime/outbox), one per committed ledger entry and payment"),
		})
		// Retention 0 keeps the events indefinitely.
		e.Archive = bus.Archive(jsii.String("Archive"), &awsevents.BaseArchiveProps{
			Description:  jsii.String("Every payment event, for replays"),
			EventPattern: &awsevents.EventPattern{Account: &[]*string{stack.Account()}},
			Retention:    awscdk.Duration_Days(jsii.Number(float64(p.archiveDays))),
		})
		e.Bus = bus
	}

	e.Function = gofunction.New(c, "Function", &gofunction.Props{
		Entry:            "./lambdas/events",
		ModuleDir:        p.ModuleDir,
		ModulePath:       gofunction.OwnModulePath,
		Description:      "oncetable events function: the table's stream to the payment events bus",
		LogRetentionDays: p.LogRetentionDays,
		DestroyLogs:      p.DestroyLogs,
		LogKey:           p.TableKey,
		Environment:      config.Events{BusName: *e.Bus.EventBusName()}.Environment(),
	})
	role := e.Function.Role
	role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid: jsii.String("PutPaymentEvents"), Actions: jsii.Strings("events:PutEvents"), Resources: &[]*string{e.Bus.EventBusArn()},
	}))
	// The mapping reads this stream only.
	gofunction.GrantStreamRead(role, p.Table)
	if p.TableKey != nil {
		// Stream records of a table under a customer-managed key are
		// decrypted with it when read.
		role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Sid: jsii.String("TableKeyViaDynamoDB"), Actions: jsii.Strings("kms:Decrypt"), Resources: &[]*string{p.TableKey.KeyArn()},
			Conditions: &map[string]any{"StringEquals": map[string]any{"kms:ViaService": "dynamodb." + *stack.Region() + ".amazonaws.com"}},
		}))
	}
	e.mapping(c, p)
	retained := []awscdk.IResource{e.FailureQueue}
	if p.Bus == nil {
		retained = append(retained, e.Bus, e.Archive)
	}
	for _, r := range retained {
		r.ApplyRemovalPolicy(p.RemovalPolicy)
	}
	e.suppress(p.TableKey == nil)
	e.monitor(c, p)
	return e
}

// settings are Props with every default filled in.
type settings struct {
	Props
	batchingWindow time.Duration
	retryAttempts  int
	archiveDays    int
}

func withDefaults(p Props) settings {
	p.BatchSize = cmp.Or(p.BatchSize, DefaultBatchSize)
	p.MaxRecordAge = cmp.Or(p.MaxRecordAge, DefaultMaxRecordAge)
	p.IteratorAge = cmp.Or(p.IteratorAge, DefaultIteratorAge)
	p.RemovalPolicy = cmp.Or(p.RemovalPolicy, awscdk.RemovalPolicy_RETAIN_ON_UPDATE_OR_DELETE)
	s := settings{Props: p, batchingWindow: orDefault(p.BatchingWindow, DefaultBatchingWindow),
		retryAttempts: orDefault(p.RetryAttempts, DefaultRetryAttempts), archiveDays: orDefault(p.ArchiveRetentionDays, DefaultArchiveRetentionDays)}
	if p.BatchSize < 1 || p.BatchSize > 10000 || s.batchingWindow < 0 || s.batchingWindow > 300*time.Second || s.retryAttempts < 0 ||
		s.retryAttempts > 10000 || p.MaxRecordAge < time.Minute || p.MaxRecordAge > 7*24*time.Hour || s.archiveDays < 0 {
		panic(fmt.Sprintf("paymentevents: batch size %d (1..10000), window %s (0..5m), retries %d (0..10000), record age %s (1m..7d), "+
			"archive %d days (0: indefinitely) out of range", p.BatchSize, s.batchingWindow, s.retryAttempts, p.MaxRecordAge, s.archiveDays))
	}
	if p.Bus != nil && p.BusName != "" {
		panic("paymentevents: set Bus or BusName, not both")
	}
	return s
}

// orDefault is *v, or def when v is nil.
func orDefault[T any](v *T, def T) T {
	if v == nil {
		return def
	}
	return *v
}

// mapping connects the stream to the function. A batch fails record by
// record: the function reports the first record it could not publish, the
// mapping bisects and retries, then sends what still fails to the queue.
func (e *PaymentEvents) mapping(c constructs.Construct, p settings) {
	e.FailureQueue = alarms.DeadLetterQueue(c, "FailureQueue",
		"This queue is itself the on-failure destination of the events function's stream mapping, read by people after its alarm.")
	e.Mapping = e.Function.Function.AddEventSourceMapping(jsii.String("TableStream"), &awslambda.EventSourceMappingOptions{
		EventSourceArn:          p.Table.TableStreamArn(),
		StartingPosition:        awslambda.StartingPosition_TRIM_HORIZON,
		BatchSize:               jsii.Number(float64(p.BatchSize)),
		MaxBatchingWindow:       awscdk.Duration_Seconds(jsii.Number(p.batchingWindow.Seconds())),
		BisectBatchOnError:      jsii.Bool(true),
		RetryAttempts:           jsii.Number(float64(p.retryAttempts)),
		MaxRecordAge:            awscdk.Duration_Seconds(jsii.Number(p.MaxRecordAge.Seconds())),
		ReportBatchItemFailures: jsii.Bool(true),
		OnFailure:               awslambdaeventsources.NewSqsDlq(e.FailureQueue),
		Filters:                 eventFilters(),
		// PolledEventCount and friends: records read from the stream,
		// filtered out or not, for the stuck-consumer alarm.
		MetricsConfig: &awslambda.MetricsConfig{Metrics: &[]awslambda.MetricType{awslambda.MetricType_EVENT_COUNT}},
	})
}

func (e *PaymentEvents) suppress(noKey bool) {
	s := []*cdknag.NagPackSuppression{
		gofunction.StreamMappingDLQ(),
		{Id: jsii.String("PCI.DSS.321-LambdaInsideVPC"), Reason: jsii.String("The function calls only IAM-authenticated AWS " +
			"endpoints (EventBridge, X-Ray; Lambda reads the stream for it) over TLS and no private resource; a VPC would add " +
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
	cdknag.NagSuppressions_AddResourceSuppressions(e.Function.Construct, &s, jsii.Bool(true))
}

func (e *PaymentEvents) monitor(c constructs.Construct, p settings) {
	period := awscdk.Duration_Minutes(jsii.Number(5))
	iteratorAge := e.Function.Function.Metric(jsii.String("IteratorAge"), &awscloudwatch.MetricOptions{
		Period: period, Statistic: jsii.String("Maximum"),
	})
	missing, missingWhy := awscloudwatch.TreatMissingData_NOT_BREACHING, "periods without batches do not breach"
	if p.SteadyTraffic {
		missing, missingWhy = awscloudwatch.TreatMissingData_BREACHING, "a period without batches breaches (this environment always has traffic)"
	}
	lag := iteratorAge.CreateAlarm(c, jsii.String("IteratorAgeAlarm"), &awscloudwatch.CreateAlarmOptions{
		AlarmDescription: jsii.String(fmt.Sprintf("events: the oldest stream record waited %s or more in 2 of 3 periods of 5 minutes (%s): the outbox is behind, payment events are late.", alarms.Span(p.IteratorAge), missingWhy)),
		Threshold:        jsii.Number(float64(p.IteratorAge.Milliseconds())), EvaluationPeriods: jsii.Number(3), DatapointsToAlarm: jsii.Number(2),
		ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
		TreatMissingData:   missing,
	})
	writes := awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
		Namespace: jsii.String("AWS/DynamoDB"), MetricName: jsii.String("ConsumedWriteCapacityUnits"),
		DimensionsMap: &map[string]*string{"TableName": p.Table.TableName()},
		Statistic:     jsii.String("Sum"), Period: period, Label: jsii.String("table writes (units)"),
	})
	polled := awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
		Namespace: jsii.String("AWS/Lambda"), MetricName: jsii.String("PolledEventCount"),
		DimensionsMap: &map[string]*string{"EventSourceMappingUUID": e.Mapping.EventSourceMappingId()},
		Statistic:     jsii.String("Sum"), Period: period, Label: jsii.String("stream records polled"),
	})
	// Every committed write is a stream record, so writes without a single
	// polled record, three periods running, is a stopped or broken mapping.
	// FILL keeps the expression defined while either side has data; with
	// neither (no writes, nothing to poll) it has none, and that is fine.
	stuckExpr := awscloudwatch.NewMathExpression(&awscloudwatch.MathExpressionProps{
		Expression:   jsii.String("IF(FILL(writes, 0) > 0 AND FILL(polled, 0) == 0, 1, 0)"),
		UsingMetrics: &map[string]awscloudwatch.IMetric{"writes": writes, "polled": polled},
		Period:       period,
		Label:        jsii.String("table written, stream not read"),
	})
	stuck := stuckExpr.CreateAlarm(c, jsii.String("StuckAlarm"), &awscloudwatch.CreateAlarmOptions{
		AlarmDescription: jsii.String("events: the table was written but the stream mapping polled no record for 3 periods of 5 minutes in a row: the mapping is disabled, failing or lost its permissions; no payment event is published."),
		Threshold:        jsii.Number(1), EvaluationPeriods: jsii.Number(3), DatapointsToAlarm: jsii.Number(3),
		ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
		TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
	})
	dlq := alarms.QueueNotEmpty(c, "FailureQueueAlarm", e.FailureQueue,
		"events: stream records were given up on (retries or age exhausted): their payment events were never published; read FailureQueue and replay.")
	e.Alarms = append(e.Alarms, lag, stuck, dlq)
	if p.Monitor != nil {
		p.Monitor.AddAlarm(oncall.StreamConsumerLag, lag)
		p.Monitor.AddAlarm(oncall.StreamConsumerStuck, stuck)
		p.Monitor.AddAlarm(oncall.EventsDeadLetters, dlq)
		p.Monitor.AddWidgets(awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
			Title: jsii.String("events: stream iterator age (ms, max)"), Width: jsii.Number(8),
			Left:            &[]awscloudwatch.IMetric{iteratorAge},
			LeftAnnotations: &[]*awscloudwatch.HorizontalAnnotation{{Label: jsii.String("alarm"), Value: jsii.Number(float64(p.IteratorAge.Milliseconds()))}},
		}), awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
			Title: jsii.String("events: table writes against stream records polled"), Width: jsii.Number(8),
			Left: &[]awscloudwatch.IMetric{writes}, Right: &[]awscloudwatch.IMetric{polled},
		}), alarms.QueueDepthWidget("events: failure queue (dead letters)", e.FailureQueue))
		p.Monitor.AddWidgets(e.busWidget(period))
	}
	e.Alarms = append(e.Alarms, e.Function.Monitor(p.Monitor, &gofunction.AlarmProps{Name: "events"})...)
}

// busWidget graphs the payment events bus: the events its rules matched
// and the target invocations EventBridge attempted for them.
func (e *PaymentEvents) busWidget(period awscdk.Duration) awscloudwatch.IWidget {
	metric := func(name string) awscloudwatch.IMetric {
		return awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
			Namespace: jsii.String("AWS/Events"), MetricName: jsii.String(name),
			DimensionsMap: &map[string]*string{"EventBusName": e.Bus.EventBusName()},
			Statistic:     jsii.String("Sum"), Period: period,
		})
	}
	published := e.Function.Function.MetricInvocations(&awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("Sum")})
	return awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
		Title: jsii.String("Payment events bus: matched events, invocation attempts; events function invocations"), Width: jsii.Number(24),
		Left:  &[]awscloudwatch.IMetric{metric("MatchedEvents"), metric("InvocationAttempts")},
		Right: &[]awscloudwatch.IMetric{published},
	})
}
