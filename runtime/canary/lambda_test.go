package canary_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/oncetable/oncetable/runtime/canary"
	"github.com/oncetable/oncetable/runtime/obs"
)

// TestSigV4SignsForExecuteAPI: every request the canary sends carries a
// SigV4 Authorization for execute-api in the role's Region, over its body.
func TestSigV4SignsForExecuteAPI(t *testing.T) {
	var auths []string
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auths = append(auths, r.Header.Get("Authorization"))
		http.Error(w, `{"status":503}`, http.StatusServiceUnavailable)
	}))
	defer api.Close()
	cfg := aws.Config{Region: "eu-west-1", Credentials: credentials.NewStaticCredentialsProvider("AKIDCANARY", "secret", "token")}
	c := canary.New(func(o *canary.Options) { o.BaseURL, o.Sign = api.URL, canary.SigV4(cfg) })
	if res := c.Run(t.Context()); res.Err == nil {
		t.Fatal("a 503 API: the run succeeded")
	}
	want := regexp.MustCompile(`^AWS4-HMAC-SHA256 Credential=AKIDCANARY/\d{8}/eu-west-1/execute-api/aws4_request, SignedHeaders=[a-z;-]*host[a-z;-]*, Signature=[0-9a-f]{64}$`)
	if len(auths) != 1 || !want.MatchString(auths[0]) {
		t.Errorf("Authorization headers %q, want one SigV4 for execute-api in eu-west-1", auths)
	}
}

// TestHandlerReportsFailureWithoutError: a failed run is a summary with
// OK false and a log line, never an error Lambda would retry.
func TestHandlerReportsFailureWithoutError(t *testing.T) {
	var log, emf bytes.Buffer
	c := canary.New(func(o *canary.Options) { o.BaseURL, o.Metrics = "http://127.0.0.1:1", obs.NewMetrics(&emf) })
	s, err := canary.Handler(c, slog.New(slog.NewJSONHandler(&log, nil)))(context.Background())
	if err != nil || s.OK || s.Error == "" || !strings.Contains(log.String(), "canary failed") {
		t.Errorf("summary %+v, error %v, log %s; want OK false with the error, no error, a failure line", s, err, log.String())
	}
}

func TestLoadConfig(t *testing.T) {
	for _, c := range []struct {
		name string
		env  map[string]string
		want canary.Config
		err  error
	}{
		{"URL and user", map[string]string{canary.URLEnv: "https://api.example/", canary.UserEnv: "probe"}, canary.Config{URL: "https://api.example/", UserID: "probe"}, nil},
		{"URL only", map[string]string{canary.URLEnv: "https://api.example/"}, canary.Config{URL: "https://api.example/"}, nil},
		{"no URL", map[string]string{canary.UserEnv: "probe"}, canary.Config{}, canary.ErrNoURL},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := canary.LoadConfig(func(k string) string { return c.env[k] })
			if got != c.want || !errors.Is(err, c.err) {
				t.Errorf("LoadConfig = %+v, %v; want %+v, %v", got, err, c.want, c.err)
			}
			if err == nil && fmt.Sprint(got.Environment()) != fmt.Sprint(c.env) {
				t.Errorf("Environment() = %v, want %v", got.Environment(), c.env)
			}
		})
	}
}
