// Package localrun serves the oncetable API on a laptop: it turns each
// net/http request into the same API Gateway HTTP API v2 event that Lambda
// receives (events.APIGatewayV2HTTPRequest), calls the same handler, and
// writes the handler's events.APIGatewayV2HTTPResponse back. Next to it,
// the embedded DynamoDB-compatible engine (runtime/ddblocal) listens on its
// own address with the table created from runtime/schema, or an external
// endpoint is used instead.
//
// There is no authorizer locally, so [Event] fills the request context's
// IAM fields with a deterministic identity: the X-Local-Caller header (at
// most 128 printable ASCII characters), default "local", as
// RequestContext.Authorizer.IAM.UserARN =
// "arn:aws:iam::000000000000:user/<caller>". Idempotency keys are therefore
// scoped per local caller exactly as they are per IAM principal in AWS.
// Such a caller is an operator ([OperatorAuth]), so every route works
// without headers. With an X-Local-Scopes header (space-separated, as a
// JWT's "scope" claim) the request is a JWT authorizer's instead, claims
// sub=<caller> and scope=<header>, and gets the roles those scopes grant:
// X-Local-Caller: bob with X-Local-Scopes: payments/customer is the
// customer bob, refused (404) on alice's balance as in AWS.
//
// On the embedded engine the runner also enables the table's stream and
// drives the production events handler (runtime/outbox) from it with the
// event source mapping's semantics (runtime/streampoll). EventSink stands
// in for EventBridge: one log line ("msg":"event") per event, and the last
// 100 at GET /_local/events, a route of the local runner only, for
// operators; it also takes EventBridge's PutEvents at /_local/eventbridge,
// so that make republish ENV=local publishes to it. A second poller of
// the same stream, with a position of its own, drives the platform
// totaller (runtime/platform), so the platform accounts' stored totals
// follow the ledger as they do in AWS.
//
// It is not for production: there is no TLS, and the headers are trusted
// as an authorizer's verdict would be.
package localrun
