package regionwatch_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/home"
	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/internal/dbtest"
	"github.com/oncetable/oncetable/runtime/money"
	"github.com/oncetable/oncetable/runtime/payments"
	"github.com/oncetable/oncetable/runtime/regionwatch"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/schema/provision"
	"github.com/oncetable/oncetable/runtime/store"
	"github.com/oncetable/oncetable/runtime/streampoll"
	"github.com/oncetable/oncetable/runtime/verify"
)

const (
	east  = "us-east-1"
	west  = "eu-west-1"
	cells = 4
	table = "money"
)

// regions is the production flows over two Regions of the engine's global
// table, with a watcher on each Region's stream.
type regions struct {
	t       *testing.T
	eng     *ddblocal.Engine
	clock   *dbtest.Clock
	db      map[string]*dynamodb.Client
	svc     map[string]*payments.Service
	st      map[string]*store.Store
	fence   map[string]*home.Fencer
	leases  *home.Leases
	pollers map[string]*streampoll.Poller
	found   map[string]*regionwatch.Flags
}

func newRegions(t *testing.T) *regions {
	t.Helper()
	ctx := context.Background()
	clock := &dbtest.Clock{}
	eng := ddblocal.New(func(o *ddblocal.Options) {
		o.Regions, o.ManualReplication, o.Clock = []string{east, west}, true, clock.Now
	})
	t.Cleanup(func() { eng.Close() })
	w := &regions{t: t, eng: eng, clock: clock, db: map[string]*dynamodb.Client{}, svc: map[string]*payments.Service{},
		st: map[string]*store.Store{}, fence: map[string]*home.Fencer{}, pollers: map[string]*streampoll.Poller{}, found: map[string]*regionwatch.Flags{}}
	for _, r := range []string{east, west} {
		w.db[r] = eng.Region(r).Client()
	}
	if err := provision.EnsureTableFor(ctx, w.db[east], table, schema.Default()); err != nil {
		t.Fatal(err)
	}
	if _, err := w.db[east].UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(table),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.db[east].UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(table),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String(west)}}}}); err != nil {
		t.Fatal(err)
	}
	dbtest.CreateKeyedTable(t, w.db[east], "leases", schema.PartitionKey, schema.SortKey)
	w.leases = home.NewLeases(w.db[east], "leases", func(o *home.LeaseOptions) { o.Clock = clock.Now })
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, r := range []string{east, west} {
		w.fence[r] = home.NewFencer(r, table, cells, w.leases, func(o *home.FencerOptions) { o.Clock = clock.Now })
		w.st[r] = store.New(w.db[r], func(o *store.Options) { o.Table, o.Clock = table, clock.Now })
		w.svc[r] = payments.New(w.st[r], func(o *payments.Options) { o.Fence = w.fence[r] })
		out, err := w.db[r].DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		if err != nil || out.Table.LatestStreamArn == nil {
			t.Fatalf("stream of %s in %s: %v", table, r, err)
		}
		watcher := regionwatch.New(r, table, w.db[r], func(o *regionwatch.Options) { o.Cells, o.Clock, o.Logger = cells, clock.Now, quiet })
		flags := &regionwatch.Flags{}
		w.found[r] = flags
		w.pollers[r] = streampoll.New(eng.Region(r).StreamsClient(), aws.ToString(out.Table.LatestStreamArn),
			func(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
				f, resp := watcher.Check(ctx, ev)
				flags.Late = append(flags.Late, f.Late...)
				flags.Mismatches = append(flags.Mismatches, f.Mismatches...)
				return resp, nil
			})
	}
	return w
}

// replicate lets time pass and delivers what the partitions allow.
func (w *regions) replicate() {
	w.t.Helper()
	w.clock.Advance(5 * time.Second)
	w.eng.Replication().WaitQuiet()
}

// poll runs every Region's watcher over what its stream holds.
func (w *regions) poll() {
	w.t.Helper()
	for r, p := range w.pollers {
		if _, err := p.Poll(context.Background()); err != nil {
			w.t.Fatalf("poll %s: %v", r, err)
		}
	}
}

func (w *regions) user(id, region string) {
	w.t.Helper()
	ctx := context.Background()
	if _, err := home.Assign(ctx, w.leases, w.db[region], table, w.fence[region].Cell(id), region); err != nil {
		w.t.Fatal(err)
	}
	if _, err := w.st[region].CreateUser(ctx, store.NewUser{UserID: id, Name: "N " + id, Email: id + "@example.com"}); err != nil {
		w.t.Fatal(err)
	}
	w.replicate()
}

func request(op, key, route string, amount int64) payments.Idem {
	raw, _ := json.Marshal(amount)
	fp, err := idempotency.Fingerprint(http.MethodPost, route, raw)
	if err != nil {
		panic(err)
	}
	return payments.Idem{Scope: idempotency.Scope{Caller: "test", Operation: op}, Key: key, Fingerprint: fp}
}

func eur(m int64) money.Amount { return money.Amount{Minor: m, Currency: "EUR"} }

func (w *regions) verify(region string) *verify.Report {
	w.t.Helper()
	rep, err := verify.Table(context.Background(), w.db[region], func(o *verify.Options) { o.Table = table })
	if err != nil {
		w.t.Fatal(err)
	}
	return rep
}

// TestTakeoverQuarantinesLateWrites: the old home acknowledges a debit
// while cut off; the other Region takes the cell over and credits; when
// the old home's debit arrives, the new home's watcher quarantines it with
// its amount, flags the account (last writer wins dropped the debit from
// the balance), and the verifier names the late write, on the new home's
// replica and, once replicated, on the old home's.
func TestTakeoverQuarantinesLateWrites(t *testing.T) {
	w := newRegions(t)
	ctx := context.Background()
	w.user("alice", east)
	if _, err := w.svc[east].Credit(ctx, request(payments.FlowCredit, "c1", "/users/alice/credits", 1000), "alice", eur(1000)); err != nil {
		t.Fatal(err)
	}
	w.replicate()
	w.eng.Replication().Partition(east, west)
	if _, err := w.svc[east].Debit(ctx, request(payments.FlowDebit, "d1", "/users/alice/debits", 300), "alice", eur(300)); err != nil {
		t.Fatal(err)
	}
	w.clock.Advance(20 * time.Second) // east's lease runs out by more than the margin
	fo := &home.Failover{Table: table, Leases: w.leases, Regions: map[string]home.DB{east: w.db[east], west: w.db[west]}}
	if _, err := fo.Takeover(ctx, w.fence[west].Cell("alice"), west); err != nil {
		t.Fatal(err)
	}
	w.clock.Advance(2 * time.Second)
	if _, err := w.svc[west].Credit(ctx, request(payments.FlowCredit, "c2", "/users/alice/credits", 50), "alice", eur(50)); err != nil {
		t.Fatal(err)
	}
	w.poll()
	if n := len(w.found[west].Late); n != 0 {
		t.Fatalf("before the heal: %d late writes flagged in %s, want 0", n, west)
	}
	w.eng.Replication().Heal(east, west)
	w.replicate()
	w.poll()

	late := w.found[west].Late
	if len(late) != 1 || late[0].Entry.Amount != 300 || late[0].Entry.Kind != "debit" || late[0].Writer != east || late[0].Epoch != 1 || late[0].Claimed != 2 {
		t.Fatalf("late writes flagged in %s: got %+v, want the debit of 300 written by %s at epoch 1 after epoch 2", west, late, east)
	}
	if n := len(w.found[east].Late); n != 0 {
		t.Fatalf("late writes flagged in %s, which claimed nothing: got %d, want 0", east, n)
	}
	if len(w.found[west].Mismatches) == 0 {
		t.Fatalf("no account mismatch flagged in %s after the late debit; want alice's", west)
	}
	w.replicate()
	for _, r := range []string{west, east} {
		rep := w.verify(r)
		if rep.Counts[verify.LateWrite] != 1 {
			t.Fatalf("verify in %s: %d late-write, want 1: %+v", r, rep.Counts[verify.LateWrite], rep.Violations)
		}
	}
	// A redelivery quarantines nothing twice.
	w.poll()
	if n := len(w.found[west].Late); n != 1 {
		t.Fatalf("after a second poll: %d late writes, want 1", n)
	}
}

// TestPlannedFailoverFlagsNothing: the drain proof lets the old home's
// writes reach the new home before it claims, so nothing is late.
func TestPlannedFailoverFlagsNothing(t *testing.T) {
	w := newRegions(t)
	ctx := context.Background()
	w.user("bob", east)
	for i, amount := range []int64{700, 200} {
		key := []string{"c1", "c2"}[i]
		if _, err := w.svc[east].Credit(ctx, request(payments.FlowCredit, key, "/users/bob/credits", amount), "bob", eur(amount)); err != nil {
			t.Fatal(err)
		}
	}
	fo := &home.Failover{Table: table, Leases: w.leases, Regions: map[string]home.DB{east: w.db[east], west: w.db[west]},
		Wait: func(context.Context) error { w.replicate(); return nil }, Attempts: 3}
	if _, err := fo.Planned(ctx, w.fence[east].Cell("bob"), west); err != nil {
		t.Fatal(err)
	}
	if _, err := w.svc[west].Debit(ctx, request(payments.FlowDebit, "d1", "/users/bob/debits", 100), "bob", eur(100)); err != nil {
		t.Fatal(err)
	}
	w.replicate()
	w.poll()
	for _, r := range []string{east, west} {
		if f := w.found[r]; len(f.Late) != 0 || len(f.Mismatches) != 0 {
			t.Fatalf("%s flagged %+v after a planned failover, want nothing", r, f)
		}
		if rep := w.verify(r); !rep.OK {
			t.Fatalf("verify in %s: %+v", r, rep.Violations)
		}
	}
}
