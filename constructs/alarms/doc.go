// Package alarms is the CDK construct for oncetable's operations signals: an
// encrypted SNS topic that only accepts TLS publishes, optional routing of
// that topic to Slack through AWS Chatbot, and one CloudWatch dashboard.
//
//	ops := alarms.NewOperations(stack, "Operations", &alarms.OperationsProps{
//		SlackWorkspaceID: "T0123ABCD", SlackChannelID: "C0123ABCD",
//	})
//	ops.MonitorTable("Table", table.Table, nil) // throttles, errors, conflicts, capacity
//	ops.AddAlarm(myLambdaErrorsAlarm)            // later alarms page the same topic
//	ops.AddWidgets(myLambdaGraph)                // and share the dashboard
//
// MonitorTable alarms on read and write throttle events of the table and of
// each global secondary index, system errors, transaction conflicts and
// consumed capacity above a budget. ConditionalCheckFailedRequests is a
// business outcome (a duplicate payment refused, an overdraft prevented), not
// a fault: it is graphed on the dashboard and never pages.
//
// It is not for creating the table or its backups; the backup construct
// routes failed backup jobs to Topic through an EventBridge rule.
package alarms
