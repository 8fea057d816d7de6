// Package alarms is the CDK construct for oncetable's operations signals:
// two encrypted SNS topics that only accept TLS publishes, one per severity
// (Page and Ticket, see constructs/oncall), optional routing of each to
// Slack through AWS Chatbot and to email and HTTPS subscribers, and one
// CloudWatch dashboard.
//
//	ops := alarms.NewOperations(stack, "Operations", &alarms.OperationsProps{
//		SlackWorkspaceID: "T0123ABCD",
//		Page:             alarms.Subscribers{SlackChannelID: "C0123ABCD", HTTPSEndpoints: []string{pagerURL}},
//		Ticket:           alarms.Subscribers{Emails: []string{"payments-tickets@example.com"}},
//		Routing:          oncall.Routing{"api-latency": oncall.Page},
//	})
//	ops.MonitorTable("Table", table.Table, nil)           // throttles, errors, conflicts, capacity: tickets
//	ops.AddAlarm(oncall.FunctionErrors, myLambdaAlarm)    // routed by its kind, linked to its runbook section
//	ops.AddWidgets(myLambdaGraph)                         // and shares the dashboard
//
// AddAlarm sends an alarm's ALARM and OK transitions to the topic of its
// kind's severity and rewrites its description as "[page] what happened
// Runbook: <RunbookURL>#<kind>". The dashboard starts with one alarm status
// row per group (operations, api, functions, events, table, backup), laid
// out by an aspect once every construct has added its alarms, then the rows
// of graphs in the order they were added.
//
// MonitorTable alarms on read and write throttle events of the table and of
// each global secondary index, system errors, transaction conflicts and
// consumed capacity above a budget, all tickets by default: callers feel
// them as the API's and the functions' error rates, which page.
// ConditionalCheckFailedRequests is a business outcome (a duplicate payment
// refused, an overdraft prevented), not a fault: it is graphed and never
// alarms.
//
// It is not for creating the table or its backups; the backup construct
// routes failed backup jobs to a topic through an EventBridge rule and
// hands its alarms to a Monitor.
package alarms
