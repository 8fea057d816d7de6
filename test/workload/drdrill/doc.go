// Package drdrill is `make dr-drill`: a rehearsal of a point-in-time
// restore under load. It runs the invariant workload (test/workload) with
// its faults on the embedded engine, with point-in-time recovery enabled on
// the table; in the middle of the traffic it takes the restore point; after
// the traffic it restores the table to that point with
// RestoreTableToPointInTime (through the DynamoDB API, as against AWS),
// verifies the restored table with runtime/verify and prints:
//
//   - the RTO: how long the restore took, plus the verification;
//   - the RPO: the money movements (ledger entries: credits, debits,
//     settles) the events pipeline delivered as committed after the restore
//     point that the restored table lacks, their amount, and the span from
//     the restore point to the last of them; a movement committed before
//     the point that the restored table lacks, or one after it that it
//     holds, is a failed restore.
//
// With Torn set, the engine's torn-backup fault makes the restore capture
// part of a transaction in flight at the restore point, as DynamoDB's
// documentation warns a backup taken while a transaction propagates can:
// the drill then passes only if the verifier catches it, naming the torn
// transaction.
//
// It is not a benchmark of restores: the engine restores in memory, and a
// DynamoDB restore takes minutes to hours by the table's size
// (docs/recovery.md).
package drdrill
