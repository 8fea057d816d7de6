// Package idemhttp serves idempotent POSTs per
// draft-ietf-httpapi-idempotency-key-header-07, over net/http and over
// API Gateway HTTP API v2 events (aws-lambda-go), on an
// [idempotency.Table].
//
//	mux.Handle("POST /transfers", idemhttp.Transactional(records, caller, planTransfer))
//
// What a client sees:
//
//	no Idempotency-Key header                 400 problem+json, nothing written
//	a malformed key (or body that is no JSON) 400
//	the key again, same method, path, body    the stored status and body, with
//	                                          Idempotent-Replayed: true
//	the key again with another payload        422, nothing written
//	the key while its first call is pending   409 with Retry-After (external mode only)
//
// The key header is a Structured Field string ("abc", quotes and all); a
// bare token is accepted too. Keys are scoped to the authenticated caller
// (a [CallerFunc]) and the operation, so two callers' keys never collide.
// Records expire after the table's Expiry (default 24 hours); after that the
// key is new again.
//
// [Transactional] (and [TransactionalLambda]) is for effects that are DynamoDB writes: the plan's items
// and the record commit in one TransactWriteItems. [External] ([ExternalLambda]) wraps any
// http.Handler with the lock-first protocol: a pending record, the handler,
// then the stored response; the handler reads the key to forward to the
// external system with [ForwardKey]. A 5xx answer releases the key.
//
// It is not for routing, authentication or the record format
// (runtime/idempotency).
package idemhttp
