// Package tracing is the runtime's OpenTelemetry: it installs the tracer
// provider that the environment asks for, and makes spans of the calls the
// runtime makes to AWS.
//
//	shutdown, err := tracing.Setup(ctx)              // reads OTEL_TRACES_EXPORTER
//	db := dynamodb.NewFromConfig(cfg, tracing.DynamoDB) // a span per call
//	lambda.Start(tracing.Lambda(handler))            // joins Lambda's X-Ray trace, flushes
//
// OTEL_TRACES_EXPORTER is none (the default), console (spans as JSON on
// standard error) or otlp (OTLP over HTTP to OTEL_EXPORTER_OTLP_ENDPOINT,
// http://localhost:4318 by default: the collector of the AWS Distro for
// OpenTelemetry Lambda layer, which sends them to X-Ray). With none, no
// provider is installed: every tracer is OpenTelemetry's no-op and a span
// costs one interface call.
//
// Trace ids are X-Ray's (the first 8 hex digits are the start time), so
// that X-Ray accepts them, and in Lambda the spans are children of the
// segment that Lambda's active tracing opens for the invocation.
//
// The request span is made by runtime/httpapi, the stream batch span by
// runtime/outbox; log lines carry the trace id through runtime/obs. It is
// not a metrics library: the runtime's metrics are EMF (runtime/obs).
package tracing
