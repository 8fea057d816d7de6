// Package idemhttp serves idempotent POSTs per
// draft-ietf-httpapi-idempotency-key-header-07, over net/http and over
// API Gateway HTTP API v2 events (aws-lambda-go), on an
// [idempotency.Table].
//
//	mux.Handle("POST /cards/{code}/redeem", idemhttp.Transactional(records, caller, planRedeem))
//	mux.Handle("POST /cards/{code}/email", idemhttp.External(records, caller, sendEmail))
//
// What a client sees:
//
//	no Idempotency-Key header                 400 problem+json, nothing written
//	a malformed key (or body that is no JSON) 400
//	the key again, same method, path, body    the stored status, headers and body,
//	                                          with Idempotent-Replayed: true
//	the key again with another payload        422, nothing written
//	the key while its first call is pending   409 with Retry-After (external mode only)
//
// The key header is a Structured Field string ("abc", quotes and all); a
// bare token is accepted too. Keys are scoped to the authenticated caller
// (a [CallerFunc]) and the operation, so two callers' keys never collide.
// A [PlanFunc] gets the request ([Call].Request, for r.PathValue and
// headers; [Call].Event in Lambda).
//
// [Transactional] ([TransactionalLambda]) is for effects that are DynamoDB
// writes: the plan's items and the record commit in one TransactWriteItems,
// and the effect's Status, Header and Body are stored. [External]
// ([ExternalLambda]) wraps any handler with the lock-first protocol; the
// handler reads the key to forward with [ForwardKey]. Its answer goes out
// with every header it set, and its status, body, Content-Type, Location
// and Options.Headers are stored as [DefaultStore] (or Options.Store)
// decides: a request rejected before its effect started is not stored, and
// a 5xx releases the key. The in-progress window ends at the request's
// deadline by default. Options.CheckTable runs [idempotency.Table.Check]
// when the adapter is built.
//
// It is not for routing, authentication or the record format
// (runtime/idempotency).
package idemhttp
