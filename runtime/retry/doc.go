// Package retry runs a DynamoDB call again, a bounded number of times with
// capped full-jitter backoff, when the failure is transient: throttling,
// TransactionConflict cancellations, a transaction still in progress, or a
// service-side 5xx. When the attempts are used up it returns an
// [*UnavailableError] that carries a Retry-After hint, which the HTTP layer
// turns into 503.
//
// It is not for business failures (a failed condition is an answer, not a
// fault) and it does not replace the SDK's own retryer, which handles
// transport errors first.
package retry
