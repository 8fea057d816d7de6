// Package idempotency implements the Idempotency-Key semantics of oncetable
// (after Stripe's API and the IETF draft "The Idempotency-Key HTTP Header
// Field"): key validation, scoping, request fingerprints, and the record that
// commits in the same TransactWriteItems as the effect it guards.
//
// A key is scoped to the caller's identity and the operation ([Scope]); the
// record lives in the partition of the entity the operation acts on, under
// SK IDEM#<sha256(caller, operation, key)>, so the raw key is never stored.
// The record holds a SHA-256 fingerprint of method, route and canonical JSON
// body, the response status and body, and expiresAt (the table's TTL
// attribute). Its write condition is
//
//	attribute_not_exists(PK) OR expiresAt < :now
//
// so an expired record counts as absent even before the TTL sweeper deletes
// it. The write asks for ReturnValuesOnConditionCheckFailure=ALL_OLD: when the
// condition fails, the stored record comes back inside the cancellation
// reason and a replay costs no extra read.
//
// There is no in-progress state: the record and the effect commit together
// or not at all. Business failures (insufficient funds, order not payable)
// are not recorded, because they had no effect and a later retry may succeed.
//
// It is not for the money flows themselves (runtime/payments) or for HTTP
// (runtime/httpapi).
package idempotency
