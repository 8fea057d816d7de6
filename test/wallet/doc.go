// Package wallet is the second user of runtime/idempotency: a
// wallet-to-wallet transfer on a table of its own, made exactly-once with
// the library's transactional mode and served over net/http by
// runtime/idempotency/idemhttp. Nothing in it comes from oncetable's
// schema: the keys are lower-case pk and sk, the prefixes are its own
// (wallet#, transfer#, once#) and so is the TTL attribute (expires).
//
//	wallet#<id> / wallet          the wallet: balance (minor units), currency
//	wallet#<from> / transfer#<t>  a transfer, in the payer's partition
//	once#<hash>   / once#<hash>   the idempotency record of a transfer (its own partition)
//
// POST /transfers {"from","to","amount","currency"} debits the payer if
// the balance covers the amount, credits the payee, and writes the
// transfer and its record, all in one TransactWriteItems. Its tests are the
// proofs the money flows have (100 concurrent duplicates, request counts,
// a changed payload, an expired key), on the embedded engine or against
// DYNAMODB_ENDPOINT.
//
// It is an example and a test fixture, not part of oncetable's API.
package wallet
