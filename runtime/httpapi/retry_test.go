package httpapi_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/httpapi"
	"github.com/oncetable/oncetable/runtime/internal/dbtest"
	"github.com/oncetable/oncetable/runtime/lambdaenv"
	"github.com/oncetable/oncetable/runtime/retry"
)

// TestSendsUnderSustainedThrottling: with every request to the table
// throttled, each route makes at most retry.Policy.MaxAttempts sends
// (default 5) before it answers 503, because the functions' client
// (retry.NewClient, built as in Lambda from lambdaenv.Config) does not
// retry under runtime/retry. With the SDK's standard retryer below it a
// throttled call was sent 3 times per attempt: 15 sends.
func TestSendsUnderSustainedThrottling(t *testing.T) {
	env := dbtest.New(t)
	if env.Engine == nil {
		t.Skip("injects throttling into the embedded engine")
	}
	var sends atomic.Int64
	handler := env.Engine.Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sends.Add(1)
		handler.ServeHTTP(w, r)
	}))
	defer srv.Close()
	vars := map[string]string{"AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local",
		"AWS_ENDPOINT_URL": srv.URL}
	awsCfg, err := lambdaenv.Config(func(o *lambdaenv.Options) { o.Getenv = func(k string) string { return vars[k] } })
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{env: env, api: httpapi.New(retry.NewClient(awsCfg), httpapi.Config{Auth: testAuth, Table: env.Table,
		Log: io.Discard, Retry: retry.Policy{Base: time.Millisecond, Cap: 2 * time.Millisecond}})}
	if r := h.do(t, "POST", "/users", `{"userId":"u1","name":"U","email":"u1@example.com"}`, nil); r.StatusCode != 201 {
		t.Fatalf("create user: %d %s", r.StatusCode, r.Body)
	}
	env.Engine.SetFaults(env.Table, ddblocal.Faults{ThrottleRate: 1})
	defer env.Engine.SetFaults(env.Table, ddblocal.Faults{})
	const budget = 5 // retry.Policy's default MaxAttempts
	for _, tt := range []struct{ name, method, path, body, key string }{
		{"credit (TransactWriteItems)", "POST", "/users/u1/credits", `{"amount":100,"currency":"EUR"}`, "c-1"},
		{"settle (BatchGetItem first)", "POST", "/orders/o-1/settle", "", "s-1"},
		{"balance (GetItem)", "GET", "/users/u1/balance", "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sends.Store(0)
			var hdr map[string]string
			if tt.key != "" {
				hdr = key(tt.key)
			}
			r := h.do(t, tt.method, tt.path, tt.body, hdr)
			if r.StatusCode != 503 || r.Headers["Retry-After"] == "" {
				t.Errorf("status %d (Retry-After %q) %s, want 503 with Retry-After", r.StatusCode, r.Headers["Retry-After"], r.Body)
			}
			if n := sends.Load(); n != budget {
				t.Errorf("%d sends, want %d (one layer of retries, one budget)", n, budget)
			}
		})
	}
}
