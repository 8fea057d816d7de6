package alarms

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/oncetable/oncetable/constructs/oncall"
	"github.com/oncetable/oncetable/runtime/schema"
)

// TableAlarmsProps sets the thresholds of one table's alarms. The zero value
// of each field is its default.
type TableAlarmsProps struct {
	// IndexNames are the global secondary indexes whose throttles alarm:
	// pass the table's own, singletable.Table.IndexNames(), which follow its
	// order index stage. Default: nil, every index of runtime/schema at
	// stage v1 (GSI1, Unprocessed, Featured); pass []string{} for none.
	IndexNames []string

	// Period is the length of one evaluation period. Default: 5 minutes.
	Period time.Duration

	// ThrottleEvents is the number of read or write throttle events in one
	// period, per table or index, above which the alarm counts a breach;
	// 2 breaching periods out of 3 fire it. Default: 10.
	ThrottleEvents int

	// SystemErrors is the number of DynamoDB server errors in one period
	// above which a breach counts; 2 of 3 fire it (a ticket: the SDK
	// retries them, and what reaches callers pages as the API's and the
	// functions' error rates). Default: 5.
	SystemErrors int

	// TransactionConflicts is the number of transaction conflicts in one
	// period above which a breach counts; 2 of 3 fire it. Default: 50.
	TransactionConflicts int

	// KeyRangeThrottleEvents is the number of throttle events of one key
	// range (a hot partition: DynamoDB's ThrottlingReason
	// KeyRangeThroughputExceeded) in one period, per table or index and
	// per reads or writes, above which a breach counts; 2 of 3 fire it.
	// Default: ThrottleEvents.
	KeyRangeThrottleEvents int

	// OnDemandMaximum alarms on the throttle events caused by the table's
	// on-demand maximum throughput (MaxOnDemandThroughputThrottleEvents),
	// above ThrottleEvents in 2 of 3 periods: the cost guard is refusing
	// requests. Default: false (the table has no maximum).
	OnDemandMaximum bool

	// ReadUnitsPerSecond and WriteUnitsPerSecond are the capacity budget of
	// the table: the alarm fires when the average consumption stays above it
	// for 3 periods in a row. Defaults: 1000 and 500.
	ReadUnitsPerSecond  int
	WriteUnitsPerSecond int
}

// TableAlarms are the alarms of one table, all wired to the topic.
type TableAlarms struct {
	// Construct is the scope holding every resource below. It is a field, not
	// embedded: jsii rejects a Go struct that embeds a construct as a scope.
	Construct constructs.Construct
	// ReadThrottles and WriteThrottles are keyed by "" for the table and by
	// index name for each global secondary index.
	ReadThrottles  map[string]awscloudwatch.Alarm
	WriteThrottles map[string]awscloudwatch.Alarm
	// KeyRangeThrottles and OnDemandMaximumThrottles are keyed like
	// ReadThrottles, then by "Read" or "Write"; OnDemandMaximumThrottles is
	// empty without OnDemandMaximum.
	KeyRangeThrottles        map[string]map[string]awscloudwatch.Alarm
	OnDemandMaximumThrottles map[string]map[string]awscloudwatch.Alarm
	SystemErrors             awscloudwatch.Alarm
	TransactionConflicts     awscloudwatch.Alarm
	ConsumedRead             awscloudwatch.Alarm
	ConsumedWrite            awscloudwatch.Alarm
}

// SystemErrorOperations are the operations whose server errors are summed:
// the ones oncetable's runtime calls. A CloudWatch alarm takes at most ten
// metrics in one expression.
var SystemErrorOperations = []awsdynamodb.Operation{
	awsdynamodb.Operation_GET_ITEM, awsdynamodb.Operation_BATCH_GET_ITEM,
	awsdynamodb.Operation_QUERY, awsdynamodb.Operation_PUT_ITEM,
	awsdynamodb.Operation_UPDATE_ITEM, awsdynamodb.Operation_DELETE_ITEM,
	awsdynamodb.Operation_BATCH_WRITE_ITEM, awsdynamodb.Operation_TRANSACT_WRITE_ITEMS,
	awsdynamodb.Operation_TRANSACT_GET_ITEMS,
}

func (p TableAlarmsProps) withDefaults() TableAlarmsProps {
	if p.IndexNames == nil {
		for _, ix := range schema.Indexes() {
			p.IndexNames = append(p.IndexNames, ix.Name)
		}
	}
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	p.Period = cmp.Or(p.Period, 5*time.Minute)
	def(&p.ThrottleEvents, 10)
	def(&p.KeyRangeThrottleEvents, p.ThrottleEvents)
	def(&p.SystemErrors, 5)
	def(&p.TransactionConflicts, 50)
	def(&p.ReadUnitsPerSecond, 1000)
	def(&p.WriteUnitsPerSecond, 500)
	return p
}

// MonitorTable adds the table's alarms, all tickets by default (throttles,
// hot partitions, the on-demand maximum, system errors, conflicts and the
// capacity budget are causes: what reaches callers pages as error rates),
// routes them with AddAlarm, and adds their
// metrics and the ConditionalCheckFailedRequests business metric to the
// dashboard.
func (o *Operations) MonitorTable(id string, table awsdynamodb.ITableV2, props *TableAlarmsProps) *TableAlarms {
	if props == nil {
		props = &TableAlarmsProps{}
	}
	p := props.withDefaults()
	c := constructs.NewConstruct(o.Construct, jsii.String(id))
	ta := &TableAlarms{Construct: c, ReadThrottles: map[string]awscloudwatch.Alarm{}, WriteThrottles: map[string]awscloudwatch.Alarm{},
		KeyRangeThrottles: map[string]map[string]awscloudwatch.Alarm{}, OnDemandMaximumThrottles: map[string]map[string]awscloudwatch.Alarm{}}
	period := awscdk.Duration_Seconds(jsii.Number(p.Period.Seconds()))
	tableName := table.TableName()
	every := fmt.Sprintf("%g minutes", p.Period.Minutes())

	metric := func(name, index, statistic, label string) awscloudwatch.Metric {
		dims := map[string]*string{"TableName": tableName}
		if index != "" {
			dims["GlobalSecondaryIndexName"] = jsii.String(index)
		}
		return awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
			Namespace:     jsii.String("AWS/DynamoDB"),
			MetricName:    jsii.String(name),
			DimensionsMap: &dims,
			Statistic:     jsii.String(statistic),
			Period:        period,
			Label:         jsii.String(label),
		})
	}
	alarm := func(kind oncall.Kind, alarmID, description string, m awscloudwatch.IMetric, threshold float64, evaluations, datapoints int) awscloudwatch.Alarm {
		a := awscloudwatch.NewAlarm(c, jsii.String(alarmID), &awscloudwatch.AlarmProps{
			Metric:             m,
			Threshold:          jsii.Number(threshold),
			ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_THRESHOLD,
			EvaluationPeriods:  jsii.Number(evaluations),
			DatapointsToAlarm:  jsii.Number(datapoints),
			// DynamoDB publishes these metrics only when something happens.
			TreatMissingData: awscloudwatch.TreatMissingData_NOT_BREACHING,
			AlarmDescription: jsii.String(description),
		})
		o.AddAlarm(kind, a)
		return a
	}

	var readThrottleMetrics, writeThrottleMetrics, reasonMetrics []awscloudwatch.IMetric
	for _, index := range append([]string{""}, p.IndexNames...) {
		scope, suffix := "table", ""
		if index != "" {
			scope, suffix = "index "+index, index
		}
		r := metric("ReadThrottleEvents", index, "Sum", "read throttles "+scope)
		w := metric("WriteThrottleEvents", index, "Sum", "write throttles "+scope)
		readThrottleMetrics = append(readThrottleMetrics, r)
		writeThrottleMetrics = append(writeThrottleMetrics, w)
		ta.ReadThrottles[index] = alarm(oncall.TableThrottles, "ReadThrottleEvents"+suffix,
			fmt.Sprintf("More than %d read throttle events per %s on the %s in 2 of 3 periods: reads are being rejected.", p.ThrottleEvents, every, scope),
			r, float64(p.ThrottleEvents), 3, 2)
		ta.WriteThrottles[index] = alarm(oncall.TableThrottles, "WriteThrottleEvents"+suffix,
			fmt.Sprintf("More than %d write throttle events per %s on the %s in 2 of 3 periods: writes are being rejected.", p.ThrottleEvents, every, scope),
			w, float64(p.ThrottleEvents), 3, 2)

		ta.KeyRangeThrottles[index] = map[string]awscloudwatch.Alarm{}
		ta.OnDemandMaximumThrottles[index] = map[string]awscloudwatch.Alarm{}
		for _, op := range []string{"Read", "Write"} {
			kr := metric(op+"KeyRangeThroughputThrottleEvents", index, "Sum", strings.ToLower(op)+" key-range throttles "+scope)
			ta.KeyRangeThrottles[index][op] = alarm(oncall.TableHotPartition, op+"KeyRangeThrottleEvents"+suffix,
				fmt.Sprintf("More than %d %s throttle events of one key range per %s on the %s in 2 of 3 periods: a hot partition; spread the keys.",
					p.KeyRangeThrottleEvents, strings.ToLower(op), every, scope),
				kr, float64(p.KeyRangeThrottleEvents), 3, 2)
			mx := metric(op+"MaxOnDemandThroughputThrottleEvents", index, "Sum", strings.ToLower(op)+" on-demand maximum throttles "+scope)
			if p.OnDemandMaximum {
				ta.OnDemandMaximumThrottles[index][op] = alarm(oncall.TableOnDemandMaximum, op+"MaxOnDemandThrottleEvents"+suffix,
					fmt.Sprintf("More than %d %s throttle events per %s on the %s in 2 of 3 periods from the on-demand maximum throughput (the cost guard): raise it in cdk.json or find the runaway client.",
						p.ThrottleEvents, strings.ToLower(op), every, scope),
					mx, float64(p.ThrottleEvents), 3, 2)
			}
			acct := metric(op+"AccountLimitThrottleEvents", index, "Sum", strings.ToLower(op)+" account-limit throttles "+scope)
			reasonMetrics = append(reasonMetrics, kr, mx, acct)
		}
	}

	systemErrors := table.MetricSystemErrorsForOperations(&awsdynamodb.SystemErrorsForOperationsMetricOptions{
		Operations: &SystemErrorOperations,
		Period:     period,
		Label:      jsii.String("system errors"),
	})
	ta.SystemErrors = alarm(oncall.TableSystemErrors, "SystemErrors",
		fmt.Sprintf("More than %d DynamoDB server errors per %s in 2 of 3 periods: requests are failing inside DynamoDB.", p.SystemErrors, every),
		systemErrors, float64(p.SystemErrors), 3, 2)

	conflicts := metric("TransactionConflict", "", "Sum", "transaction conflicts")
	ta.TransactionConflicts = alarm(oncall.TransactionConflicts, "TransactionConflicts",
		fmt.Sprintf("More than %d transaction conflicts per %s in 2 of 3 periods: hot items are contended.", p.TransactionConflicts, every),
		conflicts, float64(p.TransactionConflicts), 3, 2)

	seconds := p.Period.Seconds()
	read := metric("ConsumedReadCapacityUnits", "", "Sum", "consumed read units")
	write := metric("ConsumedWriteCapacityUnits", "", "Sum", "consumed write units")
	ta.ConsumedRead = alarm(oncall.TableCapacityBudget, "ConsumedReadCapacity",
		fmt.Sprintf("Reads above the budget of %d units/s for 3 periods of %s in a row.", p.ReadUnitsPerSecond, every),
		read, float64(p.ReadUnitsPerSecond)*seconds, 3, 3)
	ta.ConsumedWrite = alarm(oncall.TableCapacityBudget, "ConsumedWriteCapacity",
		fmt.Sprintf("Writes above the budget of %d units/s for 3 periods of %s in a row.", p.WriteUnitsPerSecond, every),
		write, float64(p.WriteUnitsPerSecond)*seconds, 3, 3)

	conditional := metric("ConditionalCheckFailedRequests", "", "Sum", "conditional check failed")

	graph := func(title string, left []awscloudwatch.IMetric, annotations ...*awscloudwatch.HorizontalAnnotation) awscloudwatch.IWidget {
		return awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
			Title:           jsii.String(title),
			Left:            &left,
			LeftAnnotations: &annotations,
			Width:           jsii.Number(8),
			Height:          jsii.Number(6),
		})
	}
	limit := func(v float64, label string) *awscloudwatch.HorizontalAnnotation {
		return &awscloudwatch.HorizontalAnnotation{Value: jsii.Number(v), Label: jsii.String(label)}
	}
	o.AddWidgets(
		graph("Read throttle events", readThrottleMetrics, limit(float64(p.ThrottleEvents), "alarm")),
		graph("Write throttle events", writeThrottleMetrics, limit(float64(p.ThrottleEvents), "alarm")),
		graph("System errors", []awscloudwatch.IMetric{systemErrors}, limit(float64(p.SystemErrors), "alarm")),
	)
	// Why DynamoDB throttles: a hot key range, the on-demand maximum, or
	// the account's limit; one graph per reason family would hide the mix.
	o.AddWidgets(awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
		Title:           jsii.String("Throttle events by reason (key range, on-demand maximum, account limit)"),
		Left:            &reasonMetrics,
		LeftAnnotations: &[]*awscloudwatch.HorizontalAnnotation{limit(float64(p.KeyRangeThrottleEvents), "key-range alarm")},
		Width:           jsii.Number(24),
		Height:          jsii.Number(6),
	}))
	o.AddWidgets(
		graph("Transaction conflicts", []awscloudwatch.IMetric{conflicts}, limit(float64(p.TransactionConflicts), "alarm")),
		graph("Consumed capacity units", []awscloudwatch.IMetric{read, write},
			limit(float64(p.ReadUnitsPerSecond)*seconds, "read budget"), limit(float64(p.WriteUnitsPerSecond)*seconds, "write budget")),
		// A refused duplicate or overdraft is the system working: graphed, never paged.
		graph("Conditional check failures (business outcome, not paged)", []awscloudwatch.IMetric{conditional}),
	)
	return ta
}
