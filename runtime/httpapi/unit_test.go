package httpapi_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/httpapi"
	"github.com/oncetable/oncetable/runtime/retry"
)

func TestCallerIdentity(t *testing.T) {
	az := func(a events.APIGatewayV2HTTPRequestContextAuthorizerDescription) events.APIGatewayV2HTTPRequest {
		return events.APIGatewayV2HTTPRequest{RequestContext: events.APIGatewayV2HTTPRequestContext{Authorizer: &a}}
	}
	tests := []struct {
		name string
		req  events.APIGatewayV2HTTPRequest
		want string
	}{
		{"iam user arn", az(events.APIGatewayV2HTTPRequestContextAuthorizerDescription{IAM: &events.APIGatewayV2HTTPRequestContextAuthorizerIAMDescription{UserARN: "arn:aws:iam::1:user/a"}}), "iam:arn:aws:iam::1:user/a"},
		{"iam caller id", az(events.APIGatewayV2HTTPRequestContextAuthorizerDescription{IAM: &events.APIGatewayV2HTTPRequestContextAuthorizerIAMDescription{AccountID: "1", CallerID: "AIDA"}}), "iam:1:AIDA"},
		{"jwt", az(events.APIGatewayV2HTTPRequestContextAuthorizerDescription{JWT: &events.APIGatewayV2HTTPRequestContextAuthorizerJWTDescription{Claims: map[string]string{"sub": "s1", "iss": "https://idp"}}}), "jwt:https://idp|s1"},
		{"lambda authorizer", az(events.APIGatewayV2HTTPRequestContextAuthorizerDescription{Lambda: map[string]any{"sub": "x"}}), "lambda:x"},
		{"none", events.APIGatewayV2HTTPRequest{}, "anonymous"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := httpapi.CallerIdentity(&tt.req); got != tt.want {
				t.Errorf("CallerIdentity = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRequestShapes(t *testing.T) {
	h := newHarness(t)
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	tests := []struct {
		name   string
		mutate func(*events.APIGatewayV2HTTPRequest)
		status int
	}{
		{"plain", func(*events.APIGatewayV2HTTPRequest) {}, 201},
		{"base64 body", func(r *events.APIGatewayV2HTTPRequest) {
			r.Body, r.IsBase64Encoded = b64(`{"userId":"b64","name":"B","email":"b@example.com"}`), true
		}, 201},
		{"bad base64", func(r *events.APIGatewayV2HTTPRequest) { r.Body, r.IsBase64Encoded = "!!!", true }, 400},
		{"stage prefix", func(r *events.APIGatewayV2HTTPRequest) {
			r.RawPath, r.RequestContext.Stage = "/prod/users", "prod"
			r.Body = `{"userId":"staged","name":"S","email":"s@example.com"}`
		}, 201},
		{"charset parameter", func(r *events.APIGatewayV2HTTPRequest) {
			r.Headers["content-type"] = "application/json; charset=utf-8"
			r.Body = `{"userId":"cs","name":"C","email":"c@example.com"}`
		}, 201},
		{"missing content type", func(r *events.APIGatewayV2HTTPRequest) { delete(r.Headers, "content-type") }, 415},
		{"nested duplicate key", func(r *events.APIGatewayV2HTTPRequest) {
			r.Body = `{"userId":"n","name":"N","email":"n@example.com","x":{"a":1,"a":2}}`
		}, 400},
		{"empty body", func(r *events.APIGatewayV2HTTPRequest) { r.Body = "" }, 400},
		{"field name in another case", func(r *events.APIGatewayV2HTTPRequest) { r.Body = `{"NAME":"N","email":"n@example.com"}` }, 400},
		{"duplicate differing in case", func(r *events.APIGatewayV2HTTPRequest) { r.Body = `{"name":"N","Name":"M","email":"n@example.com"}` }, 400},
		{"string instead of name", func(r *events.APIGatewayV2HTTPRequest) { r.Body = `{"name":5,"email":"n@example.com"}` }, 400},
		{"control char in name", func(r *events.APIGatewayV2HTTPRequest) { r.Body = `{"name":"a\u0007","email":"n@example.com"}` }, 400},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := event("POST", "/users", `{"userId":"u`+string(rune('a'+i))+`","name":"A","email":"a@example.com"}`, nil)
			tt.mutate(&ev)
			resp, _ := h.api.Handle(context.Background(), ev)
			if resp.StatusCode != tt.status {
				t.Errorf("status %d, want %d: %s", resp.StatusCode, tt.status, resp.Body)
			}
		})
	}
}

func TestOnlyAndExcept(t *testing.T) {
	h := newHarness(t)
	only := h.api.Only(httpapi.RouteCreateUser)
	except := h.api.Except(httpapi.RouteCreateUser)
	ev := event("POST", "/users", `{"userId":"o1","name":"O","email":"o@example.com"}`, nil)
	if r, _ := only(context.Background(), ev); r.StatusCode != 201 {
		t.Errorf("Only(createUser) POST /users = %d", r.StatusCode)
	}
	if r, _ := except(context.Background(), ev); r.StatusCode != 404 {
		t.Errorf("Except(createUser) POST /users = %d, want 404", r.StatusCode)
	}
	if r, _ := only(context.Background(), event("GET", "/users/o1", "", nil)); r.StatusCode != 404 {
		t.Errorf("Only(createUser) GET /users/o1 = %d, want 404", r.StatusCode)
	}
	if r, _ := except(context.Background(), event("GET", "/users/o1", "", nil)); r.StatusCode != 200 {
		t.Errorf("Except(createUser) GET /users/o1 = %d, want 200", r.StatusCode)
	}
}

// Throttling that outlives the retries is 503 with Retry-After, and nothing
// is written.
func TestThrottledIs503WithRetryAfter(t *testing.T) {
	h := newHarness(t)
	if h.env.Engine == nil {
		t.Skip("fault injection needs the embedded engine")
	}
	// The SDK's own retryer would back off for seconds; leave the retries to runtime/retry.
	client := h.env.Engine.Client(func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 })
	h.api = httpapi.New(client, httpapi.Config{Auth: testAuth, Table: h.env.Table, Clock: h.env.Clock.Now, Log: h.log,
		Retry: retry.Policy{MaxAttempts: 3, Base: time.Millisecond, Cap: 2 * time.Millisecond, RetryAfter: 2 * time.Second}})
	h.seed(t, "ivan", 1000, nil)
	h.env.Engine.SetFaults(h.env.Table, ddblocal.Faults{ThrottleRate: 1})
	r := h.do(t, "POST", "/users/ivan/debits", `{"amount":10,"currency":"EUR"}`, key("throttled"))
	h.env.Engine.ClearFaults(h.env.Table)
	if r.StatusCode != http.StatusServiceUnavailable || r.Headers["Retry-After"] != "2" || !strings.Contains(r.Body, "unavailable") {
		t.Fatalf("throttled debit = %d %v %s, want 503 with Retry-After: 2", r.StatusCode, r.Headers, r.Body)
	}
	if !strings.Contains(h.log.String(), `"Throttled":1`) || !strings.Contains(h.log.String(), `"Unavailable":1`) {
		t.Error("no Throttled/Unavailable fault metrics")
	}
	// The same key works once the table recovers: the 503 stored nothing.
	r = h.must(t, 201, "POST", "/users/ivan/debits", `{"amount":10,"currency":"EUR"}`, key("throttled"))
	if r.Headers["Idempotent-Replayed"] != "" {
		t.Error("retry after 503 was answered as a replay")
	}
}
