// Package republish publishes payment events again, rebuilt from the
// table, for consumers that missed them: the events of a time range, or
// those of the stream batches the events function gave up on (the
// messages of its failure queue). The table is the outbox (runtime/outbox),
// so every event a committed change produced can be rebuilt from the
// items as they are now ([outbox.FromItem]), under its original id:
// a consumer that deduplicates by id (as docs/events.md asks) receives
// each event once however many times it is republished.
//
//	evs, err := republish.Rebuild(ctx, db, []republish.Window{{From: from, To: to}}, func(o *republish.Options) {
//		o.Table = "oncetable"
//	})
//	// print evs (a dry run), or publish them:
//	n, err := outbox.NewPublisher(bus).Publish(ctx, evs)
//
// [Rebuild] scans the whole table (eventually consistent, 0.5 RCU per
// 4 KB read), keeps the events committed inside the windows, and returns
// them in commit order, so each user's events reach the bus in the order
// they were committed. An order whose payment's event is rebuilt after the
// order moved on costs one GetItem of the payment, for its time.
//
// [ReadFailures] reads the failure queue's messages (each names a stream
// batch by shard, sequence numbers and arrival times, not its records) and
// [Failure.Window] turns each into the window of the batch's records.
//
// The operator's command is runtime/republish/cli (lambdas/republish,
// make republish), a dry run unless told to publish;
// docs/runbook.md#republishing-events is the procedure. It is not the
// stream consumer (runtime/outbox) and repairs nothing in the table.
package republish
