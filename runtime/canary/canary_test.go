package canary_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/oncetable/oncetable/runtime/canary"
	"github.com/oncetable/oncetable/runtime/freeze"
	"github.com/oncetable/oncetable/runtime/localrun"
	"github.com/oncetable/oncetable/runtime/obs"
	"github.com/oncetable/oncetable/runtime/opsenv"
	"github.com/oncetable/oncetable/runtime/retry"
)

func startRunner(t *testing.T) *localrun.Server {
	t.Helper()
	s, err := localrun.Start(context.Background(), localrun.Options{APIAddr: "127.0.0.1:0", DynamoDBAddr: "127.0.0.1:0", Out: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	return s
}

// successes reads the Success values of the canary's EMF lines.
func successes(t *testing.T, emf *bytes.Buffer) []float64 {
	t.Helper()
	var out []float64
	for _, line := range strings.Split(strings.TrimSpace(emf.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("EMF line %q: %v", line, err)
		}
		aws := m["_aws"].(map[string]any)["CloudWatchMetrics"].([]any)[0].(map[string]any)
		if aws["Namespace"] != obs.CanaryNamespace || m["Canary"] != "canary" {
			t.Errorf("EMF line %s: want namespace %s and dimension Canary=canary", line, obs.CanaryNamespace)
		}
		out = append(out, m[obs.CanarySuccess].(float64))
	}
	return out
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// TestCanaryAgainstTheRunner runs the canary twice against make run (as
// an operator, as its IAM role is in AWS): each run moves money through
// credit, order, charge, settle, refund and debit, the balance ends as it
// began, and Success is 1. Frozen charges make the next run fail at the
// charge, with Success 0 and nothing charged.
func TestCanaryAgainstTheRunner(t *testing.T) {
	s := startRunner(t)
	var emf bytes.Buffer
	c := canary.New(func(o *canary.Options) { o.BaseURL, o.Metrics = s.APIURL, obs.NewMetrics(&emf) })
	for run := 1; run <= 2; run++ {
		res := c.Run(t.Context())
		if res.Err != nil {
			t.Fatalf("run %d: %v (steps %+v)", run, res.Err, res.Steps)
		}
		var names []string
		for _, st := range res.Steps {
			names = append(names, st.Name)
		}
		if want := "create user,balance before,credit,create order,charge,settle,refund,debit,balance after"; strings.Join(names, ",") != want {
			t.Errorf("run %d steps %v, want %s", run, names, want)
		}
	}
	var ledger struct {
		Items []struct {
			Kind   string
			Amount int64
		}
	}
	if err := json.Unmarshal([]byte(get(t, s.APIURL+"/v1/users/canary/ledger?limit=100")), &ledger); err != nil || len(ledger.Items) != 8 {
		t.Fatalf("canary ledger %+v (%v), want 8 entries: credit, settle, refund, debit twice", ledger.Items, err)
	}
	if b := get(t, s.APIURL+"/v1/users/canary/balance"); !strings.Contains(b, `"balance":0,`) {
		t.Errorf("canary balance %s, want 0: each run ends where it began", b)
	}

	db := retry.NewClient(aws.Config{Region: "us-east-1", Credentials: opsenv.LocalCredentials},
		func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(s.DynamoDBURL) })
	sw := freeze.New(retry.Client{API: db})
	if err := sw.Freeze(t.Context(), "charge", "local:test", "canary test"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(freeze.DefaultCacheTTL + 100*time.Millisecond) // the runner's handlers see it within their cache's time
	res := c.Run(t.Context())
	var se *canary.StepError
	if !errors.As(res.Err, &se) || se.Step != "charge" || se.Status != http.StatusServiceUnavailable {
		t.Fatalf("a run with charges frozen: %v, want a *StepError at the charge, 503", res.Err)
	}
	if got := successes(t, &emf); len(got) != 3 || got[0] != 1 || got[1] != 1 || got[2] != 0 {
		t.Errorf("Success values %v, want 1, 1, 0", got)
	}
}

// TestCanaryReportsAnUnreachableAPI: no answer is a failure of the first
// step, reported as 0.
func TestCanaryReportsAnUnreachableAPI(t *testing.T) {
	var emf bytes.Buffer
	c := canary.New(func(o *canary.Options) {
		o.BaseURL, o.Metrics = "http://127.0.0.1:1", obs.NewMetrics(&emf)
		o.Client = &http.Client{Timeout: time.Second}
	})
	res := c.Run(t.Context())
	var se *canary.StepError
	if !errors.As(res.Err, &se) || se.Step != "create user" {
		t.Fatalf("got %v, want a *StepError at create user", res.Err)
	}
	if got := successes(t, &emf); len(got) != 1 || got[0] != 0 {
		t.Errorf("Success values %v, want 0", got)
	}
}
