package migratedemo_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/oncetable/oncetable/runtime/migrate"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/test/workload/migratedemo"
)

// TestShortDemo is `make migrate-demo` cut short for `make test`: a few
// seconds of v1, the migration with its killed backfill and its rollback
// from verify, both deploys, then the soak's checkers and CheckIndex.
func TestShortDemo(t *testing.T) {
	cfg := migratedemo.Config{Duration: 8 * time.Second, Before: 2 * time.Second, Clients: 8, Users: 12, Seed: 7,
		Phase: time.Second, Dwell: 300 * time.Millisecond, MinOrders: 1, Budget: 5000}
	if testing.Short() {
		cfg.Duration, cfg.Before = 5*time.Second, time.Second
	}
	var out bytes.Buffer
	cfg.Out = &out
	start := time.Now()
	rep, err := migratedemo.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	rep.WriteEnd(&out)
	t.Logf("%s in %s", out.String(), time.Since(start).Round(time.Millisecond))
	if rep.Failed() {
		var v bytes.Buffer
		rep.Soak.WriteViolations(&v)
		t.Fatalf("the demo failed:\n%s", v.String())
	}
	for _, want := range []string{"deploy 1: UpdateTable Create OrdersByStatus", "ORDER_INDEXES=both", "killed mid-sweep",
		"resumed from the checkpoints", "migrate rollback: verify -> backfill", "phase done", "ORDER_INDEXES=v2",
		"UpdateTable Delete GSI1", "\nverified: ", "\nlost: 0 "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if ix := rep.Index; ix.Orders == 0 || ix.Rows != ix.Orders || ix.Retired != 0 || ix.GSI1 {
		t.Errorf("index after the run: %+v; want every order in OrdersByStatus, none with GSI1 keys, GSI1 gone", ix)
	}
}

// TestDemoCatchesAMissingMirror deploys v1 writers where deploy 1 must
// deploy stage both: they write no shard and carry no fence, so the orders
// they create after the backfill passed are in the old shape only. The
// demo must fail: verify reports them, and the run says so.
func TestDemoCatchesAMissingMirror(t *testing.T) {
	cfg := migratedemo.Config{Duration: 3 * time.Second, Before: time.Second, Clients: 8, Users: 12, Seed: 3,
		Phase: time.Second, Dwell: 300 * time.Millisecond, MinOrders: 1, Budget: 5000, Deploy1: schema.OrdersV1}
	rep, err := migratedemo.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	rep.WriteEnd(&out)
	if !rep.Failed() || rep.Soak.During == nil || !errors.Is(rep.Soak.During, migrate.ErrMismatch) {
		t.Fatalf("the demo with v1 writers passed (during: %v); want verify to report the orders without the new shape", rep.Soak.During)
	}
	if !strings.Contains(out.String(), "NOT verified") || rep.Index.Lost() == 0 {
		t.Errorf("want NOT verified and lost above 0, got:\n%s", out.String())
	}
}
