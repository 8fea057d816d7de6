package regionsim

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"time"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/home"
)

// Unplanned is what the fenced design does for a cell whose home Region
// is unreachable.
type Unplanned int

const (
	// Freeze refuses the cell's money writes (503 with Retry-After) until
	// the home Region returns.
	Freeze Unplanned = iota
	// Takeover gives the cell to another Region under the next epoch once
	// the old lease has run out, and quarantines the old Region's late
	// writes.
	Takeover
)

func (u Unplanned) String() string {
	if u == Takeover {
		return "takeover"
	}
	return "freeze"
}

// SimConfig is one seeded run.
type SimConfig struct {
	Seed      int64
	Regions   int // 2 or 3
	Steps     int // default 300
	Design    Design
	Unplanned Unplanned
	Mutants   Mutants
	Cells     int // default 2
	Users     int // per cell, default 3
}

// SimReport is what a run did and found.
type SimReport struct {
	Config     SimConfig
	Violations []string
	// Requests counts client calls; Acked the movements acknowledged
	// (applied or replayed); Declined, Refused (503 or unreachable) and
	// LostAnswers (committed, answer lost, retried) the rest.
	Requests, Acked, Declined, Refused, LostAnswers, Forwarded, Hops int
	Planned, Takeovers, FailedTakeovers, Crashes, Partitions         int
	Quarantined                                                      []Quarantined
	// PlannedUnwritable is the simulated time cells could not be written
	// during planned failovers, summed; TakeoverUnwritable the same from
	// the crash of a home to its takeover.
	PlannedUnwritable, TakeoverUnwritable time.Duration
}

// stepsOrDefault is the run's number of steps.
func (c SimConfig) stepsOrDefault() int {
	if c.Steps == 0 {
		return 300
	}
	return c.Steps
}

var regionNames = []string{"us-east-1", "us-west-2", "eu-west-1"}

// pending is a request a client still retries.
type pending struct {
	req      Request
	attempts int
}

// Simulate runs one seeded simulation: clients whose retries hop Regions
// call the flows of cfg.Design while the run partitions, heals, crashes
// (backlog kept or dropped), spikes the lag, skews clocks and fails cells
// over (planned, and in cfg.Unplanned mode when a home is unreachable);
// then it heals everything, waits until quiet, repairs dropped backlogs,
// reconciles and audits. The same config gives the same run.
func Simulate(ctx context.Context, cfg SimConfig) (SimReport, error) {
	cfg.Steps = cfg.stepsOrDefault()
	if cfg.Cells == 0 {
		cfg.Cells = 2
	}
	if cfg.Users == 0 {
		cfg.Users = 3
	}
	rep := SimReport{Config: cfg}
	rng := rand.New(rand.NewSource(cfg.Seed))
	regions := regionNames[:cfg.Regions]
	c, err := NewCluster(ctx, Config{Regions: regions, Design: cfg.Design, Mutants: cfg.Mutants})
	if err != nil {
		return rep, err
	}
	defer c.Close()
	c.Rep.SetFaults(ddblocal.ReplicationFaults{Seed: cfg.Seed, Lag: ddblocal.ExponentialLag(300 * time.Millisecond)})

	cells := make([]string, cfg.Cells)
	opening := map[string]int64{}
	users := map[string][]string{}
	orders := map[string]int64{}
	for i := range cells {
		cells[i] = fmt.Sprintf("c%03d", i)
		bal := map[string]int64{}
		for u := 0; u < cfg.Users; u++ {
			user := fmt.Sprintf("u%d_%d", i, u)
			bal[user] = int64(rng.Intn(5)) * 100
			opening[user] = bal[user]
			users[cells[i]] = append(users[cells[i]], user)
		}
		if err := c.InitCell(ctx, cells[i], regions[rng.Intn(len(regions))], bal); err != nil {
			return rep, err
		}
		for _, user := range users[cells[i]] {
			for o := 0; o < 2; o++ {
				id := fmt.Sprintf("%s-o%d", user, o)
				orders[id] = int64(1+rng.Intn(5)) * 50
				if err := c.OpenOrder(ctx, regions[0], cells[i], id, user, orders[id]); err != nil {
					return rep, err
				}
			}
		}
	}
	c.Rep.WaitQuiet()

	var acked []Ack
	var retries []pending
	takenOver := map[string]bool{}
	downSince := map[string]time.Time{}
	keys := 0
	crashed := ""
	var restartAt time.Time
	ops := []Op{Charge, Debit, Debit, Settle}

	for step := 0; step < cfg.Steps; step++ {
		c.Advance(time.Duration(50+rng.Intn(400)) * time.Millisecond)
		switch x := rng.Intn(100); {
		case x < 70: // a client call: a retry, or a new request
			var p pending
			if len(retries) > 0 && rng.Intn(2) == 0 {
				i := rng.Intn(len(retries))
				p = retries[i]
				retries = append(retries[:i], retries[i+1:]...)
				rep.Hops++
			} else {
				cell := cells[rng.Intn(len(cells))]
				user := users[cell][rng.Intn(len(users[cell]))]
				keys++
				p.req = Request{Op: ops[rng.Intn(len(ops))], Cell: cell, User: user, Key: fmt.Sprintf("k%d", keys), Amount: int64(1+rng.Intn(8)) * 25}
				if p.req.Op == Settle {
					p.req.Order = fmt.Sprintf("%s-o%d", user, rng.Intn(2))
					p.req.Amount = orders[p.req.Order]
				}
			}
			p.attempts++
			rep.Requests++
			res, err := c.Handle(ctx, regions[rng.Intn(len(regions))], p.req)
			switch {
			case err != nil:
				rep.Refused++
				if !refusal(err) {
					return rep, fmt.Errorf("seed %d step %d: %s %s: %w", cfg.Seed, step, p.req.Op, p.req.Key, err)
				}
				if p.attempts < 40 {
					retries = append(retries, p)
				}
			case res.Outcome == Declined:
				rep.Declined++
				acked = append(acked, Ack{p.req, Declined})
			case rng.Intn(10) == 0: // the answer is lost: the client retries
				rep.LostAnswers++
				retries = append(retries, p)
			default:
				rep.Acked++
				if res.Forwarded {
					rep.Forwarded++
				}
				acked = append(acked, Ack{p.req, res.Outcome})
			}
		case x < 74:
			a, b := regions[rng.Intn(len(regions))], regions[rng.Intn(len(regions))]
			if a != b {
				c.Rep.Partition(a, b)
				rep.Partitions++
			}
		case x < 80:
			for _, a := range regions {
				for _, b := range regions {
					if a < b {
						c.Rep.Heal(a, b)
					}
				}
			}
			for r := range c.isolate {
				c.Rejoin(r)
			}
			for _, cell := range cells {
				if err := c.resume(ctx, cell); err != nil {
					return rep, fmt.Errorf("seed %d step %d: resume of %s: %w", cfg.Seed, step, cell, err)
				}
			}
		case x < 82:
			if r := regions[rng.Intn(len(regions))]; !c.down[r] && len(c.isolate) == 0 {
				c.Isolate(r)
				rep.Partitions++
			}
		case x < 85:
			if crashed == "" {
				crashed = regions[rng.Intn(len(regions))]
				c.Crash(crashed, rng.Intn(3) > 0)
				restartAt = c.Now().Add(time.Duration(2+rng.Intn(25)) * time.Second)
				rep.Crashes++
			}
		case x < 88:
			c.Rep.SetFaults(ddblocal.ReplicationFaults{Seed: rng.Int63(), Lag: ddblocal.ExponentialLag(time.Duration(50+rng.Intn(3000)) * time.Millisecond)})
		case x < 90:
			r := regions[rng.Intn(len(regions))]
			c.Skew(r, time.Duration(rng.Int63n(int64(c.cfg.Margin)))-c.cfg.Margin/2)
		case x < 94:
			if cfg.Design == Fenced && crashed == "" && len(c.isolate) == 0 && len(c.stopped) == 0 {
				cell := cells[rng.Intn(len(cells))]
				if err := c.planned(ctx, cell, regions[rng.Intn(len(regions))], &rep); err != nil {
					return rep, fmt.Errorf("seed %d step %d: planned failover of %s: %w", cfg.Seed, step, cell, err)
				}
			}
		}
		if crashed != "" && !c.Now().Before(restartAt) {
			c.Restart(crashed)
			crashed = ""
		}
		if cfg.Design == Fenced && cfg.Unplanned == Takeover {
			if err := c.takeovers(ctx, cells, downSince, takenOver, &rep); err != nil {
				return rep, fmt.Errorf("seed %d step %d: %w", cfg.Seed, step, err)
			}
		}
	}

	// Heal everything, let replication finish, repair what a dropped
	// backlog left different, then reconcile and audit.
	if crashed != "" {
		c.Restart(crashed)
	}
	for r := range c.isolate {
		c.Rejoin(r)
	}
	for _, a := range regions {
		for _, b := range regions {
			if a < b {
				c.Rep.Heal(a, b)
			}
		}
	}
	c.Rep.WaitQuiet()
	for _, cell := range cells {
		if err := c.resume(ctx, cell); err != nil {
			return rep, err
		}
		if _, err := c.Repair(ctx, cell); err != nil {
			return rep, err
		}
	}
	if cfg.Design == Fenced {
		if rep.Quarantined, err = c.Reconcile(ctx, cells); err != nil {
			return rep, err
		}
		c.Rep.WaitQuiet()
	}
	rep.Violations, err = c.Audit(ctx, cells, opening, acked, takenOver)
	return rep, err
}

// refusal reports an error a client retries: a Region unreachable, a cell
// frozen, a lease lost or run out.
func refusal(err error) bool {
	return errors.Is(err, ErrUnreachable) || errors.Is(err, ErrLeaseStore) || errors.Is(err, home.ErrFrozen) || errors.Is(err, home.ErrNotOwner) ||
		errors.Is(err, home.ErrLeaseExpired) || errors.Is(err, home.ErrLeaseConflict) || ddblocal.IsConnectionReset(err)
}

// planned moves a cell to Region to, if it is not there, repairing and
// resuming when a dropped backlog keeps the drain proof from succeeding.
func (c *Cluster) planned(ctx context.Context, cell, to string, rep *SimReport) error {
	l, err := c.Leases.Get(ctx, cell)
	if err != nil || l.Region == to {
		return nil // the store cannot answer now, or nothing to move
	}
	start := c.Now()
	defer func() { rep.PlannedUnwritable += c.Now().Sub(start) }()
	rep.Planned++
	if c.cfg.Mutants.NoDrainProof {
		nl, err := c.Leases.Move(ctx, l, to)
		if err != nil {
			return err
		}
		if err := home.Stop(ctx, c.DB[l.Region], Table, cell, l.Epoch); err != nil {
			return err
		}
		return home.Claim(ctx, c.DB[to], Table, nl)
	}
	_, err = c.Failover().Planned(ctx, cell, to)
	if errors.Is(err, home.ErrNotDrained) {
		c.stopped[cell] = l.Region
		return c.resume(ctx, cell)
	}
	return err
}

// resume finishes a planned failover that a partition or a dropped
// backlog left stopped, once every Region is up: it repairs what a
// dropped backlog left different and proves the drain again. The cell
// stays stopped while a partition holds its items back.
func (c *Cluster) resume(ctx context.Context, cell string) error {
	from, ok := c.stopped[cell]
	if !ok || len(c.down) > 0 {
		return nil
	}
	if _, err := c.Repair(ctx, cell); err != nil {
		return err
	}
	_, err := c.Failover().Resume(ctx, cell, from)
	if errors.Is(err, home.ErrNotDrained) {
		return nil
	}
	delete(c.stopped, cell)
	return err
}

// takeovers gives every cell whose home has been unreachable for a
// detection period to a reachable Region, once its lease allows.
func (c *Cluster) takeovers(ctx context.Context, cells []string, downSince map[string]time.Time, takenOver map[string]bool, rep *SimReport) error {
	const detection = 3 * time.Second
	for _, cell := range cells {
		l, err := c.Leases.Get(ctx, cell)
		if err != nil {
			continue // the store cannot answer now
		}
		if !c.down[l.Region] && !c.isolate[l.Region] {
			delete(downSince, cell)
			continue
		}
		since, ok := downSince[cell]
		if !ok {
			downSince[cell] = c.Now()
			continue
		}
		if c.Now().Sub(since) < detection {
			continue
		}
		for _, to := range c.cfg.Regions {
			if to == l.Region || c.down[to] || c.isolate[to] {
				continue
			}
			_, err := c.Failover().Takeover(ctx, cell, to)
			if errors.Is(err, home.ErrLeaseConflict) {
				break // the lease has not run out yet
			}
			if err != nil {
				rep.FailedTakeovers++ // the store could not answer: tried again next step
				break
			}
			takenOver[cell] = true
			delete(c.stopped, cell) // a takeover ends a stopped planned failover
			rep.Takeovers++
			rep.TakeoverUnwritable += c.Now().Sub(since)
			delete(downSince, cell)
			break
		}
	}
	return nil
}
