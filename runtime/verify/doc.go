// Package verify checks the money invariants of a table laid out by
// runtime/schema and runtime/keys, as the payments flows write it: a live
// table, a restored backup or point-in-time restore, or a table built
// broken on purpose in a test. [Table] scans the table once and returns a
// [Report] with every violation and the keys of the items involved:
//
//   - each user's balance equals the sum of the user's ledger
//     ([BalanceMismatch]; entries without a profile are [LedgerWithoutUser]);
//   - no balance is negative ([NegativeBalance]);
//   - every paid order has its one settle ledger entry for the order total,
//     the payment it names (a settle requires the charge; an order settled
//     before it did names none), and every order its
//     summary in the user's partition, in the order's status
//     ([PaidWithoutSettle], [SettleMismatch], [PaidWithoutPayment],
//     [PaymentMismatch], [OrderWithoutSummary], [SummaryMismatch]);
//   - no payment lacks its order, and no settle entry lacks its paid order
//     ([PaymentWithoutOrder], [SettleWithoutPaidOrder]);
//   - every idempotency record of a success holds an effect that exists
//     ([RecordWithoutEffect]), and every effect younger than the records'
//     expiry (RecordExpiry, counted back from the newest record) has its
//     record, without which a retry of its request would apply it again
//     ([EffectWithoutRecord]);
//   - no request was applied twice: two ledger entries of one user whose
//     ids share their origin (keys.IDOrigin: made from one caller,
//     operation and key) less than RecordExpiry apart are
//     [DuplicateEffect], as two Regions that both applied it leave them.
//
// It also reports every user, address, order or product whose key holds an
// id that the API refuses today ([NonCanonicalID]): such an item can no
// longer be named through the API.
//
// A violation names, where it can, the transaction it breaks (the settle of
// order o-1, the credit cr_… of user alice): a backup that captured part of
// a transaction shows as such a violation.
//
// # Cost and memory
//
// The scan is the whole cost: one pass of Scan with Segments parallel
// segments, eventually consistent unless ConsistentRead is set, paced so
// that the consumed read capacity (ReturnConsumedCapacity) stays under
// MaxRCU per second. DynamoDB charges a Scan page by the total size of the
// items it read, rounded up to 4 KB, at 0.5 read units per 4 KB
// eventually consistent (1 strongly consistent); docs/recovery.md gives the
// measured figure per million items.
//
// The checks join items across partitions (an order in ORDER#<id> with its
// settle entry and summary in USER#<id>), so the scan does not hold the
// table: each item is reduced to a small fact, keyed by its user or its
// order, and the facts go to Buckets files in SpillDir by a hash of that
// key; each bucket is then checked in memory on its own. Memory is one
// bucket's facts (Buckets defaults to one per 200,000 items of
// DescribeTable's ItemCount), disk about 100 bytes per money item.
//
// It is not a repair tool: it reads only. docs/recovery.md says what to do
// with each kind of violation.
package verify
