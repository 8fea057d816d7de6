// Package idempotency makes a DynamoDB write happen exactly once per
// Idempotency-Key, on any table with a string partition key and a string
// sort key (after Stripe's API and the IETF draft "The Idempotency-Key HTTP
// Header Field").
//
// # Transactional mode: the effect and its record in one request
//
// When the effect is itself a set of DynamoDB writes, the record commits in
// the same TransactWriteItems as the effect, so a first call costs one
// request and a replay costs one request, and there is no in-progress
// state to get stuck:
//
//	records := idempotency.NewTable(client, "wallets", func(o *idempotency.Options) {
//		o.Attributes = idempotency.Attributes{PartitionKey: "pk", SortKey: "sk", TTL: "ttl"}
//		o.KeyPrefix = "once#"
//	})
//	fp, _ := idempotency.Fingerprint("POST", "/transfers", body)
//	req := idempotency.Request{Scope: idempotency.Scope{Caller: user, Operation: "transfer"},
//		Key: key, Fingerprint: fp, Partition: "wallet#" + from}
//	resp, err := records.Do(ctx, req, func(now time.Time) (*idempotency.Effect, error) {
//		eff := &idempotency.Effect{Status: 201, Body: receipt}
//		eff.Items.Add("debit", debit)   // your own types.TransactWriteItem values
//		eff.Items.Add("credit", credit)
//		return eff, nil
//	})
//
// resp.Replayed tells a replay from a first call; a replay's Status and
// Body are the stored ones, byte for byte. Errors are typed:
// [ErrKeyMissing] and [ErrKeyInvalid] (a bad key, nothing written),
// [ErrKeyReused] (the key came before with another fingerprint), and
// *[txn.CancelledError] when one of the effect's own conditions failed, read
// by item name: c.Failed("debit"), c.Item("debit") (the ALL_OLD image).
//
// The record lives in Request.Partition (usually the partition of the
// entity acted on) under sort key KeyPrefix + sha256(caller, operation,
// key), so the raw key is never stored and keys of different callers never
// collide. It holds the fingerprint, the response and the TTL attribute.
// Its write condition is
//
//	attribute_not_exists(pk) OR ttl < :now
//
// so an expired record counts as absent even before the TTL sweeper deletes
// it, and replays check expiry again on read. The write asks for
// ReturnValuesOnConditionCheckFailure=ALL_OLD: when the condition fails the
// stored record comes back inside the cancellation reason, and the
// fingerprint is checked on that item before anything is replayed.
//
// Business failures (a cancelled effect) are not recorded: they had no
// effect and a later retry may succeed. Each invocation sends its own
// ClientRequestToken (derived from the scoped key, the fingerprint, a fresh
// nonce and the attempt), so the SDK's retries of one call are deduplicated
// by DynamoDB while a second invocation meets the record instead.
//
// # External mode: lock first, for effects outside DynamoDB
//
// A card processor or an email cannot join a transaction. [Table.Begin]
// writes a pending record whose in-progress window the caller chooses, the
// key goes to the external system (so it can deduplicate too), and
// [Pending.Complete] stores the response. A duplicate that arrives while the
// record is pending gets *[InProgressError] (HTTP 409) until the window
// ends; after it, the key may run again. See docs/idempotency.md.
//
// # Limits
//
// The effect and the record must fit one TransactWriteItems: at most 100
// items including the record, 4 MB in all. The stored response counts
// against the record's 400 KB item size.
//
// Adapters: runtime/idempotency/idemhttp (net/http and API Gateway HTTP
// API v2, per draft-ietf-httpapi-idempotency-key-header-07) and
// runtime/idempotency/idemqueue (SQS and EventBridge consumers).
//
// It is not for oncetable's money flows themselves (runtime/payments, which
// run on it) or for HTTP routing (runtime/httpapi).
package idempotency
