package httpapi

import (
	"context"
	"net/http"
	"strings"

	"github.com/aws/aws-lambda-go/events"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/oncetable/oncetable/runtime/tracing"
)

// startSpan starts the request's span. Its parent is the span already in
// ctx (Lambda's X-Ray segment, tracing.Lambda) or, without one, the
// client's W3C traceparent header, so that a caller's trace continues here.
func startSpan(ctx context.Context, req *events.APIGatewayV2HTTPRequest) (context.Context, trace.Span) {
	if !trace.SpanContextFromContext(ctx).IsValid() && len(req.Headers) > 0 {
		h := http.Header{}
		for k, v := range req.Headers {
			h.Set(k, v)
		}
		ctx = propagation.TraceContext{}.Extract(ctx, propagation.HeaderCarrier(h))
	}
	return tracing.Tracer().Start(ctx, req.RequestContext.HTTP.Method, trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(attribute.String("http.request.method", req.RequestContext.HTTP.Method)))
}

// endSpan names the request's span after its route and records the answer.
func endSpan(span trace.Span, c *call, flow, outcome, requestID string, status int) {
	if !span.IsRecording() {
		return
	}
	if c.route != nil {
		path := "/" + strings.Join(c.route.pattern, "/")
		span.SetName(c.route.method + " " + path)
		span.SetAttributes(attribute.String("http.route", path), attribute.String("oncetable.route", c.route.name))
	}
	span.SetAttributes(
		attribute.Int("http.response.status_code", status),
		attribute.String("oncetable.flow", flow),
		attribute.String("oncetable.outcome", outcome),
		attribute.String("oncetable.caller", c.caller),
		attribute.String("oncetable.request_id", requestID),
		attribute.String("oncetable.idempotency_key_hash", c.keyHash),
	)
	if status >= 500 {
		span.SetStatus(codes.Error, outcome)
	}
}
