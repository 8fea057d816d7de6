// Package obs is the runtime's logging and metrics: JSON logs through
// log/slog and outcome metrics as CloudWatch Embedded Metric Format (EMF)
// lines on the same output, which CloudWatch Logs turns into metrics without
// an API call.
//
// Every request logs one line with the request id, the flow, the outcome and
// [KeyHash] of the Idempotency-Key (never the key itself). Metrics are kept in
// two namespaces so business outcomes are never mistaken for faults:
//
//	oncetable/business  Created, Replayed, InsufficientFunds, KeyReused, ...
//	oncetable/faults    ConflictRetried, Throttled, Unavailable, Error
//
// It is not a tracing or alarming library.
package obs
