package home_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/oncetable/oncetable/runtime/home"
	"github.com/oncetable/oncetable/runtime/txn"
)

// flakyStore is a lease table client that counts reads and can be cut off.
type flakyStore struct {
	home.DB
	down  bool
	reads int
}

var errStoreDown = errors.New("lease store unreachable")

func (f *flakyStore) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	f.reads++
	if f.down {
		return nil, errStoreDown
	}
	return f.DB.GetItem(ctx, in, o...)
}

func (f *flakyStore) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	if f.down {
		return nil, errStoreDown
	}
	return f.DB.UpdateItem(ctx, in, o...)
}

func TestFencer(t *testing.T) {
	r := newRegions(t)
	ctx := context.Background()
	store := &flakyStore{DB: r.db[east]}
	leases := home.NewLeases(store, "leases", func(o *home.LeaseOptions) {
		o.TTL, o.Margin, o.Clock = 10*time.Second, 2*time.Second, func() time.Time { return r.now }
	})
	clock := func(o *home.FencerOptions) { o.Clock = func() time.Time { return r.now } }
	fe := home.NewFencer(east, "money", 8, leases, clock)
	cell := fe.Cell("alice")
	if _, err := home.Assign(ctx, leases, r.db[east], "money", cell, east); err != nil {
		t.Fatal(err)
	}
	fence := func(f *home.Fencer, users ...string) (*txn.Items, error) {
		items := &txn.Items{}
		return items, f.Fence(ctx, items, "", users...)
	}

	t.Run("the held lease is reused until half of it is left, then renewed", func(t *testing.T) {
		if _, err := fence(fe, "alice"); err != nil {
			t.Fatal(err)
		}
		reads := store.reads
		r.now = r.now.Add(4 * time.Second)
		if _, err := fence(fe, "alice"); err != nil || store.reads != reads {
			t.Fatalf("4s into a 10s lease: err %v, %d store reads, want the held lease and none", err, store.reads-reads)
		}
		r.now = r.now.Add(2 * time.Second)
		if _, err := fence(fe, "alice"); err != nil || store.reads != reads+1 {
			t.Fatalf("6s into a 10s lease: err %v, %d store reads, want a renewal", err, store.reads-reads)
		}
		l, err := leases.Get(ctx, cell)
		if err != nil || !l.Expires.Equal(r.now.Add(10*time.Second)) {
			t.Fatalf("renewed lease %+v, %v; want it to end at %s", l, err, r.now.Add(10*time.Second))
		}
	})

	t.Run("the store unreachable: writes go on until the margin, then ErrLeaseExpired", func(t *testing.T) {
		store.down = true
		defer func() { store.down = false }()
		r.now = r.now.Add(6 * time.Second) // 4s left, more than the 2s margin
		if _, err := fence(fe, "alice"); err != nil {
			t.Fatalf("4s before the end with the store down: %v, want the held lease", err)
		}
		r.now = r.now.Add(3 * time.Second) // 1s left, within the margin
		items, err := fence(fe, "alice")
		if !errors.Is(err, home.ErrLeaseExpired) || items.Len() != 0 {
			t.Fatalf("1s before the end with the store down: %v and %d items, want ErrLeaseExpired and none", err, items.Len())
		}
	})

	t.Run("another Region is refused before sending, naming the home", func(t *testing.T) {
		items, err := fence(home.NewFencer(west, "money", 8, leases, clock), "alice")
		var no *home.NotOwnerError
		if !errors.As(err, &no) || no.Owner.Region != east || no.Region != west || items.Len() != 0 {
			t.Fatalf("got %v and %d items, want *NotOwnerError naming %s and no item", err, items.Len(), east)
		}
	})

	t.Run("two cells: one fence each, the second named by its cell", func(t *testing.T) {
		other := ""
		for _, u := range []string{"bob", "carol", "dave", "erin", "frank", "grace"} {
			if fe.Cell(u) != cell {
				other = u
				break
			}
		}
		if _, err := home.Assign(ctx, leases, r.db[east], "money", fe.Cell(other), east); err != nil {
			t.Fatal(err)
		}
		items, err := fence(fe, "alice", other, "alice")
		if err != nil {
			t.Fatal(err)
		}
		names := items.Names()
		if len(names) != 2 || names[0] != home.FenceItem || !strings.HasPrefix(names[1], home.FenceItem+"-c") {
			t.Fatalf("fence items %v, want [fence fence-<cell>]", names)
		}
	})
}

// TestFencerAssignsFirstHomes: a cell with no lease is assigned on first
// use by the Region its first home names, and only by that Region.
func TestFencerAssignsFirstHomes(t *testing.T) {
	r := newRegions(t)
	ctx := context.Background()
	leases := home.NewLeases(r.db[east], "leases", func(o *home.LeaseOptions) { o.Clock = func() time.Time { return r.now } })
	first := func(cell string) string { return east }
	fencer := func(region string) *home.Fencer {
		return home.NewFencer(region, "money", 8, leases, func(o *home.FencerOptions) {
			o.Clock, o.FirstHome, o.Local = func() time.Time { return r.now }, first, r.db[region]
		})
	}
	tests := []struct {
		name, region string
		wantErr      error
	}{
		{"another Region does not assign it", west, home.ErrNoLease},
		{"its first home assigns it and writes", east, nil},
		{"once assigned, the other Region is not the owner", west, home.ErrNotOwner},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := fencer(tt.region).Fence(ctx, &txn.Items{}, "", "alice")
			if (tt.wantErr == nil) != (err == nil) || (tt.wantErr != nil && !errors.Is(err, tt.wantErr)) {
				t.Fatalf("Fence in %s = %v, want %v", tt.region, err, tt.wantErr)
			}
		})
	}
	o, err := home.ReadOwnership(ctx, r.db[east], "money", home.CellOf("alice", 8))
	if err != nil || o.Region != east || o.Epoch != 1 || o.ClaimedAt.IsZero() {
		t.Fatalf("ownership in %s = %+v, %v; want %s at epoch 1 with its claim time", east, o, err, east)
	}
}
