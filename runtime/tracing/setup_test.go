package tracing_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace"

	"github.com/oncetable/oncetable/runtime/tracing"
)

func env(m map[string]string) func(*tracing.Options) {
	return func(o *tracing.Options) { o.Getenv = func(k string) string { return m[k] } }
}

func TestSetup(t *testing.T) {
	prev := otel.GetTracerProvider()
	t.Cleanup(func() { otel.SetTracerProvider(prev) })
	ctx := context.Background()

	t.Run("none installs nothing", func(t *testing.T) {
		for _, v := range []string{"", "none"} {
			if _, err := tracing.Setup(ctx, env(map[string]string{tracing.ExporterEnv: v})); err != nil || tracing.Enabled() {
				t.Errorf("%s=%q: got err %v, enabled %v; want no error, not enabled", tracing.ExporterEnv, v, err, tracing.Enabled())
			}
		}
	})
	t.Run("unknown exporter", func(t *testing.T) {
		_, err := tracing.Setup(ctx, env(map[string]string{tracing.ExporterEnv: "jaeger"}))
		if !errors.Is(err, tracing.ErrExporter) || !strings.Contains(err.Error(), `"jaeger"`) {
			t.Errorf("got %v, want ErrExporter naming jaeger", err)
		}
		if tracing.Enabled() {
			t.Error("a refused exporter installed a provider")
		}
	})
	t.Run("console prints spans with X-Ray ids", func(t *testing.T) {
		var out bytes.Buffer
		shutdown, err := tracing.Setup(ctx, env(map[string]string{tracing.ExporterEnv: "console", tracing.ServiceNameEnv: "oncetable-test"}),
			func(o *tracing.Options) { o.Console = &out })
		if err != nil || !tracing.Enabled() {
			t.Fatalf("got err %v, enabled %v", err, tracing.Enabled())
		}
		_, span := tracing.Tracer().Start(ctx, "probe")
		id := span.SpanContext().TraceID().String()
		span.End()
		if err := shutdown(ctx); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), `"Name":"probe"`) || !strings.Contains(out.String(), id) || !strings.Contains(out.String(), "oncetable-test") {
			t.Errorf("console output %q lacks the span probe, its trace %s or the service name", out.String(), id)
		}
	})
}

// TestLambdaJoinsTheInvocationTrace: a span started in a wrapped handler is
// a child of the X-Ray segment Lambda names in the invocation's context.
func TestLambdaJoinsTheInvocationTrace(t *testing.T) {
	exp := record(t)
	const root, parent = "1-5759e988-bd862e3fe1be46a994272793", "53995c3f42cd8ad8"
	//lint:ignore SA1029 the key aws-lambda-go uses
	ctx := context.WithValue(context.Background(), "x-amzn-trace-id", "Root="+root+";Parent="+parent+";Sampled=1")
	h := tracing.Lambda(func(ctx context.Context, in string) (string, error) {
		_, span := tracing.Tracer().Start(ctx, in)
		span.End()
		return in, nil
	})
	if _, err := h(ctx, "work"); err != nil {
		t.Fatal(err)
	}
	spans := exp.GetSpans().Snapshots()
	if len(spans) != 1 {
		t.Fatalf("got %d spans, want 1", len(spans))
	}
	want, _ := trace.TraceIDFromHex("5759e988bd862e3fe1be46a994272793")
	if got := spans[0].SpanContext().TraceID(); got != want || spans[0].Parent().SpanID().String() != parent {
		t.Errorf("span in trace %s with parent %s, want trace %s, parent %s", got, spans[0].Parent().SpanID(), want, parent)
	}
}
