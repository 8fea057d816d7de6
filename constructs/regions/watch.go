package regions

import (
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
)

// DefaultReplicationLatency is WatchProps.ReplicationLatency's default.
const DefaultReplicationLatency = 5 * time.Second

// WatchProps configures one Region's watch. Table, StreamARN and Homes
// are required.
type WatchProps struct {
	// Table is this Region's replica of the money table (the table itself
	// in its own stack, or one imported by name in a replica's Region).
	Table awsdynamodb.ITableV2
	// StreamARN is the stream of this Region's replica, NEW_AND_OLD_IMAGES.
	StreamARN *string
	// TableKey is the replica's customer-managed key, if any; it also
	// encrypts the function's log group. Default: nil.
	TableKey awskms.IKey
	// Homes is this Region's homes (config.Homes, enabled): the function
	// watches Homes.Region's replica.
	Homes config.Homes
	// ModuleDir is the Go module holding lambdas/regionwatch. Default:
	// oncetable's own module as the app's build resolves it.
	ModuleDir string
	// ReplicaRegions are the Regions this Region replicates to: one
	// replication-latency alarm each. Default: none.
	ReplicaRegions []string
	// ReplicationLatency alarms when a replica's average latency stays
	// above it for 15 minutes. Default: DefaultReplicationLatency.
	ReplicationLatency time.Duration
	// LogRetentionDays of the function's log group. Default: 30.
	LogRetentionDays int
	// DestroyLogs deletes the log group with the stack. Default: retained.
	DestroyLogs bool
	// Monitor receives the alarms and a dashboard row. Default: nil, no
	// alarms.
	Monitor gofunction.Monitor
}

// Watch is one Region's stream consumer and its alarms.
type Watch struct {
	Construct    constructs.Construct
	Function     *gofunction.Function
	Mapping      awslambda.EventSourceMapping
	FailureQueue awssqs.Queue
	// OutsideOwnerAlarm (outside-owner-writes), MismatchAlarm
	// (ledger-mismatch) and LatencyAlarms (replication-latency, by
	// receiving Region); nil without WatchProps.Monitor.
	OutsideOwnerAlarm awscloudwatch.Alarm
	MismatchAlarm     awscloudwatch.Alarm
	LatencyAlarms     map[string]awscloudwatch.Alarm
}

// Access is what the watch function calls on the table: reads anywhere
// (ownership items, a user's partition), puts of quarantine items in user
// partitions only.
var Access = struct {
	ReadActions, WriteActions, WritePartitions []string
}{
	ReadActions:     []string{"dynamodb:GetItem", "dynamodb:Query"},
	WriteActions:    []string{"dynamodb:PutItem"},
	WritePartitions: []string{"USER#*"},
}

// NewWatch adds the watch of one Region to scope, whose stack is in that
// Region. It panics on missing props.
func NewWatch(scope constructs.Construct, id string, props *WatchProps) *Watch {
	if props == nil || props.Table == nil || props.StreamARN == nil || !props.Homes.Enabled() {
		panic("regions: a watch needs Table, StreamARN and enabled Homes")
	}
	p := *props
	if p.ReplicationLatency == 0 {
		p.ReplicationLatency = DefaultReplicationLatency
	}
	c := constructs.NewConstruct(scope, jsii.String(id))
	w := &Watch{Construct: c, LatencyAlarms: map[string]awscloudwatch.Alarm{}}
	table := *p.Table.TableName()
	w.Function = gofunction.New(c, "Function", &gofunction.Props{
		Entry:            "./lambdas/regionwatch",
		ModuleDir:        p.ModuleDir,
		ModulePath:       gofunction.OwnModulePath,
		Description:      "oncetable regionwatch: quarantines late writes of an old home and checks accounts homed in " + p.Homes.Region,
		Timeout:          time.Minute,
		LogRetentionDays: p.LogRetentionDays,
		DestroyLogs:      p.DestroyLogs,
		LogKey:           p.TableKey,
		Environment:      config.RegionWatch{Table: table, Homes: p.Homes}.Environment(),
	})
	w.grant(p)
	w.FailureQueue = alarms.DeadLetterQueue(c, "FailureQueue",
		"This queue is itself the on-failure destination of the region watch's stream mapping, read by people after its alarm.")
	w.Mapping = w.Function.Function.AddEventSourceMapping(jsii.String("TableStream"), &awslambda.EventSourceMappingOptions{
		EventSourceArn:          p.StreamARN,
		StartingPosition:        awslambda.StartingPosition_TRIM_HORIZON,
		BatchSize:               jsii.Number(100),
		BisectBatchOnError:      jsii.Bool(true),
		RetryAttempts:           jsii.Number(10),
		ReportBatchItemFailures: jsii.Bool(true),
		OnFailure:               awslambdaeventsources.NewSqsDlq(w.FailureQueue),
	})
	w.suppress(p.TableKey == nil)
	if p.Monitor != nil {
		w.monitor(p, table)
	}
	return w
}

func (w *Watch) grant(p WatchProps) {
	role := w.Function.Role
	role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid: jsii.String("ReadTable"), Actions: jsii.Strings(Access.ReadActions...), Resources: &[]*string{p.Table.TableArn()},
	}))
	role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid: jsii.String("QuarantineLateWrites"), Actions: jsii.Strings(Access.WriteActions...), Resources: &[]*string{p.Table.TableArn()},
		Conditions: &map[string]any{"ForAllValues:StringLike": map[string]any{"dynamodb:LeadingKeys": Access.WritePartitions}},
	}))
	role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid: jsii.String("ReadStream"), Actions: jsii.Strings("dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator"),
		Resources: &[]*string{p.StreamARN},
	}))
	role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid: jsii.String("ListStreams"), Actions: jsii.Strings("dynamodb:ListStreams"), Resources: jsii.Strings("*"),
	}))
	if p.TableKey != nil {
		role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Sid:       jsii.String("TableKeyViaDynamoDB"),
			Actions:   jsii.Strings("kms:Decrypt", "kms:DescribeKey", "kms:Encrypt", "kms:GenerateDataKey"),
			Resources: &[]*string{p.TableKey.KeyArn()},
			Conditions: &map[string]any{
				"StringEquals": map[string]any{"kms:ViaService": "dynamodb." + p.Homes.Region + ".amazonaws.com"},
			},
		}))
	}
}

func (w *Watch) suppress(noKey bool) {
	s := []*cdknag.NagPackSuppression{
		gofunction.StreamMappingDLQ(),
		{Id: jsii.String("PCI.DSS.321-LambdaInsideVPC"), Reason: jsii.String("The function calls only IAM-authenticated AWS " +
			"endpoints (DynamoDB, CloudWatch Logs, X-Ray) over TLS and no private resource; a VPC would add NAT or endpoint " +
			"costs without narrowing what the role may reach.")},
		{Id: jsii.String("PCI.DSS.321-IAMNoInlinePolicy"), Reason: jsii.String("The policy is the function's own role policy, " +
			"attached to that one role and created and deleted with it.")},
		gofunction.ListStreamsOnAnyResource(),
	}
	if noKey {
		s = append(s, &cdknag.NagPackSuppression{Id: jsii.String("PCI.DSS.321-CloudWatchLogGroupEncrypted"), Reason: jsii.String(
			"This environment has no customer-managed key (customerManagedKey is off in cdk.json): CloudWatch Logs encrypts the " +
				"group at rest with its own key. Environments with a key (prod) encrypt every log group with it.")})
	}
	cdknag.NagSuppressions_AddResourceSuppressions(w.Function.Construct, &s, jsii.Bool(true))
}

// regionsMetric is a metric of obs.RegionsNamespace for table, summed
// over 5 minutes. It has no label: a labelled metric's alarm is rendered
// as metric math.
func regionsMetric(table, name string) awscloudwatch.Metric {
	return awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
		Namespace: jsii.String(obs.RegionsNamespace), MetricName: jsii.String(name),
		DimensionsMap: &map[string]*string{"Table": jsii.String(table)},
		Statistic:     jsii.String("Sum"), Period: awscdk.Duration_Minutes(jsii.Number(5)),
	})
}

func (w *Watch) monitor(p WatchProps, table string) {
	atLeastOne := func(id, description string, m awscloudwatch.Metric) awscloudwatch.Alarm {
		return m.CreateAlarm(w.Construct, jsii.String(id), &awscloudwatch.CreateAlarmOptions{
			AlarmDescription: jsii.String(description),
			Threshold:        jsii.Number(1), EvaluationPeriods: jsii.Number(1), DatapointsToAlarm: jsii.Number(1),
			ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
			// The watch publishes only when it finds something.
			TreatMissingData: awscloudwatch.TreatMissingData_NOT_BREACHING,
		})
	}
	w.OutsideOwnerAlarm = atLeastOne("OutsideOwnerAlarm", fmt.Sprintf("regionwatch %s: ledger entries an old home wrote reached "+
		"this Region after it claimed a later epoch; each is quarantined (a LateWrite item) and logged with its amount.", p.Homes.Region),
		regionsMetric(table, obs.OutsideOwnerWrites))
	w.MismatchAlarm = atLeastOne("MismatchAlarm", fmt.Sprintf("regionwatch %s: an account homed in this Region has a ledger that "+
		"does not sum to its balance, or a negative balance, after a change; the function's log names the user.", p.Homes.Region),
		regionsMetric(table, obs.LedgerMismatches))
	p.Monitor.AddAlarm(oncall.OutsideOwnerWrites, w.OutsideOwnerAlarm,
		alarms.QueueNotEmpty(w.Construct, "FailureQueueAlarm", w.FailureQueue,
			"regionwatch: stream records the watch could not check after its retries: a late write among them is not quarantined."))
	p.Monitor.AddAlarm(oncall.LedgerMismatch, w.MismatchAlarm)

	latency := []awscloudwatch.IMetric{}
	for _, r := range p.ReplicaRegions {
		m := awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
			Namespace: jsii.String("AWS/DynamoDB"), MetricName: jsii.String("ReplicationLatency"),
			DimensionsMap: &map[string]*string{"TableName": jsii.String(table), "ReceivingRegion": jsii.String(r)},
			Statistic:     jsii.String("Average"), Period: awscdk.Duration_Minutes(jsii.Number(5)),
		})
		a := m.CreateAlarm(w.Construct, jsii.String("ReplicationLatencyAlarm-"+r), &awscloudwatch.CreateAlarmOptions{
			AlarmDescription: jsii.String(fmt.Sprintf("replication from %s to %s averaged above %s for 15 minutes: a planned failover's "+
				"drain waits that long, and a takeover would lose that much to quarantine.", p.Homes.Region, r, p.ReplicationLatency)),
			Threshold: jsii.Number(float64(p.ReplicationLatency.Milliseconds())), EvaluationPeriods: jsii.Number(3), DatapointsToAlarm: jsii.Number(3),
			ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_THRESHOLD,
			// No writes, no latency to measure.
			TreatMissingData: awscloudwatch.TreatMissingData_NOT_BREACHING,
		})
		w.LatencyAlarms[r] = a
		p.Monitor.AddAlarm(oncall.ReplicationLatency, a)
		latency = append(latency, m)
	}
	w.Function.Monitor(p.Monitor, &gofunction.AlarmProps{Name: "regionwatch"})

	var graphed []awscloudwatch.IMetric
	for _, m := range obs.Catalogue() {
		if m.Namespace == obs.RegionsNamespace {
			graphed = append(graphed, awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
				Namespace: jsii.String(m.Namespace), MetricName: jsii.String(m.Name),
				DimensionsMap: &map[string]*string{"Table": jsii.String(table)},
				Statistic:     jsii.String("Sum"), Period: awscdk.Duration_Minutes(jsii.Number(5)), Label: jsii.String(m.Name),
			}))
		}
	}
	p.Monitor.AddWidgets(awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
		Title: jsii.String(fmt.Sprintf("Region watch of %s (%s)", p.Homes.Region, obs.RegionsNamespace)), Width: jsii.Number(12), Left: &graphed,
	}), awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
		Title: jsii.String("Replication latency from " + p.Homes.Region + " (ms)"), Width: jsii.Number(12), Left: &latency,
	}))
}
