package ddblocal

import (
	"bytes"
	"fmt"
	"math"
	"math/rand"
	"sort"
	"time"
)

// Replication is the fault API of an engine's Regions: it partitions and
// heals pairs of Regions, pauses replication, draws each replicated
// write's lag from a distribution, crashes Regions, skews their clocks,
// and waits until the Regions are quiet. Every draw comes from a random
// source seeded by ReplicationFaults.Seed; with Options.ManualReplication
// and a fake Options.Clock, a run is repeated exactly.
type Replication struct{ set *regionSet }

// Replication returns the engine's replication controls, nil for an
// engine opened without Options.Regions.
func (e *Engine) Replication() *Replication {
	if e.global == nil {
		return nil
	}
	return &Replication{set: e.global}
}

// ReplicationFaults are the lag of replicated writes and its seed.
type ReplicationFaults struct {
	// Seed seeds the draws of Lag. Default: 0.
	Seed int64
	// Lag draws the time between a write's commit in its Region and its
	// application in another Region, per item and replica. Default: nil,
	// no lag (applied as soon as the replicator runs).
	Lag func(*rand.Rand) time.Duration
}

// UniformLag draws lags uniformly from [lo, hi].
func UniformLag(lo, hi time.Duration) func(*rand.Rand) time.Duration {
	return func(r *rand.Rand) time.Duration { return lo + time.Duration(r.Int63n(int64(hi-lo)+1)) }
}

// ExponentialLag draws lags from an exponential distribution of the given
// mean: mostly short, with a long tail, as ReplicationLatency is.
func ExponentialLag(mean time.Duration) func(*rand.Rand) time.Duration {
	return func(r *rand.Rand) time.Duration {
		return time.Duration(math.Min(r.ExpFloat64()*float64(mean), float64(math.MaxInt64/2)))
	}
}

// SetFaults sets the lag of the writes committed from now on and reseeds
// its draws.
func (p *Replication) SetFaults(f ReplicationFaults) {
	r := p.set.repl
	r.mu.Lock()
	defer r.mu.Unlock()
	r.faults = f
	r.rng = rand.New(rand.NewSource(f.Seed))
}

func (p *Replication) known(region string) {
	if _, ok := p.set.engines[region]; !ok {
		panic(fmt.Sprintf("ddblocal: Replication: the engine has no Region %s", region))
	}
}

// Partition cuts the link between two Regions both ways: writes wait in
// their Region's backlog until Heal.
func (p *Replication) Partition(a, b string) { p.setCut(a, b, true) }

// Heal restores the link Partition cut.
func (p *Replication) Heal(a, b string) { p.setCut(a, b, false) }

func (p *Replication) setCut(a, b string, cut bool) {
	p.known(a)
	p.known(b)
	r := p.set.repl
	r.mu.Lock()
	if cut {
		r.cut[[2]string{a, b}], r.cut[[2]string{b, a}] = true, true
	} else {
		delete(r.cut, [2]string{a, b})
		delete(r.cut, [2]string{b, a})
	}
	r.mu.Unlock()
	r.poke()
}

// Pause holds every replicated write until Resume.
func (p *Replication) Pause() { p.setPaused(true) }

// Resume ends Pause.
func (p *Replication) Resume() { p.setPaused(false) }

func (p *Replication) setPaused(paused bool) {
	r := p.set.repl
	r.mu.Lock()
	r.paused = paused
	r.mu.Unlock()
	r.poke()
}

// Crash takes a Region down: its connections are reset (in process,
// IsConnectionReset), and nothing replicates from or to it. Its backlog,
// the writes it committed that other Regions have not received, is kept
// and delivered after Restart when keepBacklog is set, as AWS documents
// for a Region that recovers ("Global tables: How it works", "Region
// outage"); otherwise it is dropped, as if the Region were lost, and its
// replicas may stay different from the others for good.
func (p *Replication) Crash(region string, keepBacklog bool) {
	p.known(region)
	r := p.set.repl
	p.set.engines[region].regionDown.Store(true)
	r.mu.Lock()
	r.down[region] = true
	r.mu.Unlock()
	if !keepBacklog {
		r.dropFrom(region)
	}
}

// Restart brings a crashed Region back.
func (p *Replication) Restart(region string) {
	p.known(region)
	r := p.set.repl
	p.set.engines[region].regionDown.Store(false)
	r.mu.Lock()
	delete(r.down, region)
	r.mu.Unlock()
	r.poke()
}

// SetClockSkew makes a Region's clock run d ahead of Options.Clock
// (behind when negative): its writes' last-writer-wins timestamps, TTL and
// every other time the Region reads.
func (p *Replication) SetClockSkew(region string, d time.Duration) {
	p.known(region)
	p.set.skew[region].Store(int64(d))
}

// Deliver applies the replicated writes whose lag has passed by the
// Regions' clock and that no partition, pause or crash holds back, and
// returns how many it applied or dropped as older than the replica's.
func (p *Replication) Deliver() int {
	return p.set.repl.deliver(p.set.repl.takeDue(p.set.baseClock()), false)
}

// QuietReport is what WaitQuiet found.
type QuietReport struct {
	// Pending counts the replicated writes still held back by a
	// partition, a pause or a crashed Region.
	Pending int
	// Identical reports whether every global table has the same items in
	// every Region that holds one of its replicas.
	Identical bool
	// Differences names the first differing items, at most 10.
	Differences []string
}

// WaitQuiet delivers every replicated write that can be delivered, at
// once whatever its lag (the latency it records is its lag), and reports
// what is still held back and whether the replicas are identical.
func (p *Replication) WaitQuiet() QuietReport {
	r := p.set.repl
	for {
		ens := r.takeDue(time.Time{})
		if len(ens) == 0 || r.deliver(ens, true) == 0 {
			break // nothing left, or only writes a Region cannot store
		}
	}
	rep := QuietReport{Pending: r.pending()}
	rep.Differences = p.set.differences(10)
	rep.Identical = len(rep.Differences) == 0
	return rep
}

// ReplicationLatency returns the ReplicationLatency figures of table from
// one Region to another.
func (p *Replication) ReplicationLatency(table, from, to string) LatencyStats {
	r := p.set.repl
	r.mu.Lock()
	defer r.mu.Unlock()
	if s := r.latency[latencyKey{table, from, to}]; s != nil {
		return *s
	}
	return LatencyStats{}
}

// poke wakes the delivery goroutine.
func (r *replicator) poke() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// differences compares every global table's replicas item by item.
func (s *regionSet) differences(limit int) []string {
	s.mu.Lock()
	type tableRegions struct {
		name    string
		regions []string
	}
	var all []tableRegions
	for name, g := range s.groups {
		all = append(all, tableRegions{name, g.regionNames()})
	}
	s.mu.Unlock()
	sort.Slice(all, func(i, j int) bool { return all[i].name < all[j].name })
	var diffs []string
	for _, tr := range all {
		var base map[string][]byte
		for i, region := range tr.regions {
			rows := s.engines[region].snapshotRows(tr.name)
			if i == 0 {
				base = rows
				continue
			}
			for k, v := range rows {
				if bv, ok := base[k]; !ok || !sameItem(bv, v) {
					diffs = append(diffs, fmt.Sprintf("%s: item %x differs between %s and %s", tr.name, k, tr.regions[0], region))
				}
			}
			for k := range base {
				if _, ok := rows[k]; !ok {
					diffs = append(diffs, fmt.Sprintf("%s: item %x is in %s, not in %s", tr.name, k, tr.regions[0], region))
				}
			}
			if len(diffs) >= limit {
				return diffs[:limit]
			}
		}
	}
	return diffs
}

// snapshotRows returns a table's rows by encoded key, nil when absent.
func (e *Engine) snapshotRows(name string) map[string][]byte {
	t := e.anyStatus(name)
	if t == nil {
		return nil
	}
	out := map[string][]byte{}
	t.rlocked(func() {
		t.items.Ascend(func(en entry) bool {
			out[string(en.key())] = bytes.Clone(en.val())
			return true
		})
	})
	return out
}
