// Package idempotency makes a DynamoDB write, an external call or any Go
// function happen once per idempotency key, on any table with a string
// partition key and a string sort key (after Stripe's API and the IETF draft
// "The Idempotency-Key HTTP Header Field").
//
// A key's identity is (caller, operation, key): [Request.Scope] and
// [Request.Key]. The same key with the same [Request.Fingerprint] never runs
// twice until the record expires; with another fingerprint it is
// [ErrKeyReused] (HTTP 422). Where the record lives follows from that
// identity alone: partition and sort key are KeyPrefix + sha256(caller,
// operation, key), so the raw key is never stored, keys of different
// callers never collide, and nothing the effect writes changes it.
//
// # Setting up a table
//
// [CreateTable] creates a table with your key names and turns TTL on
// ([CreateTableInput] and [TimeToLiveInput] are its requests, [TTLCommand]
// the AWS CLI equivalent);
// [Table.Check] compares the options with the real table at start-up and
// names the option to fix. Test on the embedded engine (runtime/ddblocal)
// or, with DYNAMODB_ENDPOINT set, on any endpoint (runtime/ddbtest).
//
// # Transactional mode: the effect and its record in one request
//
// When the effect is itself a set of DynamoDB writes, the record commits in
// the same TransactWriteItems as the effect ([Table.Do]), so a first call
// costs one request and a replay costs one request, and there is no
// in-progress state to get stuck:
//
//	records := idempotency.NewTable(client, "wallets", func(o *idempotency.Options) {
//		o.Attributes = idempotency.Attributes{PartitionKey: "id", SortKey: "kind", TTL: "purge_at"}
//	})
//	fp, _ := idempotency.Fingerprint("POST", "/transfers", body)
//	req := idempotency.Request{Scope: idempotency.Scope{Caller: user, Operation: "transfer"}, Key: key, Fingerprint: fp}
//	resp, err := records.Do(ctx, req, func(now time.Time) (*idempotency.Effect, error) {
//		eff := &idempotency.Effect{Status: 201, Header: http.Header{"Location": {"/transfers/" + id}}, Body: receipt}
//		eff.Items.Add("debit", debit) // your own types.TransactWriteItem values
//		eff.Items.Add("credit", credit)
//		return eff, nil
//	})
//
// resp.Replayed tells a replay from a first call; a replay's Status, Header
// and Body are the stored ones, byte for byte. Any non-empty key is
// accepted (it is hashed, never stored; the Idempotency-Key header's rules
// are idemhttp's). Errors are typed: [ErrKeyMissing] (an empty key),
// [ErrRequestInvalid] (no scope or fingerprint), [ErrKeyReused],
// *[ResultTooLargeError] (the record with the answer would exceed
// DynamoDB's 400 KB item limit; nothing is written), *[ConfigError] (only:
// the table does not match the options) and *[txn.CancelledError] when one
// of the effect's own conditions failed, read by item name:
// c.Failed("debit"). A cancelled effect is not recorded: it had no effect
// and a later retry may succeed.
//
// The record's write condition is attribute_not_exists(pk) OR ttl <= :now,
// so an expired record counts as absent before the TTL sweeper deletes it,
// and ReturnValuesOnConditionCheckFailure=ALL_OLD returns the blocking
// record inside the cancellation reason, whose fingerprint is checked
// before anything is replayed. Each invocation sends its own
// ClientRequestToken, so the SDK's retries of one call are deduplicated by
// DynamoDB while a second invocation meets the record instead.
//
// # External mode: lock first, for effects outside DynamoDB
//
// A card processor or an e-mail cannot join a transaction. [Table.Run]
// writes a pending record, calls your function with a key to forward to
// the external system, and stores its answer; an error releases the key.
// [Table.Begin] and [Pending.Complete] are the same in two steps. A
// duplicate that arrives while the record is pending gets
// *[InProgressError] (HTTP 409) until the in-progress window ends, at
// InProgressError.Until, the first moment a retry succeeds: by default the
// context's deadline (a Lambda's remaining time), else Options.Window.
//
// [Func] makes any Go function idempotent (Powertools' idempotent_function):
// the key comes from the input, the output is stored with a [Codec].
//
// Adapters: runtime/idempotency/idemhttp (net/http and API Gateway HTTP
// API v2) and runtime/idempotency/idemqueue (SQS standard and FIFO,
// DynamoDB Streams, Kinesis and EventBridge, both modes). See
// docs/idempotency.md for the ten-minute path and the comparison with
// Powertools.
//
// It is not for oncetable's money flows themselves (runtime/payments, which
// run on it) or for HTTP routing (runtime/httpapi).
package idempotency
