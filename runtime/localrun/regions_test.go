package localrun_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/oncetable/oncetable/runtime/httpapi"
	"github.com/oncetable/oncetable/runtime/localrun"
)

func post(t *testing.T, url, body, key string) (*http.Response, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	b, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(b, &m)
	return resp, m
}

// TestTwoRegions: a run of two Regions serves one API per Region, homes
// every cell in the first, forwards from the second, and Failover moves a
// user's cell, after which the first forwards to the second.
func TestTwoRegions(t *testing.T) {
	regions := []string{"us-east-1", "eu-west-1"}
	var out bytes.Buffer
	s, err := localrun.Start(context.Background(), localrun.Options{APIAddr: "127.0.0.1:0", DynamoDBAddr: "127.0.0.1:0", Regions: regions, Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Shutdown(context.Background()) })
	if len(s.Regions) != 2 || s.Regions[0].URL != s.APIURL || s.Regions[1].Region != "eu-west-1" {
		t.Fatalf("Regions = %+v, want us-east-1 at %s and eu-west-1", s.Regions, s.APIURL)
	}
	east, west := s.Regions[0].URL, s.Regions[1].URL
	if resp, m := post(t, east+"/v1/users", `{"userId":"alice","name":"Alice","email":"alice@example.com"}`, ""); resp.StatusCode != 201 {
		t.Fatalf("create user: %d %v", resp.StatusCode, m)
	}
	resp, m := post(t, west+"/v1/users/alice/credits", `{"amount":5000,"currency":"EUR"}`, "cr-1")
	if resp.StatusCode != 201 || resp.Header.Get(httpapi.HomeRegionHeader) != "us-east-1" {
		t.Fatalf("credit sent to eu-west-1: %d %v, home %q; want 201 served by us-east-1", resp.StatusCode, m, resp.Header.Get(httpapi.HomeRegionHeader))
	}
	var report bytes.Buffer
	fo := localrun.FailoverOptions{Endpoint: s.DynamoDBURL, Table: "oncetable", Regions: regions, User: "alice", To: "eu-west-1",
		Mode: localrun.FailoverPlanned, Out: &report}
	if err := localrun.Failover(context.Background(), fo); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(report.String(), "dry run") {
		t.Fatalf("failover without Apply: %q, want a dry run", report.String())
	}
	fo.Apply = true
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := localrun.Failover(ctx, fo); err != nil {
		t.Fatalf("%v\n%s", err, report.String())
	}
	// The drain proof compared the cell's partition, alice's and the
	// credit's record's, not the cell's ownership item alone.
	if !strings.Contains(report.String(), "us-east-1 -> eu-west-1 at epoch 2") || !strings.Contains(report.String(), "in 3 partitions proven replicated") {
		t.Fatalf("failover report %q, want the move at epoch 2 and 3 partitions proven", report.String())
	}
	t.Logf("failover report:\n%s", report.String())
	resp, m = post(t, east+"/v1/users/alice/debits", `{"amount":1200,"currency":"EUR"}`, "db-1")
	if resp.StatusCode != 201 || resp.Header.Get(httpapi.HomeRegionHeader) != "eu-west-1" {
		t.Fatalf("debit sent to us-east-1 after the failover: %d %v, home %q; want 201 served by eu-west-1", resp.StatusCode, m, resp.Header.Get(httpapi.HomeRegionHeader))
	}
	fo.Mode = "sideways"
	if err := localrun.Failover(context.Background(), fo); err == nil || !strings.Contains(err.Error(), "want planned, freeze or takeover") {
		t.Fatalf("unknown mode: %v", err)
	}
}
