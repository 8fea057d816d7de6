// Command consumer is another team's CDK app in a Go module of its own
// (go.mod, with a replace directive to oncetable) that uses every
// oncetable construct, the payments API and the outbox included, with
// default props wherever it can. Its functions are bundled from
// oncetable's module, found as the app's build resolves it: this module
// has no lambdas/. It also holds two instances of the payments constructs
// in one stack, brings its own alarm topic and event bus, and asks for
// zeros a zero value could not express (no retry, no batching window).
// make test runs its test, which synthesizes it; it is the README's
// import example.
package main

import (
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsevents"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/jsii-runtime-go"

	"github.com/oncetable/oncetable/constructs/alarms"
	"github.com/oncetable/oncetable/constructs/backup"
	"github.com/oncetable/oncetable/constructs/oncall"
	"github.com/oncetable/oncetable/constructs/paymentevents"
	"github.com/oncetable/oncetable/constructs/paymentsapi"
	"github.com/oncetable/oncetable/constructs/singletable"
)

func main() {
	defer jsii.Close()
	app := awscdk.NewApp(nil)
	newStack(app)
	app.Synth(nil)
}

// consumerStack is what newStack built, for the test.
type consumerStack struct {
	stack            awscdk.Stack
	topic            awssns.Topic
	bus              awsevents.EventBus
	payments, second *paymentsapi.PaymentsAPI
	events, ownBus   *paymentevents.PaymentEvents
}

func newStack(app awscdk.App) *consumerStack {
	stack := awscdk.NewStack(app, jsii.String("Payments"), &awscdk.StackProps{
		Env: &awscdk.Environment{Region: jsii.String("eu-west-1")},
	})
	s := &consumerStack{stack: stack}

	// Production defaults: on-demand, PITR 35 days, deletion protection,
	// retained (but not left behind by a failed first create). The outbox
	// reads the table's stream.
	table := singletable.NewTable(stack, "Table", &singletable.TableProps{Stream: true})

	// Pages to a pager's endpoint, tickets to a queue's address; every
	// alarm's description links to a section of the team's runbook.
	ops := alarms.NewOperations(stack, "Operations", &alarms.OperationsProps{
		Page:       alarms.Subscribers{HTTPSEndpoints: []string{"https://pager.example.com/events"}},
		Ticket:     alarms.Subscribers{Emails: []string{"payments-tickets@example.com"}},
		RunbookURL: "https://wiki.example.com/payments/runbook",
	})
	ops.MonitorTable("Table", table.Table, nil)

	// The team's own topic receives failed backup, copy and restore jobs.
	s.topic = awssns.NewTopic(stack, jsii.String("TeamAlarms"), &awssns.TopicProps{EnforceSSL: jsii.Bool(true)})
	backup.NewTableBackup(stack, "Backup", table.Table, &backup.TableBackupProps{
		AlarmTopic:  s.topic, // the failed jobs' events
		Monitor:     ops,     // the alarms, routed by kind
		RestoreTest: &backup.RestoreTest{Schedule: backup.Monthly},
	})

	// The payments API and the outbox with default props: only the table.
	s.payments = paymentsapi.New(stack, "Payments", &paymentsapi.Props{Table: table.Table})
	s.events = paymentevents.New(stack, "Events", &paymentevents.Props{Table: table.Table})

	// A second API over the same table in the same stack, and a second
	// outbox publishing to the team's own bus, with no retry and no
	// batching window.
	s.second = paymentsapi.New(stack, "PartnerPayments", &paymentsapi.Props{Table: table.Table, Monitor: ops})
	s.bus = awsevents.NewEventBus(stack, jsii.String("TeamBus"), nil)
	s.ownBus = paymentevents.New(stack, "TeamEvents", &paymentevents.Props{
		Table:          table.Table,
		Bus:            s.bus,
		RetryAttempts:  new(0),
		BatchingWindow: new(time.Duration(0)),
		Monitor:        ops,
	})

	// The team's own alarm, of a kind of its own (a ticket, shown with the
	// table's alarms), joins the same topics and dashboard.
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
	return s
}
