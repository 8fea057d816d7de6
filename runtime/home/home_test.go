package home_test

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
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/txn"
)

const (
	east = "us-east-1"
	west = "us-west-2"
)

// regions opens two Regions with "money" replicated between them and
// "leases" in the first, on a clock the test moves.
type regions struct {
	eng    *ddblocal.Engine
	db     map[string]*dynamodb.Client
	leases *home.Leases
	now    time.Time
}

func newRegions(t *testing.T) *regions {
	t.Helper()
	ctx := context.Background()
	r := &regions{db: map[string]*dynamodb.Client{}, now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	r.eng = ddblocal.New(func(o *ddblocal.Options) {
		o.Regions = []string{east, west}
		o.ManualReplication = true
		o.Clock = func() time.Time { return r.now }
	})
	t.Cleanup(func() { r.eng.Close() })
	for _, name := range []string{east, west} {
		r.db[name] = r.eng.Region(name).Client(func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 })
	}
	for _, name := range []string{"money", "leases"} {
		_, err := r.db[east].CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName: aws.String(name),
			AttributeDefinitions: []types.AttributeDefinition{
				{AttributeName: aws.String(schema.PartitionKey), AttributeType: types.ScalarAttributeTypeS},
				{AttributeName: aws.String(schema.SortKey), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String(schema.PartitionKey), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String(schema.SortKey), KeyType: types.KeyTypeRange}},
			BillingMode:         types.BillingModePayPerRequest,
			StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages},
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.db[east].UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("money"),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String(west)}}}}); err != nil {
		t.Fatal(err)
	}
	r.leases = home.NewLeases(r.db[east], "leases", func(o *home.LeaseOptions) {
		o.TTL, o.Margin, o.Clock = 10*time.Second, 2*time.Second, func() time.Time { return r.now }
	})
	return r
}

// write commits one fenced Put of an item of the cell in a Region.
func (r *regions) write(region string, l home.Lease, sk string) error {
	items := &txn.Items{}
	items.Add("entry", types.TransactWriteItem{Put: &types.Put{TableName: aws.String("money"), Item: map[string]types.AttributeValue{
		schema.PartitionKey: &types.AttributeValueMemberS{Value: home.PK(l.Cell)}, schema.SortKey: &types.AttributeValueMemberS{Value: sk}}}})
	if err := home.Fence(items, "money", l); err != nil {
		return err
	}
	_, err := r.db[region].TransactWriteItems(context.Background(), items.Input())
	return home.FenceError(err, items, l)
}

func (r *regions) failover(wait func(context.Context) error, attempts int) *home.Failover {
	return &home.Failover{Table: "money", Leases: r.leases, Regions: map[string]home.DB{east: r.db[east], west: r.db[west]},
		Wait: wait, Attempts: attempts}
}

// TestFence: a fenced transaction commits only in the Region and at the
// epoch the cell's ownership item names there, and the refusal says who
// the replica thinks owns the cell.
func TestFence(t *testing.T) {
	ctx := context.Background()
	r := newRegions(t)
	l, err := r.leases.Create(ctx, "c1", east)
	if err != nil {
		t.Fatal(err)
	}
	if err := home.Claim(ctx, r.db[east], "money", l); err != nil {
		t.Fatal(err)
	}
	r.eng.Replication().WaitQuiet()
	if err := r.write(east, l, "E#1"); err != nil {
		t.Fatalf("owner's write: %v", err)
	}
	for name, tc := range map[string]struct {
		region string
		lease  home.Lease
	}{
		"other Region": {west, home.Lease{Cell: "c1", Region: west, Epoch: 1}},
		"stale epoch":  {east, home.Lease{Cell: "c1", Region: east, Epoch: 0}},
		"later epoch":  {east, home.Lease{Cell: "c1", Region: east, Epoch: 2}},
	} {
		t.Run(name, func(t *testing.T) {
			err := r.write(tc.region, tc.lease, "E#"+name)
			var ne *home.NotOwnerError
			if !errors.As(err, &ne) || !errors.Is(err, home.ErrNotOwner) {
				t.Fatalf("err = %v, want *NotOwnerError", err)
			}
			if ne.Owner.Region != east || ne.Owner.Epoch != 1 {
				t.Errorf("owner = %+v, want %s at epoch 1", ne.Owner, east)
			}
		})
	}
}

// TestLeases: one lease per cell, renewed only by its holder at its epoch,
// moved to the next epoch, taken over only after it has run out by the
// margin; a writer stops the margin before the end.
func TestLeases(t *testing.T) {
	ctx := context.Background()
	r := newRegions(t)
	l, err := r.leases.Create(ctx, "c1", east)
	if err != nil || l.Epoch != 1 || l.Region != east {
		t.Fatalf("Create = %+v, %v", l, err)
	}
	if _, err := r.leases.Create(ctx, "c1", west); !errors.Is(err, home.ErrLeaseConflict) {
		t.Errorf("second Create: %v, want ErrLeaseConflict", err)
	}
	for _, tc := range []struct {
		after time.Duration
		want  bool
	}{{0, true}, {7 * time.Second, true}, {8 * time.Second, false}, {11 * time.Second, false}} {
		if got := l.Writable(r.now.Add(tc.after), r.leases.Margin()); got != tc.want {
			t.Errorf("Writable %s after the grant = %v, want %v", tc.after, got, tc.want)
		}
	}
	r.now = r.now.Add(5 * time.Second)
	if l, err = r.leases.Renew(ctx, l); err != nil || !l.Expires.Equal(r.now.Add(10*time.Second)) {
		t.Fatalf("Renew = %+v, %v", l, err)
	}
	if _, err := r.leases.Takeover(ctx, l, west); !errors.Is(err, home.ErrLeaseConflict) {
		t.Errorf("Takeover of a live lease: %v, want ErrLeaseConflict", err)
	}
	r.now = l.Expires.Add(time.Second) // run out, but within the margin
	if _, err := r.leases.Takeover(ctx, l, west); !errors.Is(err, home.ErrLeaseConflict) {
		t.Errorf("Takeover within the margin: %v, want ErrLeaseConflict", err)
	}
	r.now = l.Expires.Add(3 * time.Second)
	nl, err := r.leases.Takeover(ctx, l, west)
	if err != nil || nl.Epoch != 2 || nl.Region != west {
		t.Fatalf("Takeover = %+v, %v", nl, err)
	}
	if _, err := r.leases.Renew(ctx, l); !errors.Is(err, home.ErrLeaseConflict) {
		t.Errorf("the old holder's Renew: %v, want ErrLeaseConflict", err)
	}
	if got, err := r.leases.Get(ctx, "c1"); err != nil || got != nl {
		t.Errorf("Get = %+v, %v; want %+v", got, err, nl)
	}
}

// TestPlannedFailover: the old Region is fenced as soon as it stops, the
// new one cannot write until the drain proof has found the cell's items
// identical in both Regions, and a proof that never succeeds leaves the
// cell stopped until Resume.
func TestPlannedFailover(t *testing.T) {
	ctx := context.Background()
	r := newRegions(t)
	rep := r.eng.Replication()
	l, _ := r.leases.Create(ctx, "c1", east)
	if err := home.Claim(ctx, r.db[east], "money", l); err != nil {
		t.Fatal(err)
	}
	rep.WaitQuiet()
	rep.Partition(east, west)
	for _, sk := range []string{"E#1", "E#2"} {
		if err := r.write(east, l, sk); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("not drained", func(t *testing.T) {
		_, err := r.failover(nil, 3).Planned(ctx, "c1", west)
		if !errors.Is(err, home.ErrNotDrained) {
			t.Fatalf("Planned over a partition: %v, want ErrNotDrained", err)
		}
		nl, _ := r.leases.Get(ctx, "c1")
		for region, lease := range map[string]home.Lease{east: l, west: nl} {
			if err := r.write(region, lease, "E#stopped"); !errors.Is(err, home.ErrNotOwner) {
				t.Errorf("%s's write while stopped: %v, want ErrNotOwner", region, err)
			}
		}
	})
	t.Run("resume", func(t *testing.T) {
		waits := 0
		f := r.failover(func(context.Context) error { waits++; rep.Heal(east, west); rep.Deliver(); return nil }, 5)
		got, err := f.Resume(ctx, "c1", east)
		if err != nil {
			t.Fatal(err)
		}
		if got.Epoch != 2 || got.To != west || got.Items != 3 || got.Proofs != 2 || waits != 1 {
			t.Errorf("report %+v after %d waits; want epoch 2 to %s, 3 items, 2 proofs, 1 wait", got, waits, west)
		}
		nl, _ := r.leases.Get(ctx, "c1")
		if err := r.write(west, nl, "E#3"); err != nil {
			t.Errorf("the new owner's write: %v", err)
		}
		if err := r.write(east, l, "E#late"); !errors.Is(err, home.ErrNotOwner) {
			t.Errorf("the old owner's write: %v, want ErrNotOwner", err)
		}
		rep.WaitQuiet()
		p, err := home.DrainProof(ctx, r.db[east], r.db[west], "money", "c1")
		if err != nil || !p.Drained() || p.Items != 4 {
			t.Errorf("after: %+v, %v; want 4 identical items", p, err)
		}
	})
	t.Run("back", func(t *testing.T) {
		got, err := r.failover(nil, 1).Planned(ctx, "c1", west)
		if err == nil {
			t.Errorf("Planned to the current home: %+v, want an error", got)
		}
		got, err = r.failover(func(context.Context) error { rep.WaitQuiet(); return nil }, 3).Planned(ctx, "c1", east)
		if err != nil || got.Epoch != 3 || got.From != west {
			t.Errorf("Planned back = %+v, %v", got, err)
		}
	})
}

func TestCellOf(t *testing.T) {
	seen := map[string]bool{}
	for _, u := range []string{"alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi"} {
		c := home.CellOf(u, 4)
		if c != home.CellOf(u, 4) || len(c) != 4 || c < "c000" || c > "c003" {
			t.Errorf("CellOf(%s, 4) = %s", u, c)
		}
		seen[c] = true
	}
	if len(seen) < 2 {
		t.Errorf("8 users fell into %d cell(s) of 4", len(seen))
	}
}
