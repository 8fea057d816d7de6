package regionsim

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/home"
)

// The four interleavings that break money flows on a global table with
// multi-Region eventual consistency, each run twice: on the naive design
// (every Region writes), where the test asserts that the violation
// happens, and on the fenced design, where it asserts that it does not.
// They rest on what AWS documents:
//   - "How DynamoDB global tables work"
//     (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/V2globaltables_HowItWorks.html):
//     replication is asynchronous, conflicts resolve per item by last
//     writer wins, and a Region that recovers sends its unreplicated
//     writes then;
//   - Prescriptive Guidance, "Write modes for global tables"
//     (https://docs.aws.amazon.com/prescriptive-guidance/latest/dynamodb-global-tables/write-modes.html):
//     conditional writes and transactions are only safe when each item is
//     written in one Region at a time ("write to one Region", "write to
//     your Region");
//   - the TransactWriteItems reference
//     (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html):
//     a transaction's items are in one account and Region; it is atomic
//     there and its items replicate one by one like any other writes.

const (
	regionA = "us-east-1"
	regionB = "us-west-2"
	cell    = "c000"
)

func cluster(t *testing.T, design Design) *Cluster {
	t.Helper()
	c, err := NewCluster(context.Background(), Config{Regions: []string{regionA, regionB}, Design: design})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func open(t *testing.T, c *Cluster, balance int64) {
	t.Helper()
	if err := c.InitCell(context.Background(), cell, regionA, map[string]int64{"alice": balance}); err != nil {
		t.Fatal(err)
	}
}

func handle(t *testing.T, c *Cluster, at string, req Request) Result {
	t.Helper()
	res, err := c.Handle(context.Background(), at, req)
	if err != nil {
		t.Fatalf("%s %s in %s: %v", req.Op, req.Key, at, err)
	}
	return res
}

func audit(t *testing.T, c *Cluster, opening int64, acked []Ack, takenOver bool) []string {
	t.Helper()
	v, err := c.Audit(context.Background(), []string{cell}, map[string]int64{"alice": opening}, acked, map[string]bool{cell: takenOver})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func wantViolation(t *testing.T, v []string, want ...string) {
	t.Helper()
	for _, w := range want {
		found := false
		for _, got := range v {
			found = found || strings.Contains(got, w)
		}
		if !found {
			t.Errorf("violations %q: want one containing %q", v, w)
		}
	}
}

func wantClean(t *testing.T, v []string) {
	t.Helper()
	if len(v) > 0 {
		t.Errorf("violations: %q, want none", v)
	}
}

func takeover(t *testing.T, c *Cluster) {
	t.Helper()
	ctx := context.Background()
	f := c.Failover()
	if _, err := f.Takeover(ctx, cell, regionB); !errors.Is(err, home.ErrLeaseConflict) {
		t.Fatalf("takeover before the lease ran out: %v, want ErrLeaseConflict", err)
	}
	c.Advance(c.cfg.LeaseTTL + c.cfg.Margin + time.Second)
	if _, err := f.Takeover(ctx, cell, regionB); err != nil {
		t.Fatal(err)
	}
}

// detected runs every Region's detector over its whole stream and checks
// the flags: one per wanted amount, in B.
func detected(t *testing.T, c *Cluster, amounts ...int64) {
	t.Helper()
	ds, err := c.Detectors(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	flags, err := ds.Poll(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(flags) != len(amounts) {
		t.Fatalf("detector flags %v, want %d", flags, len(amounts))
	}
	for i, f := range flags {
		if f.Region != regionB || f.Amount != amounts[i] || f.Epoch != 1 || f.Claimed != 2 {
			t.Errorf("flag %v, want %s flagging %d of epoch 1 after epoch 2", f, regionB, amounts[i])
		}
	}
}

func quarantine(t *testing.T, c *Cluster, want ...Quarantined) {
	t.Helper()
	q, err := c.Reconcile(context.Background(), []string{cell})
	if err != nil {
		t.Fatal(err)
	}
	if len(q) != len(want) {
		t.Fatalf("quarantined %+v, want %+v", q, want)
	}
	for i := range q {
		if q[i].Key != want[i].Key || q[i].Amount != want[i].Amount || q[i].Reason != want[i].Reason {
			t.Errorf("quarantined %+v, want key %s, amount %d, reason %s", q[i], want[i].Key, want[i].Amount, want[i].Reason)
		}
	}
}

// TestRetryInOtherRegion: a charge commits in A, the client times out and
// A fails before replicating; the retry lands in B. ClientRequestToken is
// regional, so only the table's own idempotency record could stop it, and
// B's replica does not have it yet.
func TestRetryInOtherRegion(t *testing.T) {
	charge := Request{Op: Charge, Cell: cell, User: "alice", Key: "k1", Amount: 40}
	t.Run("naive charges twice", func(t *testing.T) {
		c := cluster(t, Naive)
		open(t, c, 100)
		handle(t, c, regionA, charge) // the answer is lost
		c.Crash(regionA, true)
		handle(t, c, regionB, charge)
		c.Restart(regionA)
		wantViolation(t, audit(t, c, 100, []Ack{{charge, Applied}}, false), "key k1 applied 2 times", "ledger sums to 180")
	})
	t.Run("fenced freeze refuses, then replays", func(t *testing.T) {
		c := cluster(t, Fenced)
		open(t, c, 100)
		handle(t, c, regionA, charge)
		c.Crash(regionA, true)
		var fe *home.FrozenError
		if _, err := c.Handle(context.Background(), regionB, charge); !errors.As(err, &fe) || fe.Home != regionA || fe.RetryAfter <= 0 {
			t.Fatalf("retry in B while A is down: %v, want a FrozenError naming %s with Retry-After", err, regionA)
		}
		c.Restart(regionA)
		c.Rep.WaitQuiet()
		if res := handle(t, c, regionB, charge); res.Outcome != Replayed || !res.Forwarded || res.Region != regionA {
			t.Errorf("retry in B after A returned: %+v, want replayed by A through forwarding", res)
		}
		wantClean(t, audit(t, c, 100, []Ack{{charge, Replayed}}, false))
	})
	t.Run("fenced takeover quarantines the duplicate", func(t *testing.T) {
		c := cluster(t, Fenced)
		open(t, c, 100)
		handle(t, c, regionA, charge)
		c.Crash(regionA, true)
		takeover(t, c)
		if res := handle(t, c, regionB, charge); res.Outcome != Applied || res.Region != regionB {
			t.Fatalf("retry in B after takeover: %+v, want applied in B", res)
		}
		c.Restart(regionA)
		c.Rep.WaitQuiet()
		detected(t, c, 40)
		quarantine(t, c, Quarantined{Key: "k1", Amount: 40, Reason: "duplicate"})
		wantClean(t, audit(t, c, 100, []Ack{{charge, Applied}}, true))
	})
}

// TestDebitsInBothRegions: the balance is 50 in both Regions; A debits 40
// and B debits 30, each condition passing on its own replica. Last writer
// wins keeps one balance while the ledger keeps both entries.
func TestDebitsInBothRegions(t *testing.T) {
	d1 := Request{Op: Debit, Cell: cell, User: "alice", Key: "d1", Amount: 40}
	d2 := Request{Op: Debit, Cell: cell, User: "alice", Key: "d2", Amount: 30}
	t.Run("naive overdraws", func(t *testing.T) {
		c := cluster(t, Naive)
		open(t, c, 50)
		handle(t, c, regionA, d1)
		if res := handle(t, c, regionB, d2); res.Outcome != Applied {
			t.Fatalf("B's debit: %+v, want applied (its replica still shows 50)", res)
		}
		wantViolation(t, audit(t, c, 50, []Ack{{d1, Applied}, {d2, Applied}}, false), "ledger sums to -20", "below zero")
	})
	t.Run("fenced forwards and declines", func(t *testing.T) {
		c := cluster(t, Fenced)
		open(t, c, 50)
		handle(t, c, regionA, d1)
		if res := handle(t, c, regionB, d2); res.Outcome != Declined || !res.Forwarded {
			t.Errorf("B's debit: %+v, want forwarded to A and declined", res)
		}
		wantClean(t, audit(t, c, 50, []Ack{{d1, Applied}, {d2, Declined}}, false))
	})
}

// TestLostAcknowledgedMovement: B writes an account while A is down;
// A's acknowledged write arrives when A returns and loses to B's, or,
// with A's clock ahead, wins and erases B's.
func TestLostAcknowledgedMovement(t *testing.T) {
	debit := Request{Op: Debit, Cell: cell, User: "alice", Key: "a1", Amount: 20}
	credit := Request{Op: Charge, Cell: cell, User: "alice", Key: "b1", Amount: 10}
	acked := []Ack{{debit, Applied}, {credit, Applied}}
	for name, tc := range map[string]struct {
		skewA time.Duration
		want  string
	}{
		"A's write loses": {0, "ledger sums to 90, its balance is 110"},
		"A's write wins":  {time.Minute, "ledger sums to 90, its balance is 80"},
	} {
		t.Run("naive: "+name, func(t *testing.T) {
			c := cluster(t, Naive)
			open(t, c, 100)
			c.Skew(regionA, tc.skewA)
			handle(t, c, regionA, debit)
			c.Crash(regionA, true)
			c.Advance(time.Second)
			handle(t, c, regionB, credit)
			c.Restart(regionA)
			wantViolation(t, audit(t, c, 100, acked, false), tc.want)
		})
		t.Run("fenced takeover: "+name, func(t *testing.T) {
			c := cluster(t, Fenced)
			open(t, c, 100)
			c.Skew(regionA, tc.skewA/60) // within the margin
			handle(t, c, regionA, debit)
			c.Crash(regionA, true)
			takeover(t, c)
			handle(t, c, regionB, credit)
			c.Restart(regionA)
			c.Rep.WaitQuiet()
			detected(t, c, -20)
			quarantine(t, c, Quarantined{Key: "a1", Amount: -20, Reason: "late"})
			wantClean(t, audit(t, c, 100, acked, true))
		})
	}
	t.Run("fenced freeze", func(t *testing.T) {
		c := cluster(t, Fenced)
		open(t, c, 100)
		handle(t, c, regionA, debit)
		c.Crash(regionA, true)
		if _, err := c.Handle(context.Background(), regionB, credit); !errors.Is(err, home.ErrFrozen) {
			t.Fatalf("B while A is down: %v, want ErrFrozen", err)
		}
		c.Restart(regionA)
		handle(t, c, regionB, credit)
		wantClean(t, audit(t, c, 100, acked, false))
		detected(t, c)
	})
}

// TestTornSettle: a settle commits in A (order paid, balance debited) and
// its items reach B one by one; B sees the order paid before the debit and
// accepts a debit the balance cannot cover.
func TestTornSettle(t *testing.T) {
	settle := Request{Op: Settle, Cell: cell, User: "alice", Key: "s1", Amount: 40, Order: "o1"}
	debit := Request{Op: Debit, Cell: cell, User: "alice", Key: "d1", Amount: 30}
	setup := func(t *testing.T, design Design) *Cluster {
		c := cluster(t, design)
		open(t, c, 50)
		if err := c.OpenOrder(context.Background(), regionA, cell, "o1", "alice", 40); err != nil {
			t.Fatal(err)
		}
		c.Rep.WaitQuiet()
		// The order's change reaches B at once, every other item an hour later.
		calls := 0
		c.Rep.SetFaults(ddblocal.ReplicationFaults{Lag: func(*rand.Rand) time.Duration {
			calls++
			if calls == orderChange {
				return 0
			}
			return time.Hour
		}})
		return c
	}
	t.Run("naive overdraws", func(t *testing.T) {
		c := setup(t, Naive)
		handle(t, c, regionA, settle)
		c.Advance(time.Millisecond)
		if st, bal := c.peek(t, regionB, "ORDER#o1", "status"), c.peek(t, regionB, "ACCT#alice", "balance"); st != "paid" || bal != "50" {
			t.Fatalf("B's replica: order %s, balance %s; want the torn view: paid, 50", st, bal)
		}
		if res := handle(t, c, regionB, debit); res.Outcome != Applied {
			t.Fatalf("B's debit: %+v, want applied on the torn view", res)
		}
		wantViolation(t, audit(t, c, 50, []Ack{{settle, Applied}, {debit, Applied}}, false), "ledger sums to -20", "below zero")
	})
	t.Run("fenced forwards and declines", func(t *testing.T) {
		c := setup(t, Fenced)
		handle(t, c, regionA, settle)
		c.Advance(time.Millisecond)
		if res := handle(t, c, regionB, debit); res.Outcome != Declined || !res.Forwarded {
			t.Errorf("B's debit: %+v, want forwarded to A and declined", res)
		}
		wantClean(t, audit(t, c, 50, []Ack{{settle, Applied}, {debit, Declined}}, false))
	})
}

// orderChange is the position of the order's change among the replicated
// changes of a settle's transaction.
const orderChange = 1

// TestDetectorQuietOnPlannedFailover: a planned failover claims only after
// the drain proof, so no Region's detector flags anything, even with
// entries written right before it and replication lagging.
func TestDetectorQuietOnPlannedFailover(t *testing.T) {
	ctx := context.Background()
	c := cluster(t, Fenced)
	open(t, c, 100)
	c.Rep.SetFaults(ddblocal.ReplicationFaults{Seed: 7, Lag: ddblocal.ExponentialLag(500 * time.Millisecond)})
	for i, op := range []Op{Charge, Debit, Charge} {
		handle(t, c, regionA, Request{Op: op, Cell: cell, User: "alice", Key: fmt.Sprintf("p%d", i), Amount: 10})
	}
	rep, err := c.Failover().Planned(ctx, cell, regionB)
	if err != nil || rep.Proofs < 2 {
		t.Fatalf("Planned = %+v, %v; want it to wait for the lagging items", rep, err)
	}
	handle(t, c, regionB, Request{Op: Debit, Cell: cell, User: "alice", Key: "p3", Amount: 10})
	c.Rep.WaitQuiet()
	detected(t, c)
	wantClean(t, audit(t, c, 100, nil, false))
}

// TestDetectorFlagsAnUndrainedClaim: the same failover claimed without the
// drain proof lets the old home's last entries reach the new home after
// its claim, and its detector flags them.
func TestDetectorFlagsAnUndrainedClaim(t *testing.T) {
	ctx := context.Background()
	c := cluster(t, Fenced)
	open(t, c, 100)
	c.Rep.SetFaults(ddblocal.ReplicationFaults{Seed: 7, Lag: ddblocal.UniformLag(time.Hour, time.Hour)})
	handle(t, c, regionA, Request{Op: Charge, Cell: cell, User: "alice", Key: "p0", Amount: 10})
	l, err := c.Leases.Get(ctx, cell)
	if err != nil {
		t.Fatal(err)
	}
	nl, err := c.Leases.Move(ctx, l, regionB)
	if err != nil {
		t.Fatal(err)
	}
	if err := home.Stop(ctx, c.DB[regionA], Table, cell, l.Epoch); err != nil {
		t.Fatal(err)
	}
	if err := home.Claim(ctx, c.DB[regionB], Table, nl); err != nil {
		t.Fatal(err)
	}
	c.Rep.WaitQuiet()
	ds, err := c.Detectors(ctx)
	if err != nil {
		t.Fatal(err)
	}
	flags, err := ds.Poll(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(flags) != 1 || flags[0].Region != regionB || flags[0].Key != "p0" || flags[0].Amount != 10 {
		t.Errorf("flags %v, want B flagging p0's 10", flags)
	}
}
