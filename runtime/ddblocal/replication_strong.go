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
// A replica whose lock another Region's write holds at that moment is a
// concurrent conflicting write: the write fails with
// ReplicatedWriteConflictException and changes nothing. The engine
// detects the conflict per table, not per item: two Regions writing
// different items of one table at the same instant may also conflict,
// which a client handles as it must the documented case (the exception
// is safe to retry).
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
		return validationf("Transactions are not supported for tables with MultiRegionConsistency STRONG")
	}
	r := l.set.repl
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
			return &APIError{Code: replicatedWriteConflict, Status: http.StatusBadRequest,
				Message: "The request was rejected because one or more items in the request are being modified by a request in another Region."}
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
