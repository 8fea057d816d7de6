// Package streampoll drives a DynamoDB stream handler the way a Lambda
// event source mapping does, for running the production consumer locally:
// it reads a stream with the DynamoDB Streams API (the embedded engine's or
// any endpoint's), hands batches of records to the handler as an
// aws-lambda-go events.DynamoDBEvent, and honours the handler's
// events.DynamoDBEventResponse:
//
//   - a batch is at most Options.BatchSize records, gathered for at most
//     Options.BatchWindow;
//
//   - BatchItemFailures naming a record retries the batch from that record
//     (ReportBatchItemFailures); a handler error retries the whole batch;
//
//   - after Options.MaxRetries retries the failing record (or batch) goes
//     to Options.OnFailure and the poller moves past it, as an on-failure
//     destination would receive it;
//
//   - after each batch it saves each shard's checkpoint, the last record
//     finished with, in Options.Checkpoints (MemoryCheckpoints, or
//     FileCheckpoints for a process that restarts with its data). A new
//     Poller starts each shard after its checkpoint (GetShardIterator
//     AFTER_SEQUENCE_NUMBER): when a consumer's process dies in the middle
//     of a batch, after publishing part of it, the next one redelivers the
//     batch from its first unfinished record, as the event source mapping
//     resumes a shard from its checkpoint. A Poller whose context ends
//     while the handler runs applies nothing of that batch.
//
//     p := streampoll.New(eng.StreamsClient(), streamARN, publisher.Handle)
//     go p.Run(ctx)
//
// It reads every shard the stream describes at start, from its checkpoint
// or TRIM_HORIZON; it does not follow shard splits (the embedded engine
// never splits) and is not for production, where the event source mapping
// does this.
package streampoll
