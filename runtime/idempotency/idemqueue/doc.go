// Package idemqueue makes queue and stream consumers exactly-once on an
// [idempotency.Table], with the partial batch responses that Lambda's event
// source mappings expect (FunctionResponseTypes: ReportBatchItemFailures).
//
//	records := idempotency.NewTable(dynamodb.NewFromConfig(cfg), "shipments")
//	lambda.Start(idemqueue.SQS(records, idemqueue.Options[events.SQSMessage]{
//		Operation: "reserve-stock",
//		Key:       func(m events.SQSMessage) (string, error) { return orderID(m.Body) },
//	}, func(ctx context.Context, m events.SQSMessage, at idemqueue.Attempt) (*idempotency.Effect, error) {
//		eff := &idempotency.Effect{Status: 200}
//		eff.Items.Add("stock", reserve(m.Body)) // your own DynamoDB write
//		return eff, nil
//	}))
//
// [SQS], [DynamoDBStream], [Kinesis] and [EventBridge] run a [Work]
// function once per key, in one of two modes: [Transactional] (the
// effect's items and the record in one TransactWriteItems) or [LockFirst]
// (a pending record first, for an external call; a concurrent duplicate
// is reported as a batch failure and comes back later to replay).
//
//   - SQS standard: every message runs; the failed ones are returned.
//   - SQS FIFO (an ARN ending in .fifo): the first failure returns every
//     later message of the batch unrun, so order holds; with
//     Options.SkipFailedGroup only the rest of the failed message group.
//   - DynamoDB Streams and Kinesis: per shard, in order, the first failure
//     stops the shard and its sequence number is returned, where Lambda
//     resumes; records already applied replay when they come again.
//
// Options.Key is a function of the record (default: the message id or
// event id); Options.Fingerprint and Options.Caller are configurable, so
// one order arriving from two queues is still deduplicated. A panic in
// Work fails only its record. Options.OnReplay counts or logs replays.
//
// It is not for HTTP (runtime/idempotency/idemhttp).
package idemqueue
