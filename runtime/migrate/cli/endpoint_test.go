package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/internal/dbtest"
	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/migrate"
	"github.com/oncetable/oncetable/runtime/migrate/orders"
)

// goneAfter serves the engine over TCP until its n-th UpdateItem, then goes
// away: it stops listening, drops every connection and answers nothing more.
type goneAfter struct {
	h    http.Handler
	n    int64
	seen atomic.Int64
	gone atomic.Bool
	srv  *httptest.Server
}

func (g *goneAfter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !g.gone.Load() && strings.HasSuffix(r.Header.Get("X-Amz-Target"), ".UpdateItem") && g.seen.Add(1) == g.n {
		g.gone.Store(true)
		g.srv.Listener.Close()
		go g.srv.CloseClientConnections()
	}
	if g.gone.Load() {
		if c, _, err := w.(http.Hijacker).Hijack(); err == nil {
			c.Close()
		}
		return
	}
	g.h.ServeHTTP(w, r)
}

// TestEndpointGoesAway: the endpoint stops in the middle of a backfill. The
// command fails after its retries with a clear error saying nothing is
// lost, and a run against the endpoint back up resumes from the segments'
// checkpoints and reaches a passing verify.
func TestEndpointGoesAway(t *testing.T) {
	env := dbtest.New(t)
	if env.Engine == nil {
		t.Skip("stops a server of the embedded engine")
	}
	t.Setenv("AWS_ACCESS_KEY_ID", "local")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "local")
	ctx := context.Background()
	const n = 600
	putOrders(t, env, n)
	m, _ := orders.ByStatus(4, keys.Default)
	g := &goneAfter{h: env.Engine.Handler(), n: 200}
	g.srv = httptest.NewServer(g)
	defer g.srv.Close()
	args := func(url string) []string {
		return []string{"-dynamodb-endpoint", url, "-table", env.Table, "-migration", orders.Name, "-holder", "cli-test",
			"-segments", "2", "-budget", "100000", "run", "-to", "verify"}
	}
	var out, errOut bytes.Buffer
	c := Command{Migrations: map[string]migrate.Migration{orders.Name: m}, Stdout: &out, Stderr: &errOut}
	start := time.Now()
	if code := c.Main(ctx, args(g.srv.URL)); code != 1 {
		t.Fatalf("exit %d with the endpoint gone, want 1; stderr %q", code, errOut.String())
	}
	t.Logf("failed after %s:\n%s", time.Since(start).Round(time.Millisecond), errOut.String())
	for _, want := range []string{"connection refused", "the DynamoDB endpoint stopped answering", "Nothing is lost", "run the same command again"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr lacks %q", want)
		}
	}
	before := migrated(t, env)
	if before == 0 || before >= n {
		t.Fatalf("%d of %d orders migrated when the endpoint went away; want some, not all", before, n)
	}

	back := httptest.NewServer(env.Engine.Handler())
	defer back.Close()
	out.Reset()
	errOut.Reset()
	if code := c.Main(ctx, args(back.URL)); code != 0 {
		t.Fatalf("exit %d against the endpoint back up; stderr %q", code, errOut.String())
	}
	if !strings.Contains(out.String(), `"phase":"verify","verifiedEpoch":3`) {
		t.Errorf("stdout after the resumed run: %s", out.String())
	}
	scanned := lastBackfill(t, out.String())
	if got := migrated(t, env); got != n || scanned >= n {
		t.Fatalf("after the resumed run %d of %d orders migrated and the resumed backfill scanned %d; want all, and fewer than %d scanned (a resume, not a restart)", got, n, scanned, n)
	}
	t.Logf("%d orders migrated before the endpoint went away; the resumed run scanned %d", before, scanned)
}

func putOrders(t *testing.T, env *dbtest.Env, n int) {
	t.Helper()
	created := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("o%04d", i)
		pk, sk := keys.OrderStatusGSI("created", created, id)
		_, err := env.Client.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(env.Table), Item: map[string]types.AttributeValue{
			"PK": s("ORDER#" + id), "SK": s("ORDER#" + id), "EntityType": s("Order"), "orderId": s(id), "status": s("created"),
			"createdAt": s(keys.Timestamp(created)), "GSI1PK": s(pk), "GSI1SK": s(sk)}})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// migrated counts the orders in the new shape, read in process.
func migrated(t *testing.T, env *dbtest.Env) int {
	t.Helper()
	count := 0
	p := dynamodb.NewScanPaginator(env.Client, &dynamodb.ScanInput{TableName: aws.String(env.Table), ConsistentRead: aws.Bool(true)})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			if _, ok := it[orders.ShardAttribute]; ok {
				count++
			}
		}
	}
	return count
}

// lastBackfill is the items scanned in the last backfill progress line.
func lastBackfill(t *testing.T, out string) int {
	t.Helper()
	scanned := -1
	for _, line := range strings.Split(out, "\n") {
		var p struct {
			Event, Job string
			Scanned    int
		}
		if json.Unmarshal([]byte(line), &p) == nil && p.Event == "progress" && p.Job == "backfill" {
			scanned = p.Scanned
		}
	}
	if scanned < 0 {
		t.Fatalf("no backfill progress line in %s", out)
	}
	return scanned
}
