package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/home"
	"github.com/oncetable/oncetable/runtime/httpapi"
	"github.com/oncetable/oncetable/runtime/internal/dbtest"
	"github.com/oncetable/oncetable/runtime/localrun"
	"github.com/oncetable/oncetable/runtime/obs"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/schema/provision"
)

const (
	east = "us-east-1"
	west = "eu-west-1"
)

// regionAPIs is one API per Region over a global table on the engine's
// multi-Region mode, each served over HTTP as the local runner serves it.
type regionAPIs struct {
	eng    *ddblocal.Engine
	clock  *dbtest.Clock
	db     map[string]*dynamodb.Client
	srv    map[string]*httptest.Server
	leases *home.Leases
	fence  map[string]*home.Fencer
	// metrics holds each Region's EMF lines.
	metrics map[string]*syncBuffer
}

// syncBuffer is a buffer the API writes while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// count is how many EMF lines of b count metric name.
func (b *syncBuffer) count(name string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, line := range strings.Split(b.buf.String(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && m[name] == 1.0 {
			n++
		}
	}
	return n
}

func newRegionAPIs(t *testing.T) *regionAPIs {
	t.Helper()
	ctx := context.Background()
	clock := &dbtest.Clock{}
	eng := ddblocal.New(func(o *ddblocal.Options) {
		o.Regions, o.ManualReplication, o.Clock = []string{east, west}, true, clock.Now
	})
	t.Cleanup(func() { eng.Close() })
	w := &regionAPIs{eng: eng, clock: clock, db: map[string]*dynamodb.Client{}, srv: map[string]*httptest.Server{}, fence: map[string]*home.Fencer{},
		metrics: map[string]*syncBuffer{}}
	for _, r := range []string{east, west} {
		w.db[r] = eng.Region(r).Client()
	}
	const table = "money"
	if err := provision.EnsureTableFor(ctx, w.db[east], table, schema.Default()); err != nil {
		t.Fatal(err)
	}
	for _, in := range []*dynamodb.UpdateTableInput{
		{TableName: aws.String(table), StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}},
		{TableName: aws.String(table), ReplicaUpdates: []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String(west)}}}},
	} {
		if _, err := w.db[east].UpdateTable(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	dbtest.CreateKeyedTable(t, w.db[east], "leases", schema.PartitionKey, schema.SortKey)
	w.leases = home.NewLeases(w.db[east], "leases", func(o *home.LeaseOptions) { o.Clock = clock.Now })
	peers := map[string]string{}
	apis := map[string]*httpapi.API{}
	for _, r := range []string{east, west} {
		r := r
		w.fence[r] = home.NewFencer(r, table, 4, w.leases, func(o *home.FencerOptions) { o.Clock = clock.Now })
		homes := &httpapi.Homes{Fencer: w.fence[r], Peers: peers, RetryAfter: 7 * time.Second}
		w.metrics[r] = &syncBuffer{}
		apis[r] = httpapi.New(w.db[r], httpapi.Config{Auth: localrun.OperatorAuth(httpapi.Auth{}), Table: table, Clock: clock.Now,
			Log: io.Discard, Metrics: w.metrics[r], CursorSecret: []byte("test secret of at least 32 bytes!!"), Homes: homes})
		w.srv[r] = httptest.NewServer(localrun.Handler(apis[r].Handle, clock.Now))
		t.Cleanup(w.srv[r].Close)
		peers[r] = w.srv[r].URL
	}
	return w
}

func (w *regionAPIs) replicate() {
	w.clock.Advance(5 * time.Second)
	w.eng.Replication().WaitQuiet()
}

func (w *regionAPIs) do(t *testing.T, region, method, path, body, key string) (*http.Response, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, w.srv[region].URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
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
	if len(b) > 0 {
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s %s: body %q: %v", method, path, b, err)
		}
	}
	return resp, m
}

func (w *regionAPIs) want(t *testing.T, region, method, path, body, key string, status int) map[string]any {
	t.Helper()
	resp, m := w.do(t, region, method, path, body, key)
	if resp.StatusCode != status {
		t.Fatalf("%s %s in %s: got %d %v, want %d", method, path, region, resp.StatusCode, m, status)
	}
	return m
}

func TestHomesForwardToTheHomeRegion(t *testing.T) {
	w := newRegionAPIs(t)
	ctx := context.Background()
	if _, err := home.Assign(ctx, w.leases, w.db[east], "money", w.fence[east].Cell("alice"), east); err != nil {
		t.Fatal(err)
	}
	w.want(t, east, "POST", "/v1/users", `{"userId":"alice","name":"Alice","email":"alice@example.com"}`, "", 201)
	w.replicate()

	t.Run("a credit sent to the other Region is served by the home", func(t *testing.T) {
		resp, m := w.do(t, west, "POST", "/v1/users/alice/credits", `{"amount":1000,"currency":"EUR"}`, "cr-1")
		if resp.StatusCode != 201 || resp.Header.Get(httpapi.HomeRegionHeader) != east {
			t.Fatalf("got %d %v (%s: %q), want 201 served by %s", resp.StatusCode, m, httpapi.HomeRegionHeader, resp.Header.Get(httpapi.HomeRegionHeader), east)
		}
		w.replicate()
		// The retry that lands in the home replays: one effect, whichever
		// Region the client reached.
		resp, _ = w.do(t, east, "POST", "/v1/users/alice/credits", `{"amount":1000,"currency":"EUR"}`, "cr-1")
		if resp.StatusCode != 201 || resp.Header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("retry in the home: got %d, Idempotent-Replayed %q, want 201 replayed", resp.StatusCode, resp.Header.Get("Idempotent-Replayed"))
		}
		if got := w.want(t, west, "GET", "/v1/users/alice/balance", "", "", 200)["balance"]; got != 1000.0 {
			t.Fatalf("balance in %s: got %v, want 1000", west, got)
		}
		// Forwarding, refused by the lease read before any write, is
		// routine: no fence fault.
		if got := w.metrics[west].count(obs.FenceCancelled) + w.metrics[west].count(obs.LeaseLost); got != 0 {
			t.Errorf("home faults counted for a forwarded credit: %d, want 0", got)
		}
	})

	t.Run("a request forwarded already is answered 421 naming the home", func(t *testing.T) {
		req, _ := http.NewRequest("POST", w.srv[west].URL+"/v1/users/alice/debits", strings.NewReader(`{"amount":100,"currency":"EUR"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", "db-loop")
		req.Header.Set(httpapi.ForwardedFromHeader, east)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var p httpapi.Problem
		if err := json.NewDecoder(resp.Body).Decode(&p); err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusMisdirectedRequest || p.Code != "wrong_region" || p.Region != east {
			t.Fatalf("got %d %+v, want 421 wrong_region naming %s", resp.StatusCode, p, east)
		}
	})

	t.Run("the home unreachable: 503 with Retry-After naming it, nothing written", func(t *testing.T) {
		w.srv[east].Close()
		resp, m := w.do(t, west, "POST", "/v1/users/alice/debits", `{"amount":100,"currency":"EUR"}`, "db-1")
		if resp.StatusCode != http.StatusServiceUnavailable || m["code"] != "home_unavailable" || m["region"] != east || resp.Header.Get("Retry-After") != "7" {
			t.Fatalf("got %d %v Retry-After %q, want 503 home_unavailable naming %s, Retry-After 7", resp.StatusCode, m, resp.Header.Get("Retry-After"), east)
		}
		w.replicate()
		if got := w.want(t, west, "GET", "/v1/users/alice/balance", "", "", 200)["balance"]; got != 1000.0 {
			t.Fatalf("balance after the refused debit: got %v, want 1000", got)
		}
	})

	t.Run("during a failover's stop: 503 with Retry-After", func(t *testing.T) {
		cell := w.fence[east].Cell("alice")
		l, err := w.leases.Get(ctx, cell)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.leases.Move(ctx, l, west); err != nil {
			t.Fatal(err)
		}
		if err := home.Stop(ctx, w.db[east], "money", cell, l.Epoch); err != nil {
			t.Fatal(err)
		}
		w.replicate()
		// west's lease is the next epoch's, but its replica says stopped
		// until Claim: the fence refuses and no home is named yet.
		resp, m := w.do(t, west, "POST", "/v1/users/alice/debits", `{"amount":100,"currency":"EUR"}`, "db-2")
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
			t.Fatalf("got %d %v, want 503 with Retry-After", resp.StatusCode, m)
		}
		// The fence's ConditionCheck cancelled it: a fault of its own.
		if got := w.metrics[west].count(obs.FenceCancelled); got != 1 {
			t.Errorf("%s counted in %s: %d, want 1", obs.FenceCancelled, west, got)
		}
		nl, err := w.leases.Get(ctx, cell)
		if err != nil {
			t.Fatal(err)
		}
		if err := home.Claim(ctx, w.db[west], "money", nl); err != nil {
			t.Fatal(err)
		}
		w.want(t, west, "POST", "/v1/users/alice/debits", `{"amount":100,"currency":"EUR"}`, "db-2", 201)
	})
}

// TestHomesCountLeaseLost: when the lease store stops answering and this
// Region's lease on a cell runs out, money requests are refused 503 and
// counted LeaseLost, and nothing is written.
func TestHomesCountLeaseLost(t *testing.T) {
	w := newRegionAPIs(t)
	ctx := context.Background()
	if _, err := home.Assign(ctx, w.leases, w.db[east], "money", w.fence[east].Cell("alice"), east); err != nil {
		t.Fatal(err)
	}
	w.want(t, east, "POST", "/v1/users", `{"userId":"alice","name":"Alice","email":"alice@example.com"}`, "", 201)
	w.want(t, east, "POST", "/v1/users/alice/credits", `{"amount":1000,"currency":"EUR"}`, "cr-1", 201)
	if got := w.metrics[east].count(obs.LeaseLost); got != 0 {
		t.Fatalf("%s before the lease store went: %d, want 0", obs.LeaseLost, got)
	}
	// The lease store goes away; the held lease runs out.
	if _, err := w.db[east].DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("leases")}); err != nil {
		t.Fatal(err)
	}
	w.clock.Advance(time.Hour)
	resp, m := w.do(t, east, "POST", "/v1/users/alice/debits", `{"amount":100,"currency":"EUR"}`, "db-1")
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("got %d %v, want 503 with Retry-After", resp.StatusCode, m)
	}
	if got := w.metrics[east].count(obs.LeaseLost); got != 1 {
		t.Errorf("%s: %d, want 1", obs.LeaseLost, got)
	}
	if got := w.want(t, east, "GET", "/v1/users/alice/balance", "", "", 200)["balance"]; got != 1000.0 {
		t.Errorf("balance after the refused debit: got %v, want 1000", got)
	}
}

// TestHomesRefuseATransferBetweenTwoHomes: a transfer between users whose
// cells are homed in two Regions is 409 cross-region-transfer in either
// Region, forwarded or not, and writes nothing; once both cells share a
// home, the same key transfers.
func TestHomesRefuseATransferBetweenTwoHomes(t *testing.T) {
	w := newRegionAPIs(t)
	ctx := context.Background()
	to := ""
	for _, u := range []string{"bob", "carol", "dave", "erin", "frank", "grace"} {
		if w.fence[east].Cell(u) != w.fence[east].Cell("alice") {
			to = u
			break
		}
	}
	if to == "" {
		t.Fatal("no user in another cell than alice's")
	}
	for user, r := range map[string]string{"alice": east, to: west} {
		if _, err := home.Assign(ctx, w.leases, w.db[r], "money", w.fence[r].Cell(user), r); err != nil {
			t.Fatal(err)
		}
		w.want(t, r, "POST", "/v1/users", `{"userId":"`+user+`","name":"U","email":"u@example.com"}`, "", 201)
	}
	w.want(t, east, "POST", "/v1/users/alice/credits", `{"amount":1000,"currency":"EUR"}`, "cr-1", 201)
	w.replicate()

	transfer := `{"toUserId":"` + to + `","amount":300,"currency":"EUR"}`
	for _, r := range []string{east, west} {
		resp, m := w.do(t, r, "POST", "/v1/users/alice/transfers", transfer, "tr-1")
		if resp.StatusCode != http.StatusConflict || m["type"] != httpapi.ProblemTypeBase+"cross-region-transfer" || m["code"] != "cross_region_transfer" {
			t.Fatalf("transfer sent to %s: got %d %v, want 409 cross_region_transfer", r, resp.StatusCode, m)
		}
		if !strings.Contains(m["detail"].(string), east) || !strings.Contains(m["detail"].(string), west) {
			t.Errorf("detail %q names not both homes", m["detail"])
		}
	}
	w.replicate()
	for user, want := range map[string]float64{"alice": 1000, to: 0} {
		if got := w.want(t, east, "GET", "/v1/users/"+user+"/balance", "", "", 200)["balance"]; got != want && !(want == 0 && got == nil) {
			t.Fatalf("%s's balance after the refused transfers: got %v, want %v", user, got, want)
		}
	}

	// The recipient's cell moves to east: the same key now transfers, as
	// the refusals stored nothing.
	cell := w.fence[west].Cell(to)
	fo := &home.Failover{Table: "money", Leases: w.leases, Regions: map[string]home.DB{east: w.db[east], west: w.db[west]},
		Wait: func(context.Context) error { w.replicate(); return nil }, Attempts: 3}
	if _, err := fo.Planned(ctx, cell, east); err != nil {
		t.Fatal(err)
	}
	w.want(t, west, "POST", "/v1/users/alice/transfers", transfer, "tr-1", 201)
	w.replicate()
	if got := w.want(t, west, "GET", "/v1/users/"+to+"/balance", "", "", 200)["balance"]; got != 300.0 {
		t.Fatalf("%s's balance after the transfer: got %v, want 300", to, got)
	}
}
