// Command consumer is a minimal CDK app outside oncetable's own app that
// imports the constructs as any other Go CDK app would. test/cdk runs it and
// checks what it synthesizes; it is also the README's import example.
package main

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/jsii-runtime-go"

	"github.com/oncetable/oncetable/constructs/alarms"
	"github.com/oncetable/oncetable/constructs/backup"
	"github.com/oncetable/oncetable/constructs/oncall"
	"github.com/oncetable/oncetable/constructs/singletable"
)

func main() {
	defer jsii.Close()
	app := awscdk.NewApp(nil)
	stack := awscdk.NewStack(app, jsii.String("Payments"), nil)

	// nil props: on-demand, PITR 35 days, deletion protection, RETAIN.
	table := singletable.NewTable(stack, "Table", nil)

	// Pages to a pager's endpoint, tickets to a queue's address; every
	// alarm's description links to a section of the consumer's runbook.
	ops := alarms.NewOperations(stack, "Operations", &alarms.OperationsProps{
		Page:       alarms.Subscribers{HTTPSEndpoints: []string{"https://pager.example.com/events"}},
		Ticket:     alarms.Subscribers{Emails: []string{"payments-tickets@example.com"}},
		RunbookURL: "https://wiki.example.com/payments/runbook",
	})
	ops.MonitorTable("Table", table.Table, &alarms.TableAlarmsProps{ThrottleEvents: 1})

	backup.NewTableBackup(stack, "Backup", table.Table, &backup.TableBackupProps{
		AlarmTopic: ops.Ticket.Topic, // the failed jobs' events, with their IDs
		Monitor:    ops,              // the alarms, routed by kind
		Rules:      []backup.Rule{{Schedule: backup.Daily, RetentionDays: 14}},
	})

	// The consumer's own alarm, of a kind of its own (a ticket, shown with
	// the table's alarms), joins the same topics and dashboard.
	getItemLatency := oncall.Kind{Name: "getitem-latency", Severity: oncall.Ticket, Group: oncall.GroupTable}
	latency := table.Table.MetricSuccessfulRequestLatency(&awscloudwatch.MetricOptions{
		DimensionsMap: &map[string]*string{"TableName": table.Table.TableName(), "Operation": jsii.String("GetItem")},
	})
	ops.AddAlarm(getItemLatency, latency.CreateAlarm(stack, jsii.String("GetItemLatency"), &awscloudwatch.CreateAlarmOptions{
		Threshold:         jsii.Number(50),
		EvaluationPeriods: jsii.Number(3),
	}))
	ops.AddWidgets(awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
		Title: jsii.String("GetItem latency"),
		Left:  &[]awscloudwatch.IMetric{latency},
	}))

	app.Synth(nil)
}
