// Package payments runs oncetable's money flows, each as one
// TransactWriteItems that commits the effect together with its idempotency
// record (runtime/idempotency):
//
//	credit        balance += amt, ledger entry, record                      201
//	debit         balance -= amt if balance >= amt, ledger entry, record    201
//	create order  order, items, user summary, orderCount+1, record          201
//	charge        order gets its one paymentId, payment (Unprocessed), record 201
//	settle        order created->paid, guarded debit of the total,
//	              summary, ledger entry, record                             200
//
// The ClientRequestToken of each transaction is derived from the scoped key,
// the fingerprint and the invocation's generated ids, so SDK retries of one
// call are deduplicated by DynamoDB, while a second invocation with the same
// key meets the record's condition and gets the stored response back inside
// the cancellation reason (ReturnValuesOnConditionCheckFailure=ALL_OLD): one
// request for a first call, one for a replay. Settle reads the order first
// (see [Service.Settle]) and so costs two requests on a first call and one
// on a replay.
//
// Each flow names its transaction items where it builds them (runtime/txn)
// and reads CancellationReasons by those names, so an item added to a flow
// cannot make another item's failure be misread. Failures are returned as
// the sentinels and typed errors of this package: [ErrNotFound],
// [*InsufficientFundsError], [ErrAlreadyPaid], [*AmountMismatchError],
// [ErrCurrencyMismatch], [ErrIdempotencyKeyReused]. TransactionConflict and
// throttling are retried with capped jittered backoff (runtime/retry, the
// one layer that retries: the client under it sends once per attempt),
// then surface as retry.ErrUnavailable. Business failures are not recorded: they
// had no effect, so a retry with the same key may succeed later.
//
// The flows run on any [Backend] (a client, a table name, a clock and a
// retry policy; *store.Store is one) through the transactional mode of
// runtime/idempotency.
//
// Create order and settle write the order through the Backend's order
// writer (store.OrderWriter, chosen once from the order layout), the only
// place that knows the migration orders-by-status-v2: it hands the flow the
// shape to write the order in (GSI1 keys in v1, shard and schemaVersion in
// v2) and, in stage both, the migration's fence (the ConditionCheck named
// migrate.FenceItem), and it runs the flow again in the new phase when the
// fence cancelled it. With the fence an effect has room for 98 items of its
// own besides the record, and the largest order ([MaxOrderItems] lines of
// as many products, and the record: 98 items) fits.
//
// It is not for HTTP: [Response] carries a status code and JSON body only
// because the record stores them.
package payments
