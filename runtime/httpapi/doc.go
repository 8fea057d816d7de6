// Package httpapi is the oncetable JSON API over API Gateway HTTP API v2
// events (events.APIGatewayV2HTTPRequest / Response from aws-lambda-go).
// The Lambda functions and the local runner call the same [API.Handle].
//
// Routes:
//
//	POST /users                                      201 user; userId required; 409 if the id exists
//	GET  /users/{userId}                             200 profile, addresses, recent orders (one Query)
//	POST /users/{userId}/addresses                   201
//	POST /users/{userId}/credits        (Idempotency-Key)  201 {"entryId","amount","currency"}
//	POST /users/{userId}/debits         (Idempotency-Key)  201 {"entryId","amount","currency"}; 402; 404
//	GET  /users/{userId}/balance                     200 {"balance","currency"}, strongly consistent
//	GET  /users/{userId}/ledger?limit=&cursor=       200 {"items","nextCursor"}
//	GET  /users/{userId}/orders?limit=&cursor=       200 {"items","nextCursor"}
//	POST /users/{userId}/orders         (Idempotency-Key)  201 order with items
//	GET  /orders/{orderId}                           200 order with items and payments
//	GET  /orders?status=&limit=&cursor=              200 {"items","nextCursor"} (GSI1, or the shards of OrdersByStatus; eventual)
//	POST /orders/{orderId}/payments     (Idempotency-Key)  201 {"paymentId","status":"created",...}
//	POST /orders/{orderId}/settle       (Idempotency-Key)  200 paid order; 402; 409; 404
//	GET  /payments/unprocessed?limit=&cursor=        200 {"items","nextCursor"} (sparse index)
//	POST /orders/{orderId}/payments/{paymentId}/process    200; leaves the sparse index
//	POST /products                                   201
//	GET  /products/{productId}                       200
//	GET  /products?featured=true                     200 {"items","nextCursor"} (sparse index)
//
// Requests: bodies are JSON objects of at most 64 KB with Content-Type
// application/json (415 otherwise); unknown fields, duplicate keys, trailing
// data, floats for amounts and ids that fail runtime/keys validation give
// 400 and nothing is written. Idempotency-Key is required on the money and
// order routes (400 when missing, longer than 255 or non-printable); it is
// scoped to [CallerIdentity] and the operation. A replay answers the stored
// status and body with Idempotent-Replayed: true; the same key with another
// request gives 422.
//
// Every route admits roles (customer, service, operator: [Role]) and names
// whose data it touches ([Owner]); [Auth] turns the authorizer's context
// (JWT scopes, IAM principal, Lambda authorizer context) into a
// [Principal], and every handler checks the role (401, 403) and a
// customer's ownership (404, as for a missing resource) before it reads the
// body, so a refusal writes nothing and leaves the Idempotency-Key unused.
//
// Errors are application/problem+json (RFC 9457) from one table in
// problem.go, with type, title, status and detail; transient failures that
// outlive the retries give 503 with Retry-After.
//
// Config.Orders is the order layout (ORDER_INDEXES, ORDER_SHARDS, read by
// [ConfigFromEnv]; see store.OrderLayout): in stage both the order routes
// are fenced on the phase of orders-by-status-v2, and GET /orders?status=
// follows the phase. A cursor of the other layout is a 400 invalid-cursor.
//
// Every request logs one JSON line (request id, route, flow, outcome,
// status, a hash of the Idempotency-Key) and counts an EMF metric
// (runtime/obs).
//
// It is not for business rules (runtime/payments) or storage (runtime/store).
package httpapi
