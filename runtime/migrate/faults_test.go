package migrate

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/oncetable/oncetable/runtime/ddblocal"
)

// TestEveryPhaseUnderFaults runs the migration from none to done, with a
// rollback from verify, while the engine throttles, conflicts and loses
// responses after commit on every call. A transition whose response is
// lost is retried, finds the epoch moved by this migrator and counts as
// done: the epochs show each transition happened exactly once.
func TestEveryPhaseUnderFaults(t *testing.T) {
	const n = 30
	f := newFixture(t, n)
	if f.env.Engine == nil {
		t.Skip("injects faults into the embedded engine")
	}
	// Without the SDK's own retries, so that the toolkit's are what ride out the faults.
	client := f.env.Engine.Client(func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 })
	mg, err := New(client, f.env.Table, ordersShard(), func(o *Options) {
		o.Holder, o.Segments, o.PageSize, o.Budget, o.Clock = "test-migrator", 3, 7, 100000, f.env.Clock.Now
		o.Retry.MaxAttempts = 12
	})
	if err != nil {
		t.Fatal(err)
	}
	f.env.Engine.SetFaults(f.env.Table, ddblocal.Faults{Seed: 11, ThrottleRate: 0.1, TransactionConflictRate: 0.1,
		WriteConflictRate: 0.1, LoseResponseRate: 0.15, LoseResponseMode: ddblocal.LoseAs500})
	mustRun(t, mg, Verify)
	if st, err := mg.Rollback(f.ctx); err != nil || st.Phase != Backfill {
		t.Fatalf("Rollback from verify = %+v, %v", st, err)
	}
	mustRun(t, mg, Done)
	faults := f.env.Engine.FaultCounts()
	f.env.Engine.SetFaults(f.env.Table, ddblocal.Faults{})
	st, err := mg.Status(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	// none -> mirror -> backfill -> verify -> backfill -> verify -> cutover -> cleanup -> done
	if st.Phase != Done || st.Epoch != 8 {
		t.Fatalf("after the run: %+v, want done at epoch 8 (one epoch per transition)", st)
	}
	for i := 0; i < n; i++ {
		if it := f.order(orderID(i)); display(it["shard"]) != shardOf(orderID(i)) || it["GSI1PK"] != nil {
			t.Errorf("order %d after done: shard %s, GSI1PK %s", i, display(it["shard"]), display(it["GSI1PK"]))
		}
	}
	t.Logf("faults: %d lost responses, %d throttled, %d transaction conflicts, %d write conflicts",
		faults.LostResponses, faults.Throttled, faults.TransactionConflicts, faults.WriteConflicts)
	if faults.LostResponses == 0 || faults.Throttled == 0 {
		t.Fatalf("faults %+v: the run did not meet the faults it claims to", faults)
	}
}
