// Package retry is the one layer that retries oncetable's DynamoDB calls:
// it runs a call again, at most Policy.MaxAttempts times in all (default 5)
// with capped full-jitter backoff, when the failure is transient. The
// clients it wraps have the SDK's retryer off (aws.NopRetryer): every
// DynamoDB client of oncetable is built by [NewClient], and code that does
// not wrap its own calls sends them through [Client]. So each attempt is
// one send and a call makes at most MaxAttempts sends, however
// long DynamoDB throttles. When the attempts are used up it returns an
// [*UnavailableError] that carries a Retry-After hint, which the HTTP layer
// turns into 503.
//
// Each kind of failure is handled on purpose: throttling and transaction
// conflicts wrote nothing and are always retried; a 5xx or a transport
// failure leaves the outcome unknown, and is sent again only by [Do], for
// calls that are safe to resend (reads, transactions with a
// ClientRequestToken, writes whose replay leaves the same result), never by
// [DoWrite].
//
// It is not for business failures: a failed condition is an answer, not a
// fault.
package retry
