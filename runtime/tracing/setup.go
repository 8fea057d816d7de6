package tracing

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"go.opentelemetry.io/contrib/propagators/aws/xray"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// The environment variables Setup reads.
const (
	// ExporterEnv chooses the exporter: none (default), console or otlp.
	ExporterEnv = "OTEL_TRACES_EXPORTER"
	// ServiceNameEnv names the service on every span. Default: the Lambda
	// function's name (FunctionNameEnv), else "oncetable".
	ServiceNameEnv  = "OTEL_SERVICE_NAME"
	FunctionNameEnv = "AWS_LAMBDA_FUNCTION_NAME"
)

// The exporters ExporterEnv names.
const (
	ExporterNone    = "none"
	ExporterConsole = "console"
	ExporterOTLP    = "otlp"
)

// newOTLP builds the OTLP/HTTP exporter; it is set only in binaries built
// with the otlp tag (otlp.go).
var newOTLP func(context.Context) (sdktrace.SpanExporter, error)

// Name is the instrumentation scope of the runtime's spans.
const Name = "github.com/oncetable/oncetable/runtime"

// ErrExporter is what an unknown OTEL_TRACES_EXPORTER unwraps to.
var ErrExporter = errors.New("tracing: unknown exporter")

// Options change what Setup reads and where the console exporter writes.
type Options struct {
	// Getenv reads one variable. Default os.Getenv.
	Getenv func(string) string
	// Console receives the console exporter's spans. Default os.Stderr
	// (stdout carries the logs and the EMF metrics).
	Console io.Writer
}

// Setup installs the tracer provider of OTEL_TRACES_EXPORTER as
// OpenTelemetry's global one, with X-Ray trace ids, the W3C and X-Ray
// propagators and sampling that follows the parent (Lambda's decision).
// With none or no exporter it installs nothing. The returned function
// flushes and stops the provider; it is never nil.
func Setup(ctx context.Context, optFns ...func(*Options)) (shutdown func(context.Context) error, err error) {
	o := Options{Getenv: os.Getenv, Console: os.Stderr}
	for _, fn := range optFns {
		fn(&o)
	}
	noop := func(context.Context) error { return nil }
	var exp sdktrace.SpanExporter
	switch name := o.Getenv(ExporterEnv); name {
	case "", ExporterNone:
		return noop, nil
	case ExporterConsole:
		exp, err = stdouttrace.New(stdouttrace.WithWriter(o.Console))
	case ExporterOTLP:
		if newOTLP == nil {
			return noop, fmt.Errorf("%w: %s=%s needs a binary built with -tags otlp (the OTLP exporter brings gRPC, about 4 MB, so function bundles leave it out)", ErrExporter, ExporterEnv, ExporterOTLP)
		}
		// Reads OTEL_EXPORTER_OTLP_ENDPOINT and OTEL_EXPORTER_OTLP_TRACES_*.
		exp, err = newOTLP(ctx)
	default:
		return noop, fmt.Errorf("%w: %s=%q, want %s, %s or %s", ErrExporter, ExporterEnv, name, ExporterNone, ExporterConsole, ExporterOTLP)
	}
	if err != nil {
		return noop, fmt.Errorf("tracing: %s exporter: %w", o.Getenv(ExporterEnv), err)
	}
	tp := NewProvider(exp, serviceName(o.Getenv))
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, xray.Propagator{}))
	return tp.Shutdown, nil
}

// NewProvider is the provider Setup installs, on exp: X-Ray ids, parent
// based sampling, batched export (Lambda flushes it after each invocation).
func NewProvider(exp sdktrace.SpanExporter, service string) *sdktrace.TracerProvider {
	return sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp),
		sdktrace.WithIDGenerator(xray.NewIDGenerator()),
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.AlwaysSample())),
		sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", service))),
	)
}

func serviceName(get func(string) string) string {
	for _, k := range []string{ServiceNameEnv, FunctionNameEnv} {
		if v := get(k); v != "" {
			return v
		}
	}
	return "oncetable"
}

// Flush exports the spans ended so far, when the global provider is the
// SDK's (Setup ran with an exporter).
func Flush(ctx context.Context) error {
	if tp, ok := otel.GetTracerProvider().(interface{ ForceFlush(context.Context) error }); ok {
		return tp.ForceFlush(ctx)
	}
	return nil
}

// Enabled reports whether spans are recorded: the global provider is the
// SDK's, installed by Setup or by a test.
func Enabled() bool {
	_, ok := otel.GetTracerProvider().(*sdktrace.TracerProvider)
	return ok
}

// Tracer is the runtime's tracer from the global provider.
func Tracer() trace.Tracer { return otel.Tracer(Name) }

// TraceParent is the W3C traceparent header of ctx's span, or "" when ctx
// has no valid span (tracing off).
func TraceParent(ctx context.Context) string {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return ""
	}
	c := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, c)
	return c["traceparent"]
}
