// Package reconcile runs the money verifier (runtime/verify) over the live
// table, continuously, in steps small enough for a scheduled Lambda
// function (lambdas/reconcile): it finds a balance that stops matching its
// ledger before a customer does.
//
// Each invocation ([Reconciler.Run]):
//
//  1. reads the checkpoint item (CONTROL#reconcile / CHECKPOINT), creating
//     the first pass's;
//  2. takes the checkpoint's lease with a conditional write (the version it
//     read, no unexpired lease), or, when another invocation holds it, does
//     nothing (metric Skipped);
//  3. scans from the checkpoint's cursor (each Scan segment's
//     LastEvaluatedKey), in parallel segments, paced on the consumed read
//     capacity (MaxRCU), until its budget is spent;
//  4. stores the facts it read in chunk items of the pass's partition
//     (TTL ChunkTTL) and advances the checkpoint with a write conditional on
//     the version it read and on still holding the lease: two overlapping
//     invocations never both advance it, and the loser's work is dropped;
//  5. when the pass has read its last page, joins every accepted step's
//     facts and checks them (verify.Check), re-reads each violation's
//     partitions strongly consistent (verify.Confirm), twice,
//     ConfirmDelay apart, so that a transaction the scan saw half of, or a
//     flow in progress, does not page (an effect younger than InFlight
//     at the pass's start is checked for its idempotency record by the
//     next pass: no re-read can name its record's partition), starts the
//     next pass and publishes the verdict: EMF metrics in obs.ReconcileNamespace
//     (Violations pages, see docs/runbook.md#reconcile-violations) and one
//     log line per confirmed violation with its keys.
//
// It reads the table and writes only its own control items: it repairs
// nothing. docs/recovery.md says what to do with each kind of violation.
//
// Cost: the scan reads every item once per pass (0.5 RCU per 4 KB,
// eventually consistent), plus the chunks of a pass that spans
// invocations (written and read once, about 30 bytes per money item,
// compressed); make bench-reconcile measures it per million items on the
// engine, with the lag between a corruption and its page.
package reconcile
