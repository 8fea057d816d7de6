// Package idemqueue makes queue consumers exactly-once on an
// [idempotency.Table]: each message's effect commits with a record keyed by
// the message id, in one TransactWriteItems, so a redelivered message
// (SQS at-least-once delivery, an EventBridge retry) replays instead of
// running again.
//
//	lambda.Start(idemqueue.SQS(records, "ship-order", planShipment))
//
// [SQS] answers with partial batch failures (the event source mapping
// needs FunctionResponseTypes: ReportBatchItemFailures): only the messages
// whose effect failed come back. On a FIFO queue the first failure also
// fails every later message of the batch, so their order is kept.
// [EventBridge] returns an error for Lambda to retry.
//
// A message id is unique per queue, so keys are scoped to the event source
// ARN (for EventBridge, the source and account) and the operation. The
// fingerprint is the SHA-256 of the body: a different body under a reused
// id fails with idempotency.ErrKeyReused.
//
// Options.CheckTable compares the table with the records' options once,
// when the consumer is built (idempotency.Table.Check).
//
// It is not for HTTP (runtime/idempotency/idemhttp).
package idemqueue
