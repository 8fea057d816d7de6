package ddblocal

import (
	"net/http"
	"time"
)

// Multi-Region strong consistency (MRSC; Developer Guide, "Multi-Region
// strong consistency"): a write commits only once a majority of the
// global table's three Regions (replicas and witness) hold it, so every
// read, in any Region, sees every acknowledged write. Here a write to a
// STRONG replica is applied to every reachable replica before it commits
// in its own Region, under their locks; a replica cut off by a partition
// or a crash receives it later, asynchronously, as under MREC.
//
// A write of an item another Region is writing at that moment is a
// concurrent conflicting write: it fails with
// ReplicatedWriteConflictException and changes nothing. Two Regions
// writing different items of one table wait for each other's replica
// lock; should each hold its own while waiting for the other's past a
// short bound, both fail the same way, which a client handles as it must
// the documented case (the exception is safe to retry).
//
// A Region that cannot reach a majority (itself plus one replica or the
// witness) cannot write: DynamoDB documents that an isolated MRSC replica
// serves no writes, not the error; the engine answers InternalServerError,
// which SDKs retry, the closest documented answer to a service that
// cannot complete a request.

const replicatedWriteConflict = "ReplicatedWriteConflictException"

// conflictWait is how long a write waits for another Region's replica
// before declaring a conflict.
const conflictWait = 2 * time.Millisecond

// strongGroup reports whether a replica belongs to a STRONG global table.
func (l *replicaLink) strongGroup(name string) (peers []string, witness string, strong bool) {
	s := l.set
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.groups[name]
	if g == nil || !g.strong {
		return nil, "", false
	}
	for _, r := range g.regionNames() {
		if r != l.region {
			peers = append(peers, r)
		}
	}
	return peers, g.witness, true
}

// reachable reports whether a Region can be reached from another now.
func (r *replicator) reachable(from, to string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return !r.paused && !r.down[to] && !r.down[from] && !r.cut[[2]string{from, to}]
}

// replicateStrong applies t's uncommitted changes to the reachable
// replicas of its STRONG global table, or refuses the write. The caller
// holds t.mu; on an error it rolls t back.
func (l *replicaLink) replicateStrong(t *table, isTx bool, now time.Time) error {
	peers, witness, strong := l.strongGroup(t.name)
	if !strong || l.applying {
		return nil
	}
	if isTx {
		return errStrongTransaction()
	}
	r := l.set.repl
	if !l.set.claim(t, l.region) {
		return errReplicatedWriteConflict()
	}
	defer l.set.release(t)
	votes := 1
	var targets []*table
	unlock := func() {
		for _, pt := range targets {
			pt.mu.Unlock()
		}
	}
	for _, p := range peers {
		if !r.reachable(l.region, p) {
			continue
		}
		pt := l.set.engines[p].anyStatus(t.name)
		if pt == nil {
			continue
		}
		if !lockWithin(pt, conflictWait) {
			unlock()
			return errReplicatedWriteConflict()
		}
		targets = append(targets, pt)
		votes++
	}
	if witness != "" && r.reachable(l.region, witness) {
		votes++
	}
	if votes < 2 {
		unlock()
		return newError(CodeInternalServerError, "Internal server error: the Region cannot reach a majority of the global table's Regions")
	}
	defer unlock()
	l.strongVers = l.strongVers[:0]
	for _, c := range t.changes {
		l.strongVers = append(l.strongVers, l.nextVersion(string(c.key), now))
	}
	for _, pt := range targets {
		e := l.set.engines[pt.replica.region]
		pt.replica.applying = true
		for i, c := range t.changes {
			en := &replEntry{table: t.name, key: c.key, val: c.val, ver: l.strongVers[i]}
			e.applyLocked(pt, en, false)
		}
		err := e.commit([]*table{pt}, nil, false)
		pt.replica.applying, pt.replica.incoming = false, pt.replica.incoming[:0]
		if err != nil {
			return err
		}
	}
	return nil
}

// lockWithin takes t's write lock unless it stays taken for d.
func lockWithin(t *table, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		if t.mu.TryLock() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Microsecond)
	}
}

// refuseStrongTTL refuses Time to Live on a replica of a STRONG global
// table, which MRSC does not support.
func refuseStrongTTL(t *table) error {
	var l *replicaLink
	t.rlocked(func() { l = t.replica })
	if l == nil {
		return nil
	}
	if _, _, strong := l.strongGroup(t.name); strong {
		return validationf("One or more parameter values were invalid: Time to Live is not supported for tables with MultiRegionConsistency STRONG")
	}
	return nil
}

func errStrongTransaction() error {
	return validationf("Transactions are not supported for tables with MultiRegionConsistency STRONG")
}

// refuseStrongTransaction refuses a transaction that reads a replica of a
// STRONG global table.
func refuseStrongTransaction(t *table) error {
	var l *replicaLink
	t.rlocked(func() { l = t.replica })
	if l == nil {
		return nil
	}
	if _, _, strong := l.strongGroup(t.name); strong {
		return errStrongTransaction()
	}
	return nil
}

func errReplicatedWriteConflict() error {
	return &APIError{Code: replicatedWriteConflict, Status: http.StatusBadRequest,
		Message: "The request was rejected because one or more items in the request are being modified by a request in another Region."}
}

// claim marks the items of t's uncommitted changes as being written from
// region, unless another Region is writing one of them: that is the
// conflict ReplicatedWriteConflictException reports.
func (s *regionSet) claim(t *table, region string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inflight == nil {
		s.inflight = map[string]string{}
	}
	for _, c := range t.changes {
		if r, busy := s.inflight[t.name+"\x00"+string(c.key)]; busy && r != region {
			return false
		}
	}
	for _, c := range t.changes {
		s.inflight[t.name+"\x00"+string(c.key)] = region
	}
	return true
}

// release ends claim.
func (s *regionSet) release(t *table) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range t.changes {
		delete(s.inflight, t.name+"\x00"+string(c.key))
	}
}
