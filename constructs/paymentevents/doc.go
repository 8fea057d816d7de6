// Package paymentevents is the CDK construct for oncetable's outbox: the
// table's DynamoDB stream drives lambdas/events (runtime/outbox) through an
// event source mapping, which publishes payment events to a custom
// EventBridge bus with an archive for replays.
//
//	paymentevents.New(stack, "Events", &paymentevents.Props{Table: table.Table, Monitor: ops})
//
// The mapping's filter lets only records that can carry an event invoke
// the function; it bisects a failing batch, reports partial failures
// (ReportBatchItemFailures), gives up after a number of retries or a record
// age, and then sends the record's metadata to an encrypted, TLS-only
// queue whose depth alarms. IteratorAge (a stuck outbox), the function's
// errors and the queue's depth page Props.Monitor.
//
// The function may PutEvents on its bus only and read that table's stream
// only. It is not for the table itself (constructs/singletable), which
// must have a stream.
package paymentevents
