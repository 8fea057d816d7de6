package outbox_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/oncetable/oncetable/runtime/outbox"
	"github.com/oncetable/oncetable/runtime/tracing"
)

// TestStreamBatchSpanAndTraceParent publishes a batch with tracing on: the
// batch is one span, each PutEvents call a child span, and every event's
// envelope carries the batch span's traceparent, from which a consumer's
// span joins the trace.
func TestStreamBatchSpanAndTraceParent(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { otel.SetTracerProvider(prev) })

	fake, client := newFakeEventBridge(t)
	traced := eventbridge.New(client.Options(), tracing.EventBridge)
	pub := outbox.NewPublisher(traced, quiet)
	resp, err := pub.Handle(context.Background(), creditBatch(12))
	if err != nil || len(resp.BatchItemFailures) != 0 {
		t.Fatalf("Handle: %v, failures %v", err, resp.BatchItemFailures)
	}

	var batch sdktrace.ReadOnlySpan
	var puts []sdktrace.ReadOnlySpan
	for _, s := range exp.GetSpans().Snapshots() {
		switch s.Name() {
		case "stream batch":
			batch = s
		case "EventBridge.PutEvents":
			puts = append(puts, s)
		}
	}
	if batch == nil {
		t.Fatal("no stream batch span")
	}
	if len(puts) != 2 { // 12 events, at most 10 per call
		t.Fatalf("got %d PutEvents spans, want 2", len(puts))
	}
	entries := 0
	for _, s := range puts {
		if s.Parent().SpanID() != batch.SpanContext().SpanID() {
			t.Errorf("PutEvents span's parent is %s, want the batch span %s", s.Parent().SpanID(), batch.SpanContext().SpanID())
		}
		for _, kv := range s.Attributes() {
			if kv.Key == tracing.AttrEntries {
				entries += int(kv.Value.AsInt64())
			}
		}
	}
	if entries != 12 {
		t.Errorf("PutEvents spans count %d entries, want 12", entries)
	}
	if len(fake.details) != 12 {
		t.Fatalf("got %d published events, want 12", len(fake.details))
	}
	for _, d := range fake.details {
		var ev outbox.Event
		if err := json.Unmarshal([]byte(d), &ev); err != nil {
			t.Fatal(err)
		}
		// What a consumer does with the envelope.
		ctx := propagation.TraceContext{}.Extract(context.Background(), propagation.MapCarrier{"traceparent": ev.TraceParent})
		sc := trace.SpanContextFromContext(ctx)
		if sc.TraceID() != batch.SpanContext().TraceID() || sc.SpanID() != batch.SpanContext().SpanID() {
			t.Errorf("event %s: traceparent %q, want the batch span %s/%s", ev.ID, ev.TraceParent, batch.SpanContext().TraceID(), batch.SpanContext().SpanID())
		}
	}
}
