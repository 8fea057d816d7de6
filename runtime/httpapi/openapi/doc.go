// Package openapi generates the oncetable API's OpenAPI 3.1 document from
// the route table and the request and response types of runtime/httpapi
// (httpapi.Operations): every route, body, status and problem type, the
// limits of each field as schema constraints, and the Idempotency-Key
// header where a route requires it. docs/openapi.json is its output, kept
// equal by a test (go test ./runtime/httpapi/openapi -update rewrites it),
// and the local runner serves it at GET /openapi.json.
//
// It is not a validator: the handlers check requests themselves, and the
// document states what they check.
package openapi
