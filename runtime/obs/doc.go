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
// Each is counted per flow (dimension Flow) and across flows (no dimension),
// which is what the alarms watch. [Catalogue] lists every metric with its
// meaning: the constructs graph each and alarm on those that mean trouble,
// and a test fails when the runtime emits a name the catalogue lacks.
//
// A line logged with a context holding an OpenTelemetry span carries the
// span's traceId (W3C), xrayTraceId and spanId; runtime/tracing makes the
// spans. It is not a tracing or alarming library.
package obs
