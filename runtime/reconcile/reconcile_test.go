package reconcile_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/config"
	"github.com/oncetable/oncetable/runtime/ddbtest"
	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/obs"
	"github.com/oncetable/oncetable/runtime/payments"
	"github.com/oncetable/oncetable/runtime/reconcile"
	"github.com/oncetable/oncetable/runtime/schema/provision"
	"github.com/oncetable/oncetable/runtime/store"
	"github.com/oncetable/oncetable/runtime/verify"
	"github.com/oncetable/oncetable/test/population"
)

// clock is a test clock that advances by tick at every reading.
type clock struct {
	mu   sync.Mutex
	now  time.Time
	tick time.Duration
}

func newClock(tick time.Duration) *clock {
	return &clock{now: time.Now(), tick: tick}
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(c.tick)
	return c.now
}

func (c *clock) jump(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// populated is a table loaded with a small production-skewed population.
func populated(t *testing.T, name string) (*dynamodb.Client, string) {
	t.Helper()
	ctx := context.Background()
	db, _ := ddbtest.Client(t, nil)
	table := ddbtest.TableName(name)
	if err := provision.EnsureTable(ctx, db, table); err != nil {
		t.Fatal(err)
	}
	ddbtest.DeleteAfter(t, db, table)
	p := population.Generate(population.Config{Users: 20, Merchants: 3, ProductsPerMerchant: 3, Orders: 60, Seed: 7})
	if err := p.Load(ctx, store.New(db, func(o *store.Options) { o.Table = table }), population.LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	return db, table
}

// emf collects the reconciliation's metric values by name.
type emf struct{ bytes.Buffer }

func (e *emf) values(name string) []float64 {
	var out []float64
	for _, line := range strings.Split(e.String(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) != nil {
			continue
		}
		if v, ok := m[name].(float64); ok {
			out = append(out, v)
		}
	}
	return out
}

func newReconciler(t *testing.T, db reconcile.DB, table, owner string, c *clock, metrics io.Writer) *reconcile.Reconciler {
	t.Helper()
	r, err := reconcile.New(db, func(o *reconcile.Options) {
		o.Table, o.Owner, o.Segments, o.MaxRCU, o.PageSize = table, owner, 3, -1, 5
		o.Budget, o.Margin, o.Clock, o.ConfirmDelay = 4*time.Millisecond, time.Millisecond, c.Now, time.Millisecond
		o.Metrics, o.Log = obs.NewMetrics(metrics), slog.New(slog.NewJSONHandler(io.Discard, nil))
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// untilVerdict runs invocations until one finishes a pass.
func untilVerdict(t *testing.T, r *reconcile.Reconciler) (*reconcile.Outcome, int) {
	t.Helper()
	for i := 1; i <= 1000; i++ {
		out, err := r.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if out.Skipped || out.Lost {
			t.Fatalf("invocation %d: skipped %v, lost %v with no other invocation", i, out.Skipped, out.Lost)
		}
		if out.Verdict != nil {
			return out, i
		}
	}
	t.Fatal("no pass finished in 1000 invocations")
	return nil, 0
}

// TestPassesSpanInvocationsAndPageOnACorruptBalance: a pass spread over
// many short invocations reads every item and finds nothing on a healthy
// table; after a balance is corrupted, the next pass finds it, confirms it
// and publishes Violations 1; each finished pass starts the next.
func TestPassesSpanInvocationsAndPageOnACorruptBalance(t *testing.T) {
	db, table := populated(t, "reconcile-passes")
	ctx := context.Background()
	want, err := verify.Table(ctx, db, func(o *verify.Options) { o.Table, o.MaxRCU = table, -1 })
	if err != nil {
		t.Fatal(err)
	}
	var metrics emf
	r := newReconciler(t, db, table, "a", newClock(time.Millisecond), &metrics)
	out, runs := untilVerdict(t, r)
	t.Logf("first pass: %d invocations, %+v", runs, *out.Verdict)
	if runs < 3 {
		t.Errorf("the pass took %d invocations, want several (budget 4 ms of a ticking clock)", runs)
	}
	// The reconciler's own control items are in the table too.
	if out.Verdict.Items < want.Items || out.Verdict.Found != 0 || out.Verdict.Confirmed != 0 || out.Verdict.Pass != 1 {
		t.Fatalf("first pass: %+v, want all %d items and no violation", out.Verdict, want.Items)
	}
	if got := metrics.values(obs.ReconcileViolations); len(got) != 1 || got[0] != 0 {
		t.Errorf("Violations metric = %v, want [0]", got)
	}
	if got := metrics.values(obs.ReconcileItems); len(got) != runs {
		t.Errorf("ItemsScanned lines = %d, want one per invocation (%d)", len(got), runs)
	}
	var scanned float64
	for _, v := range metrics.values(obs.ReconcileItems) {
		scanned += v
	}
	if int64(scanned) != out.Verdict.Items {
		t.Errorf("ItemsScanned sums to %v, the verdict read %d", scanned, out.Verdict.Items)
	}

	corrupt(t, db, table)
	metrics.Reset()
	out, _ = untilVerdict(t, r)
	if out.Verdict.Pass != 2 || out.Verdict.Confirmed != 1 || out.Verdict.Kinds[string(verify.BalanceMismatch)] != 1 {
		t.Fatalf("second pass: %+v, want one confirmed balance-mismatch", out.Verdict)
	}
	if got := metrics.values(obs.ReconcileViolations); len(got) != 1 || got[0] != 1 {
		t.Errorf("Violations metric = %v, want [1]", got)
	}
	if got := metrics.values(obs.ReconcilePassCompleted); len(got) != 1 {
		t.Errorf("PassCompleted = %v, want one", got)
	}
	st, err := r.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Pass != 3 || st.Last == nil || st.Last.Confirmed != 1 || len(st.Steps) != 0 || st.LeaseOwner != "" {
		t.Errorf("checkpoint after the second pass: %+v, want pass 3 started, the verdict kept, no steps, no lease", st)
	}
}

// corrupt adds 1 to the first user's balance, as a bug that forgot a
// ledger entry would.
func corrupt(t *testing.T, db *dynamodb.Client, table string) {
	t.Helper()
	_, err := db.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{TableName: aws.String(table),
		Key:                       map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "USER#" + population.Generate(population.Config{Users: 20, Seed: 7}).Users[0]}, "SK": &types.AttributeValueMemberS{Value: "PROFILE"}},
		UpdateExpression:          aws.String("SET balance = balance + :one"),
		ConditionExpression:       aws.String("attribute_exists(PK)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}}})
	if err != nil {
		t.Fatal(err)
	}
}

// hookDB calls hook before the first Scan.
type hookDB struct {
	reconcile.DB
	once sync.Once
	hook func()
}

func (h *hookDB) Scan(ctx context.Context, in *dynamodb.ScanInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	h.once.Do(h.hook)
	return h.DB.Scan(ctx, in, optFns...)
}

// TestOverlappingInvocationsNeverBothAdvance: an invocation that starts
// while another holds the lease does nothing; one whose lease expired and
// was taken over loses its step, and only the new holder's step is in the
// checkpoint.
func TestOverlappingInvocationsNeverBothAdvance(t *testing.T) {
	db, table := populated(t, "reconcile-overlap")
	ctx := context.Background()
	c := newClock(time.Millisecond)
	var metrics emf
	b := newReconciler(t, db, table, "b", c, &metrics)
	var bOut *reconcile.Outcome
	a := newReconciler(t, &hookDB{DB: db, hook: func() {
		// a holds the lease: b, started now, must skip
		out, err := b.Run(ctx)
		if err != nil || !out.Skipped {
			t.Errorf("b during a's lease: %+v, %v; want skipped", out, err)
		}
		// a's lease runs out (it hangs), and b takes the checkpoint over
		c.jump(time.Hour)
		if bOut, err = b.Run(ctx); err != nil || bOut.Skipped || bOut.Lost {
			t.Errorf("b after a's lease expired: %+v, %v; want a step", bOut, err)
		}
	}}, table, "a", c, &metrics)
	out, err := a.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !out.Lost {
		t.Errorf("a advanced the checkpoint after losing its lease: %+v", out)
	}
	st, err := a.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Version != 1 || len(st.Steps) != 1 || !strings.HasSuffix(st.Steps[0].ID, "#b") {
		t.Errorf("checkpoint = version %d, steps %+v; want version 1 with b's step only", st.Version, st.Steps)
	}
	if got := metrics.values(obs.ReconcileSkipped); len(got) != 1 {
		t.Errorf("Skipped = %v, want one", got)
	}
	// The pass goes on from b's step and reads every item once.
	out, _ = untilVerdict(t, b)
	rep, err := verify.Table(ctx, db, func(o *verify.Options) { o.Table, o.MaxRCU = table, -1 })
	if err != nil {
		t.Fatal(err)
	}
	if out.Verdict.Found != 0 || out.Verdict.Items < rep.Items-rep.OtherItems {
		t.Errorf("verdict %+v after the takeover; the table has %d money items", out.Verdict, rep.Items-rep.OtherItems)
	}
}

// TestNewRefusesNoTable: a reconciler needs its table.
func TestNewRefusesNoTable(t *testing.T) {
	db, _ := ddbtest.Client(t, nil)
	if _, err := reconcile.New(db); err != reconcile.ErrNoTable {
		t.Errorf("err = %v, want ErrNoTable", err)
	}
}

// TestHandlerFinishesAPassThroughTheRetryingClient: the function's handler,
// on the client the main builds, ends a pass on a small table in one
// invocation and returns its verdict.
func TestHandlerFinishesAPassThroughTheRetryingClient(t *testing.T) {
	db, table := populated(t, "reconcile-handler")
	var metrics emf
	h := reconcile.Handler(reconcile.Retrying(db), config.Reconcile{Table: table, MaxRCU: 1e6}, func(o *reconcile.Options) {
		o.Metrics, o.Log = obs.NewMetrics(&metrics), slog.New(slog.NewJSONHandler(io.Discard, nil))
	})
	sum, err := h(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Verdict == nil || sum.Verdict.Found != 0 || sum.Items == 0 || sum.Pass != 1 {
		t.Errorf("summary %+v, want pass 1 finished clean", sum)
	}
	if got := metrics.values(obs.ReconcilePassCompleted); len(got) != 1 {
		t.Errorf("PassCompleted = %v, want one", got)
	}
}

// TestALostRecordPagesOncePassesStartInFlightAfterItsEffect: a credit's
// idempotency record is lost. Passes that start less than InFlight after
// the credit was stamped leave it alone (its transaction might still have
// been committing while the scan passed the record's partition); the first
// pass that starts later confirms effect-without-record.
func TestALostRecordPagesOncePassesStartInFlightAfterItsEffect(t *testing.T) {
	db, table := populated(t, "reconcile-inflight")
	ctx := context.Background()
	out, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table), FilterExpression: aws.String("EntityType = :t AND #op = :op"),
		ExpressionAttributeNames: map[string]string{"#op": "operation"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":t": &types.AttributeValueMemberS{Value: idempotency.EntityType},
			":op": &types.AttributeValueMemberS{Value: payments.FlowCredit}}})
	if err != nil || len(out.Items) == 0 {
		t.Fatalf("no credit record in the population: %v", err)
	}
	if _, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table),
		Key: map[string]types.AttributeValue{"PK": out.Items[0]["PK"], "SK": out.Items[0]["SK"]}}); err != nil {
		t.Fatal(err)
	}
	c := newClock(time.Millisecond)
	r := newReconciler(t, db, table, "a", c, io.Discard)
	for pass, tc := range []struct {
		jump time.Duration // before the pass's first invocation
		want int           // confirmed effects without record
	}{
		{0, 0},
		{verify.DefaultInFlight + time.Second, 0}, // started when the first ended
		{0, 1},
	} {
		c.jump(tc.jump)
		got, _ := untilVerdict(t, r)
		if n := got.Verdict.Kinds[string(verify.EffectWithoutRecord)]; n != tc.want || got.Verdict.Confirmed != tc.want {
			t.Errorf("pass %d: %+v, want %d confirmed effect-without-record and nothing else", pass+1, *got.Verdict, tc.want)
		}
	}
}
