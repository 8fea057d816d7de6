// Package home gives every cell of users one home Region at a time and
// fences each money transaction to it, so that a charge, a debit or a
// settle commits once even when the table is a DynamoDB global table
// replicated between Regions with multi-Region eventual consistency
// (MREC).
//
// MREC replicates each item on its own, after the commit, and resolves
// conflicting writes to one item by last writer wins; condition
// expressions see only the local replica ("How DynamoDB global tables
// work", https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/V2globaltables_HowItWorks.html).
// A transaction is atomic in its own Region only (TransactWriteItems
// reference: "not in different AWS accounts or Regions"). A guarded debit
// that commits in two Regions therefore commits twice. The remedy AWS
// describes is to write each item in one Region at a time ("write to your
// Region", https://docs.aws.amazon.com/prescriptive-guidance/latest/dynamodb-global-tables/write-modes.html);
// this package makes that a property of the data rather than of routing:
//
//   - An ownership item per cell, in the money table itself, holds the
//     cell's home Region and epoch. Fence adds a ConditionCheck on it,
//     named "fence", to a transaction: home = this Region AND epoch = the
//     writer's epoch. A Region that is not the owner at that epoch cannot
//     commit, whatever its routing or clock believe.
//   - Leases (Leases) say which Region holds a cell at which epoch. They
//     live in a store every Region agrees on linearizably, using only
//     single-item conditional writes (a multi-Region strong consistency
//     table in production). A writer stops before its lease ends, by a
//     margin for clock skew (Lease.Writable).
//   - Failover moves a cell: Stop fences the old Region at once by writing
//     the ownership item where that Region commits; DrainProof compares
//     the cell's items in both Regions; Claim writes the ownership item in
//     the new Region under the higher epoch. Takeover does the same for
//     an unreachable Region after its lease has run out, and late writes
//     of the old epoch are found by the ledger check, never applied.
//
// A cell is a group of users (CellOf hashes a user into one of a fixed
// number of cells): one ownership item, one lease and one epoch bump move
// many users, and a money transaction that touches two users of one cell
// needs one fence. The cell's partition "CELL#<cell>" holds its ownership
// item and, for each transaction a Fencer fenced, a trail item listing the
// partitions it wrote (Trail), so that DrainProof compares every item of
// the cell whatever the table's key layout.
//
// The package is not a router: it answers where a cell lives (Leases.Get)
// and refuses writes outside it (ErrNotOwner, ErrLeaseExpired); the API
// layer decides whether to forward or to answer 503 with Retry-After.
package home
