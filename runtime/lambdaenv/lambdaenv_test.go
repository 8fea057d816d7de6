package lambdaenv_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/oncetable/oncetable/runtime/lambdaenv"
)

// lambdaVars are the variables Lambda sets for a function's role.
func lambdaVars(extra ...string) map[string]string {
	env := map[string]string{
		"AWS_REGION": "eu-west-1", "AWS_DEFAULT_REGION": "eu-west-1",
		"AWS_ACCESS_KEY_ID": "ASIAEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret", "AWS_SESSION_TOKEN": "token",
	}
	for i := 0; i+1 < len(extra); i += 2 {
		env[extra[i]] = extra[i+1]
	}
	return env
}

func from(env map[string]string) func(*lambdaenv.Options) {
	return func(o *lambdaenv.Options) { o.Getenv = func(k string) string { return env[k] } }
}

func TestConfig(t *testing.T) {
	tests := []struct {
		name         string
		env          map[string]string
		wantRegion   string
		wantEndpoint string
		wantAttempts int
	}{
		{name: "what Lambda sets", env: lambdaVars(), wantRegion: "eu-west-1"},
		{name: "default region only", env: lambdaVars("AWS_REGION", "", "AWS_DEFAULT_REGION", "us-east-2"), wantRegion: "us-east-2"},
		{name: "endpoint", env: lambdaVars("AWS_ENDPOINT_URL", "http://127.0.0.1:8000"), wantRegion: "eu-west-1", wantEndpoint: "http://127.0.0.1:8000"},
		{name: "max attempts", env: lambdaVars("AWS_MAX_ATTEMPTS", "5"), wantRegion: "eu-west-1", wantAttempts: 5},
		{name: "no session token", env: lambdaVars("AWS_SESSION_TOKEN", ""), wantRegion: "eu-west-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := lambdaenv.Config(from(tt.env))
			if err != nil {
				t.Fatalf("got %v, want no error", err)
			}
			if cfg.Region != tt.wantRegion {
				t.Errorf("region: got %q, want %q", cfg.Region, tt.wantRegion)
			}
			if got := aws.ToString(cfg.BaseEndpoint); got != tt.wantEndpoint {
				t.Errorf("endpoint: got %q, want %q", got, tt.wantEndpoint)
			}
			if cfg.RetryMaxAttempts != tt.wantAttempts {
				t.Errorf("RetryMaxAttempts: got %d, want %d", cfg.RetryMaxAttempts, tt.wantAttempts)
			}
			if cfg.Retryer == nil || cfg.Retryer().MaxAttempts() != 3 {
				t.Errorf("retryer: got nil or not 3 attempts, want the standard retryer (3 attempts)")
			}
			creds, err := cfg.Credentials.Retrieve(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			want := aws.Credentials{AccessKeyID: "ASIAEXAMPLE", SecretAccessKey: "secret", SessionToken: tt.env["AWS_SESSION_TOKEN"]}
			if creds.AccessKeyID != want.AccessKeyID || creds.SecretAccessKey != want.SecretAccessKey || creds.SessionToken != want.SessionToken {
				t.Errorf("credentials: got %+v, want %+v", creds, want)
			}
		})
	}
}

func TestConfigErrors(t *testing.T) {
	tests := []struct {
		name, wantVar string
		env           map[string]string
	}{
		{name: "no region", env: lambdaVars("AWS_REGION", "", "AWS_DEFAULT_REGION", ""), wantVar: "AWS_REGION"},
		{name: "no access key", env: lambdaVars("AWS_ACCESS_KEY_ID", ""), wantVar: "AWS_ACCESS_KEY_ID"},
		{name: "no secret key", env: lambdaVars("AWS_SECRET_ACCESS_KEY", ""), wantVar: "AWS_SECRET_ACCESS_KEY"},
		{name: "endpoint without scheme", env: lambdaVars("AWS_ENDPOINT_URL", "localhost:8000"), wantVar: "AWS_ENDPOINT_URL"},
		{name: "endpoint without host", env: lambdaVars("AWS_ENDPOINT_URL", "http://"), wantVar: "AWS_ENDPOINT_URL"},
		{name: "attempts not a number", env: lambdaVars("AWS_MAX_ATTEMPTS", "many"), wantVar: "AWS_MAX_ATTEMPTS"},
		{name: "zero attempts", env: lambdaVars("AWS_MAX_ATTEMPTS", "0"), wantVar: "AWS_MAX_ATTEMPTS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := lambdaenv.Config(from(tt.env))
			var ve *lambdaenv.VarError
			if !errors.As(err, &ve) || ve.Name != tt.wantVar || !errors.Is(err, lambdaenv.ErrEnvironment) {
				t.Fatalf("got %v, want a *VarError for %s", err, tt.wantVar)
			}
			if strings.Contains(err.Error(), "secret") && tt.wantVar != "AWS_SECRET_ACCESS_KEY" {
				t.Errorf("error %q shows the secret key", err)
			}
		})
	}
}

// TestConfigSignsWithTheRole checks, through a real client, that requests
// go to AWS_ENDPOINT_URL signed with the role's key, session token and region.
func TestConfigSignsWithTheRole(t *testing.T) {
	var auth, token string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth, token = r.Header.Get("Authorization"), r.Header.Get("X-Amz-Security-Token")
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.Write([]byte(`{"TableNames":[]}`))
	}))
	defer srv.Close()
	cfg, err := lambdaenv.Config(from(lambdaVars("AWS_ENDPOINT_URL", srv.URL)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dynamodb.NewFromConfig(cfg).ListTables(context.Background(), &dynamodb.ListTablesInput{}); err != nil {
		t.Fatal(err)
	}
	if want := "Credential=ASIAEXAMPLE/"; !strings.Contains(auth, want) || !strings.Contains(auth, "/eu-west-1/dynamodb/") {
		t.Errorf("Authorization: got %q, want %s… for eu-west-1/dynamodb", auth, want)
	}
	if token != "token" {
		t.Errorf("X-Amz-Security-Token: got %q, want %q", token, "token")
	}
}
