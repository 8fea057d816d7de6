package payments_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/home"
	"github.com/oncetable/oncetable/runtime/internal/dbtest"
	"github.com/oncetable/oncetable/runtime/payments"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/schema/provision"
	"github.com/oncetable/oncetable/runtime/store"
)

const (
	east = "us-east-1"
	west = "eu-west-1"
	// fenceCells is the cell count of these tests: small, so that users
	// share cells and a two-cell transfer is easy to find.
	fenceCells = 4
)

// twoRegions is a global table replicated between east and west on the
// engine's multi-Region mode, with a lease store in east and one fenced
// payments.Service per Region.
type twoRegions struct {
	t      *testing.T
	eng    *ddblocal.Engine
	clock  *dbtest.Clock
	db     map[string]*dynamodb.Client
	st     map[string]*store.Store
	svc    map[string]*payments.Service
	fence  map[string]*home.Fencer
	leases *home.Leases
	table  string
}

func newTwoRegions(t *testing.T) *twoRegions {
	t.Helper()
	ctx := context.Background()
	clock := &dbtest.Clock{}
	eng := ddblocal.New(func(o *ddblocal.Options) {
		o.Regions, o.ManualReplication, o.Clock = []string{east, west}, true, clock.Now
	})
	t.Cleanup(func() { eng.Close() })
	w := &twoRegions{t: t, eng: eng, clock: clock, table: "money", db: map[string]*dynamodb.Client{},
		st: map[string]*store.Store{}, svc: map[string]*payments.Service{}, fence: map[string]*home.Fencer{}}
	for _, r := range []string{east, west} {
		w.db[r] = eng.Region(r).Client()
	}
	if err := provision.EnsureTableFor(ctx, w.db[east], w.table, schema.Default()); err != nil {
		t.Fatal(err)
	}
	if _, err := w.db[east].UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(w.table),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.db[east].UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(w.table),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String(west)}}}}); err != nil {
		t.Fatal(err)
	}
	dbtest.CreateKeyedTable(t, w.db[east], "leases", schema.PartitionKey, schema.SortKey)
	w.leases = home.NewLeases(w.db[east], "leases", func(o *home.LeaseOptions) { o.Clock = clock.Now })
	for _, r := range []string{east, west} {
		w.fence[r] = home.NewFencer(r, w.table, fenceCells, w.leases, func(o *home.FencerOptions) { o.Clock = clock.Now })
		w.st[r] = store.New(w.db[r], func(o *store.Options) { o.Table, o.Clock = w.table, clock.Now })
		w.svc[r] = payments.New(w.st[r], func(o *payments.Options) { o.Fence = w.fence[r] })
	}
	return w
}

// home assigns the cell of user to region and creates the user there.
func (w *twoRegions) home(user, region string) {
	w.t.Helper()
	ctx := context.Background()
	if _, err := home.Assign(ctx, w.leases, w.db[region], w.table, w.fence[region].Cell(user), region); err != nil {
		w.t.Fatal(err)
	}
	if _, err := w.st[region].CreateUser(ctx, store.NewUser{UserID: user, Name: "N " + user, Email: user + "@example.com"}); err != nil {
		w.t.Fatal(err)
	}
	w.replicate()
}

func (w *twoRegions) replicate() {
	w.t.Helper()
	w.clock.Advance(5 * time.Second)
	w.eng.Replication().WaitQuiet()
}

func (w *twoRegions) balance(region, user string) int64 {
	w.t.Helper()
	b, err := w.st[region].Balance(context.Background(), user)
	if err != nil {
		w.t.Fatal(err)
	}
	return b.Balance
}

// notOwner fails t unless err is a *home.NotOwnerError of region naming
// owner as the cell's home.
func notOwner(t *testing.T, err error, region, owner string) {
	t.Helper()
	var no *home.NotOwnerError
	if !errors.As(err, &no) {
		t.Fatalf("got %v, want a *home.NotOwnerError", err)
	}
	if no.Region != region || no.Owner.Region != owner {
		t.Fatalf("got NotOwnerError{Region: %q, Owner: %q}, want {%q, %q}", no.Region, no.Owner.Region, region, owner)
	}
	if !errors.Is(err, home.ErrNotOwner) {
		t.Fatalf("errors.Is(%v, home.ErrNotOwner) = false", err)
	}
}

func TestFenceKeepsFlowsToTheHomeRegion(t *testing.T) {
	w := newTwoRegions(t)
	ctx := context.Background()
	w.home("alice", east)
	if _, err := w.svc[east].Credit(ctx, idem(payments.FlowCredit, "c1", "/users/alice/credits", 5000), "alice", eur(5000)); err != nil {
		t.Fatal(err)
	}
	w.replicate()

	flows := []struct {
		name string
		run  func(*payments.Service) error
	}{
		{"credit", func(s *payments.Service) error {
			_, err := s.Credit(ctx, idem(payments.FlowCredit, "c2", "/users/alice/credits", 100), "alice", eur(100))
			return err
		}},
		{"debit", func(s *payments.Service) error {
			_, err := s.Debit(ctx, idem(payments.FlowDebit, "d1", "/users/alice/debits", 100), "alice", eur(100))
			return err
		}},
		{"authorize", func(s *payments.Service) error {
			_, err := s.Authorize(ctx, idem(payments.FlowAuthorize, "h1", "/users/alice/holds", 100), "alice", eur(100), time.Hour)
			return err
		}},
		{"create_order", func(s *payments.Service) error {
			_, err := s.CreateOrder(ctx, idem(payments.FlowCreateOrder, "o1", "/users/alice/orders", "o1"), "alice",
				payments.NewOrder{OrderID: "o1", Currency: "EUR", Items: []payments.NewItem{{ProductID: "p1", Quantity: 1, UnitPrice: eur(700)}}})
			return err
		}},
	}
	for _, f := range flows {
		t.Run(f.name+" outside the home is refused and writes nothing", func(t *testing.T) {
			before := w.balance(west, "alice")
			notOwner(t, f.run(w.svc[west]), west, east)
			w.replicate()
			if got := w.balance(east, "alice"); got != before {
				t.Fatalf("balance in %s after the refused %s: got %d, want %d", east, f.name, got, before)
			}
		})
		t.Run(f.name+" in the home commits", func(t *testing.T) {
			if err := f.run(w.svc[east]); err != nil {
				t.Fatal(err)
			}
			w.replicate()
		})
	}
	t.Run("charge, settle and refund name only the order: fenced on its user's cell", func(t *testing.T) {
		charge := idem(payments.FlowCharge, "ch1", "/orders/o1/payments", 700)
		notOwner(t, errOf(w.svc[west].Charge(ctx, charge, "o1", eur(700))), west, east)
		if _, err := w.svc[east].Charge(ctx, charge, "o1", eur(700)); err != nil {
			t.Fatal(err)
		}
		w.replicate()
		settle := idem(payments.FlowSettle, "s1", "/orders/o1/settle", nil)
		notOwner(t, errOf(w.svc[west].Settle(ctx, settle, "o1", nil)), west, east)
		if _, err := w.svc[east].Settle(ctx, settle, "o1", nil); err != nil {
			t.Fatal(err)
		}
		w.replicate()
		refund, part := idem(payments.FlowRefund, "r1", "/orders/o1/refunds", 200), eur(200)
		notOwner(t, errOf(w.svc[west].Refund(ctx, refund, "o1", &part)), west, east)
		if _, err := w.svc[east].Refund(ctx, refund, "o1", &part); err != nil {
			t.Fatal(err)
		}
	})
}

func errOf(_ payments.Response, err error) error { return err }

// A Region whose cached lease is stale (the cell was stopped for a
// failover after it last read the store) still sends its transaction:
// the fence inside it is what refuses the write.
func TestFenceInsideTheTransactionStopsAStaleWriter(t *testing.T) {
	w := newTwoRegions(t)
	ctx := context.Background()
	w.home("bob", east)
	if _, err := w.svc[east].Credit(ctx, idem(payments.FlowCredit, "c1", "/users/bob/credits", 1000), "bob", eur(1000)); err != nil {
		t.Fatal(err)
	}
	cell := w.fence[east].Cell("bob")
	l, err := w.leases.Get(ctx, cell)
	if err != nil {
		t.Fatal(err)
	}
	// The failover's first two steps, behind the writer's back: the lease
	// moves, and Stop fences east in its own replica.
	if _, err := w.leases.Move(ctx, l, west); err != nil {
		t.Fatal(err)
	}
	if err := home.Stop(ctx, w.db[east], w.table, cell, l.Epoch); err != nil {
		t.Fatal(err)
	}
	_, err = w.svc[east].Debit(ctx, idem(payments.FlowDebit, "d1", "/users/bob/debits", 400), "bob", eur(400))
	var no *home.NotOwnerError
	if !errors.As(err, &no) {
		t.Fatalf("debit under the stale lease: got %v, want *home.NotOwnerError", err)
	}
	if no.Epoch != l.Epoch || no.Owner.Epoch != l.Epoch+1 || no.Owner.Region != "-" {
		t.Fatalf("got %+v, want the writer at epoch %d refused by the stopped item at epoch %d", no, l.Epoch, l.Epoch+1)
	}
	if got := w.balance(east, "bob"); got != 1000 {
		t.Fatalf("balance after the fenced debit: got %d, want 1000", got)
	}
}

// A planned failover moves the cell; the old home then refuses and the
// new one commits, and a retry of a key applied in the old home replays
// in the new one.
func TestFenceFollowsAPlannedFailover(t *testing.T) {
	w := newTwoRegions(t)
	ctx := context.Background()
	w.home("carol", east)
	credit := idem(payments.FlowCredit, "c1", "/users/carol/credits", 1000)
	first, err := w.svc[east].Credit(ctx, credit, "carol", eur(1000))
	if err != nil {
		t.Fatal(err)
	}
	fo := &home.Failover{Table: w.table, Leases: w.leases, Regions: map[string]home.DB{east: w.db[east], west: w.db[west]},
		Wait: func(context.Context) error { w.replicate(); return nil }, Attempts: 3}
	rep, err := fo.Planned(ctx, w.fence[east].Cell("carol"), west)
	if err != nil {
		t.Fatal(err)
	}
	if rep.From != east || rep.To != west || rep.Epoch != 2 {
		t.Fatalf("planned failover: got %+v, want %s -> %s at epoch 2", rep, east, west)
	}
	again, err := w.svc[west].Credit(ctx, credit, "carol", eur(1000))
	if err != nil {
		t.Fatal(err)
	}
	if again.Body == nil || string(again.Body) != string(first.Body) || !again.Replayed {
		t.Fatalf("retry in the new home: got %+v, want the replay of %s", again, first.Body)
	}
	debit := idem(payments.FlowDebit, "d1", "/users/carol/debits", 300)
	notOwner(t, errOf(w.svc[east].Debit(ctx, debit, "carol", eur(300))), east, west)
	if _, err := w.svc[west].Debit(ctx, debit, "carol", eur(300)); err != nil {
		t.Fatal(err)
	}
	w.replicate()
	for _, r := range []string{east, west} {
		if got := w.balance(r, "carol"); got != 700 {
			t.Fatalf("balance in %s: got %d, want 700", r, got)
		}
	}
}

// A transfer between users of two cells carries one fence per cell; it
// commits only where both cells are homed.
func TestFenceOfATransferBetweenTwoCells(t *testing.T) {
	w := newTwoRegions(t)
	ctx := context.Background()
	from, to := "dave", ""
	for _, u := range []string{"erin", "frank", "grace", "heidi", "ivan"} {
		if w.fence[east].Cell(u) != w.fence[east].Cell(from) {
			to = u
			break
		}
	}
	if to == "" {
		t.Fatal("no user in another cell than dave's")
	}
	w.home(from, east)
	w.home(to, west)
	if _, err := w.svc[east].Credit(ctx, idem(payments.FlowCredit, "c1", "/users/dave/credits", 1000), from, eur(1000)); err != nil {
		t.Fatal(err)
	}
	w.replicate()
	tr := idem(payments.FlowTransfer, "t1", "/transfers", 200)
	for _, r := range []string{east, west} {
		if _, err := w.svc[r].Transfer(ctx, tr, from, to, eur(200)); !errors.Is(err, home.ErrSplitHomes) {
			t.Fatalf("transfer in %s between cells homed in two Regions: got %v, want ErrSplitHomes", r, err)
		}
	}
	// Both cells in west: the transfer commits there, with two fences.
	l, err := w.leases.Get(ctx, w.fence[east].Cell(from))
	if err != nil {
		t.Fatal(err)
	}
	fo := &home.Failover{Table: w.table, Leases: w.leases, Regions: map[string]home.DB{east: w.db[east], west: w.db[west]},
		Wait: func(context.Context) error { w.replicate(); return nil }, Attempts: 3}
	if _, err := fo.Planned(ctx, l.Cell, west); err != nil {
		t.Fatal(err)
	}
	if _, err := w.svc[west].Transfer(ctx, tr, from, to, eur(200)); err != nil {
		t.Fatal(err)
	}
	if got := w.balance(west, to); got != 200 {
		t.Fatalf("recipient's balance: got %d, want 200", got)
	}
}
