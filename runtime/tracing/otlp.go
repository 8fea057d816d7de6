//go:build otlp

package tracing

import (
	"context"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// The OTLP/HTTP exporter, in binaries built with -tags otlp only: it brings
// gRPC and protobuf (about 4 MB), which would put every function's bootstrap
// above its size bound (constructs/paymentsapi TestBootstrapSizes).
func init() {
	newOTLP = func(ctx context.Context) (sdktrace.SpanExporter, error) {
		return otlptracehttp.New(ctx)
	}
}
