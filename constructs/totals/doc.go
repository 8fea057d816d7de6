// Package totals deploys the platform totaller (lambdas/totals,
// runtime/platform) on the table's stream: an event source mapping whose
// filter admits only inserted ledger entries, the records the totaller
// counts, hands each batch to the function, which adds the entries'
// platform legs to the stored platform totals exactly once (each entry is
// marked totalled in the same transaction).
//
//	t := totals.New(stack, "Totals", &totals.Props{Table: table.Table, Monitor: ops})
//
// The function may write only with UpdateItem, only in the users'
// partitions (the totalled mark on their ledger entries) and the platform
// totals' (an IAM condition on dynamodb:LeadingKeys), and read only the
// table's stream. A batch that still fails after its retries goes to an
// SQS failure queue; the entries it held stay unmarked, and
// `lambdas/platform -catch-up` totals them. Alarms (with Props.Monitor):
// totals-lag on the mapping's iterator age, totals-dead-letters on the
// failure queue, and the function's own (function-errors, ...); a
// dashboard row graphs every metric of obs.TotalsNamespace.
//
// It is not the events outbox (constructs/paymentevents), which reads the
// same stream with a mapping and a position of its own. Deploy it in one
// Region only: a global table's stream in each Region carries every
// Region's entries.
package totals
