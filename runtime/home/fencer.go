package home

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/oncetable/oncetable/runtime/txn"
)

// Fencer fences the money transactions of one Region: given the users a
// transaction moves money for, it adds one ConditionCheck per distinct
// cell, at the epoch of the lease this Region holds for that cell, and
// reads a cancellation of one of them back as *NotOwnerError. The flows
// (runtime/payments) call it through payments.Options.Fence; it is safe
// for concurrent use.
//
// A cell whose lease names another Region is refused before anything is
// sent (*NotOwnerError naming that Region), so a request that reached the
// wrong Region costs one strongly consistent lease read and writes
// nothing. The lease is renewed when less than half of it is left; when
// the lease store cannot be reached the Region writes on until the lease
// is within the store's margin of its end (Lease.Writable), then refuses
// with ErrLeaseExpired.
type Fencer struct {
	region string
	table  string
	cells  int
	leases *Leases
	clock  func() time.Time
	trail  time.Duration
	first  func(cell string) string
	local  DB

	mu   sync.Mutex
	held map[string]Lease
}

// FencerOptions configure a Fencer.
type FencerOptions struct {
	// Clock is this Region's clock, which decides when a held lease is
	// renewed or stops being writable. Default: time.Now.
	Clock func() time.Time
	// TrailTTL is how long the trail item each transaction writes in its
	// cell's partition (Trail) lists the partitions it wrote, so how far
	// back a planned failover's drain proof compares them. Default:
	// DefaultTrailTTL.
	TrailTTL time.Duration
	// FirstHome names the first home of a cell that has no lease yet
	// (config.Homes.FirstHome); when it names this Region, the fencer
	// assigns the cell to it (Assign) through Local, its client of this
	// Region's replica. Default: nil, cells are assigned by an operator.
	FirstHome func(cell string) string
	Local     DB
}

// NewFencer returns the fencer of region's writers of table, whose users
// are hashed into cells cells (CellOf), with leases from leases.
func NewFencer(region, table string, cells int, leases *Leases, opts ...func(*FencerOptions)) *Fencer {
	o := FencerOptions{Clock: time.Now, TrailTTL: DefaultTrailTTL}
	for _, f := range opts {
		f(&o)
	}
	if o.TrailTTL <= 0 {
		o.TrailTTL = DefaultTrailTTL
	}
	return &Fencer{region: region, table: table, cells: max(cells, 1), leases: leases, clock: o.Clock, trail: o.TrailTTL,
		first: o.FirstHome, local: o.Local, held: map[string]Lease{}}
}

// Region is the Region whose writers the fencer fences.
func (f *Fencer) Region() string { return f.region }

// Cell is the cell of a user.
func (f *Fencer) Cell(user string) string { return CellOf(user, f.cells) }

// fenceName is the name of a cell's ConditionCheck: FenceItem for the first
// cell of a transaction, FenceItem-<cell> for any other (a transfer
// between users of two cells).
func fenceName(i int, cell string) string { return itemName(FenceItem, i, cell) }

func itemName(base string, i int, cell string) string {
	if i == 0 {
		return base
	}
	return base + "-" + cell
}

// Fence adds to items the fence of every cell of users, in cell order,
// and each cell's trail (Trail: the partitions items write, for the drain
// proof), which also lists record, the partition of the transaction's
// idempotency record ("" for none). It fails with *NotOwnerError when a cell's lease names another
// Region, with ErrLeaseExpired when this Region's lease can no longer be
// used, and with the lease store's error otherwise.
func (f *Fencer) Fence(ctx context.Context, items *txn.Items, record string, users ...string) error {
	cells := f.cellsOf(users)
	leases, err := f.leasesOf(ctx, cells)
	if err != nil {
		return err
	}
	for i, cell := range cells {
		if err := fenceAs(items, fenceName(i, cell), f.table, leases[i]); err != nil {
			return err
		}
	}
	now := f.clock()
	for i, cell := range cells {
		if err := Trail(items, itemName(TrailItem, i, cell), f.table, leases[i], now, now.Add(f.trail), record); err != nil {
			return err
		}
	}
	return nil
}

// leasesOf is this Region's lease of each of cells. When the cells are
// homed in two Regions (a transfer between users of two cells), no
// Region can fence them all and forwarding would only move the request
// between the homes: it fails with *SplitHomesError. When they are all
// homed in one other Region, it fails with that Region's *NotOwnerError.
func (f *Fencer) leasesOf(ctx context.Context, cells []string) ([]Lease, error) {
	leases := make([]Lease, len(cells))
	homes := map[string]string{}
	var elsewhere error
	for i, cell := range cells {
		l, err := f.Lease(ctx, cell)
		var no *NotOwnerError
		switch {
		case err == nil:
			leases[i], homes[cell] = l, f.region
		case errors.As(err, &no) && no.Owner.Region != "" && no.Owner.Region != noRegion:
			homes[cell] = no.Owner.Region
			if elsewhere == nil {
				elsewhere = err
			}
		default:
			return nil, err
		}
	}
	if split := splitHomes(homes); split != nil {
		return nil, split
	}
	return leases, elsewhere
}

// Refused reads a cancelled transaction that holds Fence's checks for
// users: a *NotOwnerError when one of them failed (the ownership item in
// this Region's replica names another home or epoch), nil otherwise. The
// cell's held lease is dropped, so that the next call reads the lease
// store again.
func (f *Fencer) Refused(c *txn.CancelledError, users ...string) error {
	for i, cell := range f.cellsOf(users) {
		name := fenceName(i, cell)
		if !c.Failed(name) {
			continue
		}
		l := f.forget(cell)
		return &NotOwnerError{Cell: cell, Region: f.region, Epoch: l.Epoch, Owner: ownershipOf(cell, c.Item(name)), Cancelled: true}
	}
	return nil
}

func (f *Fencer) cellsOf(users []string) []string {
	seen := map[string]bool{}
	var cells []string
	for _, u := range users {
		if c := f.Cell(u); !seen[c] {
			seen[c] = true
			cells = append(cells, c)
		}
	}
	sort.Strings(cells)
	return cells
}

// Lease returns this Region's lease of cell, renewed from the store when
// less than half of it is left.
func (f *Fencer) Lease(ctx context.Context, cell string) (Lease, error) {
	now := f.clock()
	f.mu.Lock()
	l, ok := f.held[cell]
	f.mu.Unlock()
	if ok && now.Add(f.leases.TTL()/2).Before(l.Expires) {
		return l, nil
	}
	cur, err := f.leases.Get(ctx, cell)
	if errors.Is(err, ErrNoLease) && f.first != nil && f.local != nil && f.first(cell) == f.region {
		cur, err = Assign(ctx, f.leases, f.local, f.table, cell, f.region)
	}
	if err != nil {
		if ok && l.Writable(now, f.leases.Margin()) {
			return l, nil
		}
		if ok {
			return Lease{}, fmt.Errorf("%w: cell %s: the lease store did not answer: %w", ErrLeaseExpired, cell, err)
		}
		return Lease{}, fmt.Errorf("home: lease of cell %s: %w", cell, err)
	}
	if cur.Region != f.region {
		f.forget(cell)
		return Lease{}, &NotOwnerError{Cell: cell, Region: f.region, Epoch: l.Epoch, Owner: Ownership{Cell: cell, Region: cur.Region, Epoch: cur.Epoch}}
	}
	renewed, err := f.leases.Renew(ctx, cur)
	if errors.Is(err, ErrLeaseConflict) {
		f.forget(cell)
		return Lease{}, fmt.Errorf("home: renewal of cell %s at epoch %d: %w", cell, cur.Epoch, err)
	}
	if err != nil {
		if cur.Writable(now, f.leases.Margin()) {
			return cur, nil
		}
		return Lease{}, fmt.Errorf("%w: cell %s: renewal failed: %w", ErrLeaseExpired, cell, err)
	}
	f.mu.Lock()
	f.held[cell] = renewed
	f.mu.Unlock()
	return renewed, nil
}

func (f *Fencer) forget(cell string) Lease {
	f.mu.Lock()
	defer f.mu.Unlock()
	l := f.held[cell]
	delete(f.held, cell)
	return l
}

// Assign gives a cell with no lease its first home: the lease at epoch 1
// and the ownership item in region's replica (db, a client of region).
// A cell that has a lease already is left as it is and its lease
// returned, so that every Region's writers may run Assign at start with
// the environment's configured homes.
func Assign(ctx context.Context, leases *Leases, db DB, table, cell, region string) (Lease, error) {
	l, err := leases.Create(ctx, cell, region)
	if errors.Is(err, ErrLeaseConflict) {
		return leases.Get(ctx, cell)
	}
	if err != nil {
		return Lease{}, err
	}
	return l, claimAt(ctx, db, table, l, leases.o.Clock())
}
