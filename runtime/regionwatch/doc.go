// Package regionwatch is the stream consumer of one Region's replica of a
// money table with homes (runtime/home): a Lambda handler for the table
// stream's event source mapping in every Region of a global table.
//
// It flags two things, each a metric of obs.RegionsNamespace with an
// alarm and a runbook section:
//
//   - a money write made outside the owner at its epoch: a fenced
//     transaction's trail item (home.Trail names its writer, epoch and
//     ledger entries) of an epoch older than the one this Region claimed,
//     that reached this replica after the claim. That is an old home's
//     acknowledged write arriving late after a takeover. Each of its
//     ledger entries is quarantined (home.Quarantine: a LateWrite item
//     beside the entry, written once) and reported with its amount; the
//     verifier names it as late-write until an operator settles it and
//     deletes the item. A planned failover claims only after the drain
//     proof, so its old writes arrive before the claim and are not flagged.
//   - an account homed in this Region whose ledger does not sum to its
//     balance, or whose balance is negative, after a change of its
//     balance: verify.Partitions checks the user's partition, strongly
//     consistent. Accounts homed elsewhere are left to their home's
//     consumer, since replication delivers a transaction's items one by
//     one and would show mismatches that are only in flight.
//
// It is not the reconcile of takeover mode: a late write's balance item
// still lands by last writer wins; the quarantine says which entries and
// amounts to settle by hand.
//
// A stream record's arrival time is its ApproximateCreationDateTime, which
// DynamoDB rounds down to the second: a late write that arrives within the
// second of the claim is not flagged here (the verifier's duplicate-effect
// and balance-mismatch checks remain).
package regionwatch
