package tracing_test

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/httpapi"
	"github.com/oncetable/oncetable/runtime/schema/provision"
	"github.com/oncetable/oncetable/runtime/tracing"
)

// record installs a provider that keeps the spans in memory for the test.
func record(t *testing.T) *tracetest.InMemoryExporter {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { otel.SetTracerProvider(prev); tp.Shutdown(context.Background()) })
	return exp
}

func request(method, path, body, key string) events.APIGatewayV2HTTPRequest {
	h := map[string]string{"content-type": "application/json"}
	if key != "" {
		h["Idempotency-Key"] = key
	}
	return events.APIGatewayV2HTTPRequest{RawPath: path, Headers: h, Body: body,
		RequestContext: events.APIGatewayV2HTTPRequestContext{RequestID: "req-" + key, Stage: "$default",
			HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: method, Path: path},
			Authorizer: &events.APIGatewayV2HTTPRequestContextAuthorizerDescription{IAM: &events.APIGatewayV2HTTPRequestContextAuthorizerIAMDescription{
				UserARN: "arn:aws:iam::123456789012:user/tester"}}}}
}

func attr(s sdktrace.ReadOnlySpan, k attribute.Key) (attribute.Value, bool) {
	for _, kv := range s.Attributes() {
		if kv.Key == k {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}

// TestRequestAndDynamoDBSpans runs money flows through the API on the engine
// with tracing on: each request is a server span, each DynamoDB call a
// child span with the capacity it consumed, and each log line names the
// request's trace.
func TestRequestAndDynamoDBSpans(t *testing.T) {
	exp := record(t)
	eng := ddblocal.New()
	defer eng.Close()
	ctx := context.Background()
	db := eng.Client(tracing.DynamoDB)
	if err := provision.EnsureTable(ctx, db, "traced"); err != nil {
		t.Fatal(err)
	}
	exp.Reset() // the table's creation is not a request
	var logs bytes.Buffer
	api := httpapi.New(db, httpapi.Config{Table: "traced", Log: &logs,
		Auth: httpapi.Auth{IAMOperators: []string{"arn:aws:iam::123456789012:user/tester"}}})
	steps := []struct {
		method, path, body, key string
		status                  int
	}{
		{"POST", "/v1/users", `{"userId":"alice","name":"Alice","email":"alice@example.com"}`, "", 201},
		{"POST", "/v1/users/alice/credits", `{"amount":10000,"currency":"EUR"}`, "cr-1", 201},
		{"POST", "/v1/users/alice/debits", `{"amount":2500,"currency":"EUR"}`, "db-1", 201},
		{"POST", "/v1/users/alice/debits", `{"amount":999999,"currency":"EUR"}`, "db-2", 402},
	}
	for _, s := range steps {
		resp, _ := api.Handle(ctx, request(s.method, s.path, s.body, s.key))
		if resp.StatusCode != s.status {
			t.Fatalf("%s %s: got status %d, want %d: %s", s.method, s.path, resp.StatusCode, s.status, resp.Body)
		}
	}

	spans := exp.GetSpans().Snapshots()
	servers := map[trace.TraceID]sdktrace.ReadOnlySpan{}
	for _, s := range spans {
		if s.SpanKind() == trace.SpanKindServer {
			servers[s.SpanContext().TraceID()] = s
		}
	}
	if len(servers) != len(steps) {
		t.Fatalf("got %d server spans in %d traces, want one per request (%d)", len(servers), len(servers), len(steps))
	}
	var withCapacity, cancelled int
	for _, s := range spans {
		if s.SpanKind() != trace.SpanKindClient {
			continue
		}
		parent, ok := servers[s.SpanContext().TraceID()]
		if !ok || s.Parent().SpanID() != parent.SpanContext().SpanID() {
			t.Errorf("DynamoDB span %s is not a child of its request's span", s.Name())
		}
		if !strings.HasPrefix(s.Name(), "DynamoDB.") {
			t.Errorf("client span %q, want DynamoDB.<operation>", s.Name())
		}
		if v, ok := attr(s, tracing.AttrTables); !ok || v.AsStringSlice()[0] != "traced" {
			t.Errorf("%s: table names %v, want [traced]", s.Name(), v.AsStringSlice())
		}
		if v, ok := attr(s, tracing.AttrCapacityUnits); ok && v.AsFloat64() > 0 {
			withCapacity++
		}
		if v, ok := attr(s, tracing.AttrCancellationReasons); ok && slices.Contains(v.AsStringSlice(), "ConditionalCheckFailed") {
			cancelled++
		}
	}
	if withCapacity == 0 {
		t.Errorf("no DynamoDB span has %s", tracing.AttrCapacityUnits)
	}
	if cancelled != 1 {
		t.Errorf("got %d spans with a ConditionalCheckFailed cancellation reason, want 1 (the refused debit)", cancelled)
	}

	// Every request log line names the trace of its request's span.
	lines := 0
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil || m["msg"] != "request" {
			continue
		}
		lines++
		id, _ := m["traceId"].(string)
		tid, err := trace.TraceIDFromHex(id)
		if err != nil {
			t.Errorf("log line %s: traceId %q is not a trace id", line, id)
			continue
		}
		s, ok := servers[tid]
		if !ok {
			t.Errorf("log line names trace %s, which no request span has", id)
			continue
		}
		if m["spanId"] != s.SpanContext().SpanID().String() || m["xrayTraceId"] != "1-"+id[:8]+"-"+id[8:] {
			t.Errorf("log line %s: got spanId %v xrayTraceId %v, want %s and the X-Ray form of %s", line, m["spanId"], m["xrayTraceId"], s.SpanContext().SpanID(), id)
		}
	}
	if lines != len(steps) {
		t.Errorf("got %d request log lines, want %d", lines, len(steps))
	}
}
