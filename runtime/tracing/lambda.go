package tracing

import (
	"context"
	"os"

	"go.opentelemetry.io/contrib/propagators/aws/xray"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// lambdaTraceKey is where aws-lambda-go puts the invocation's X-Ray trace
// header (Root=...;Parent=...;Sampled=...) in the handler's context; it also
// sets it as _X_AMZN_TRACE_ID.
const (
	lambdaTraceKey = "x-amzn-trace-id"
	lambdaTraceEnv = "_X_AMZN_TRACE_ID"
)

// Lambda wraps a Lambda handler: the spans it starts are children of the
// invocation's X-Ray segment (active tracing), and the spans it ended are
// exported before it returns, since Lambda may freeze the environment right
// after. With tracing off it only calls h.
func Lambda[In, Out any](h func(context.Context, In) (Out, error)) func(context.Context, In) (Out, error) {
	return func(ctx context.Context, in In) (Out, error) {
		if !Enabled() {
			return h(ctx, in)
		}
		ctx = lambdaParent(ctx)
		out, err := h(ctx, in)
		Flush(ctx)
		return out, err
	}
}

// lambdaParent returns ctx with the invocation's X-Ray trace header as its
// remote parent span, when Lambda gave one and ctx has no span yet.
func lambdaParent(ctx context.Context) context.Context {
	if trace.SpanContextFromContext(ctx).IsValid() {
		return ctx
	}
	header, _ := ctx.Value(lambdaTraceKey).(string)
	if header == "" {
		header = os.Getenv(lambdaTraceEnv)
	}
	if header == "" {
		return ctx
	}
	return xray.Propagator{}.Extract(ctx, propagation.MapCarrier{"X-Amzn-Trace-Id": header})
}
