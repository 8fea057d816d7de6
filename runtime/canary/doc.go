// Package canary probes the payments API from outside, as a caller does:
// each run ([Canary.Run]) moves money on a canary user through every step
// of a purchase and back, checks each answer and that the user's balance
// ends where it started, and reports one metric, Success (1 or 0, EMF in
// obs.CanaryNamespace), whose absence or 0 pages (constructs/canary).
//
// A run, with fresh idempotency keys and a new order id:
//
//	GET  /v1/users/{user}/balance            the balance before
//	POST /v1/users/{user}/credits            Amount
//	POST /v1/users/{user}/orders             one line of Amount
//	POST /v1/orders/{order}/payments         charge Amount
//	POST /v1/orders/{order}/settle           the balance pays the order
//	POST /v1/orders/{order}/refunds          the whole order back
//	POST /v1/users/{user}/debits             Amount, so the balance ends as it began
//	GET  /v1/users/{user}/balance            the balance after: must equal before
//
// The user is created on the first run (a 409 already-exists is fine).
// Requests are signed by Options.Sign: SigV4 for execute-api in Lambda
// (lambdas/canary), the local runner's headers in tests. In AWS the
// canary's role is an IAM operator of the API, since crediting is the back
// office's (docs/runtime.md#authorization).
//
// It is not a load test: one run is seven requests, every few minutes.
package canary
