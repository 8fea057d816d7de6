package ddblocal

import (
	"container/heap"
	"math/rand"
	"slices"
	"sort"
	"sync"
	"time"
)

// Replication of global tables in multi-Region eventual consistency
// (MREC), as the Developer Guide describes it ("How DynamoDB global tables
// work", "Consistency modes"): a write commits in its Region, then reaches
// every other replica asynchronously, item by item. Each committed change
// of an item becomes one replEntry per other replica; entries of one item
// are delivered in order, entries of different items independently, each
// after a lag drawn from ReplicationFaults.Lag. A transaction is atomic in
// its Region only: its items travel as separate entries.
//
// Conflicts are settled by last writer wins on an internal version that
// clients never see: the writing Region's clock when the write commits,
// and the Region's name. The version of a local write is also made later
// than the version of the item it replaces (a write follows what it
// overwrote, whatever the clocks say), so a Region never keeps a value
// another Region would reject. A replicated change is applied only if its
// version is later than the replica's; equal timestamps go to the Region
// whose name sorts last. AWS documents last writer wins, not the version
// nor the tie-break: both are inferred.

// itemVersion is the last-writer-wins version of an item's latest change.
type itemVersion struct {
	at     int64  // the writing Region's clock, Unix nanoseconds
	region string // the writing Region
}

// after reports whether v wins over w under last writer wins.
func (v itemVersion) after(w itemVersion) bool {
	if v.at != w.at {
		return v.at > w.at
	}
	return v.region > w.region
}

// replicaLink makes a table a replica of a global table. Its fields are
// guarded by the table's mu, as its rows are.
type replicaLink struct {
	set    *regionSet
	region string
	// versions holds the version of every item the replica has seen
	// written, deleted ones included (their tombstones keep a late, older
	// write from bringing them back).
	versions map[string]itemVersion
	// applying is set while a replicated change is written, which is not
	// sent on again.
	applying bool
	// strongVers are the versions replicateStrong gave the changes of the
	// operation being committed, which prepare keeps.
	strongVers []itemVersion
	// pending are the versions of the changes being committed, and outbox
	// their entries for the other replicas (prepare); incoming are the
	// versions of the replicated changes applied before they commit.
	pending  []itemVersion
	outbox   []*replEntry
	incoming []itemVersion
	// forward are the replicated changes being applied that this Region
	// passes on to the replicas seeded from it (forwards).
	forward []*replEntry
}

// nextVersion is the version of a local write of key k at now: now in
// the Region, later than the version it replaces.
func (l *replicaLink) nextVersion(k string, now time.Time) itemVersion {
	v := itemVersion{at: now.UnixNano(), region: l.region}
	if prev, ok := l.versions[k]; ok && !v.after(prev) {
		v.at = prev.at + 1
	}
	return v
}

// replEntry is one item's change on its way to one replica.
type replEntry struct {
	seq       uint64
	table     string
	from, to  string
	key       []byte // the encoded table key
	val       []byte // the encoded item; nil for a deletion
	ver       itemVersion
	ttl       bool      // a deletion by TTL
	committed time.Time // when it committed in its Region
	due       time.Time // when it may be applied
	failed    bool      // its Region could not store it: delivered again
	// fanout names the Regions the write was sent to when it committed,
	// its own included; nil when unknown (MRSC, or a backlog kept by an
	// older engine), which is never passed on.
	fanout []string
}

// prepare gives the changes of the operation t is about to commit their
// versions and, for a local write, makes the entries for every other
// replica, so that the store can hold them with the rows (see
// saveReplication). The caller holds t.mu.
func (l *replicaLink) prepare(t *table, now time.Time) {
	l.pending, l.outbox = l.pending[:0], nil
	if l.applying {
		l.pending = append(l.pending, l.incoming...)
		l.incoming = l.incoming[:0]
		l.outbox, l.forward = l.forward, nil
		return
	}
	strong := len(l.strongVers) == len(t.changes)
	for i, c := range t.changes {
		v := l.nextVersion(string(c.key), now)
		if strong {
			v = l.strongVers[i]
		}
		l.pending = append(l.pending, v)
	}
	l.strongVers = l.strongVers[:0]
	r := l.set.repl
	tos := l.set.replicaRegions(t.name, l.region)
	fanout := append(tos[:len(tos):len(tos)], l.region)
	for _, to := range tos {
		for i, c := range t.changes {
			l.outbox = append(l.outbox, &replEntry{seq: r.nextSeq(), table: t.name, from: l.region, to: to,
				key: c.key, val: c.val, ver: l.pending[i], ttl: t.serviceWrite, committed: now, fanout: fanout})
		}
	}
}

// shipCommitted hands the entries of the operation t committed to the
// replicator; the caller holds t.mu.
func (l *replicaLink) shipCommitted(t *table) {
	for i, c := range t.changes {
		if i < len(l.pending) && l.pending[i].region != "" {
			l.versions[string(c.key)] = l.pending[i]
		}
	}
	l.pending = l.pending[:0]
	if len(l.outbox) > 0 {
		l.set.repl.enqueue(l.outbox)
	}
	l.outbox = nil
}

// entryHeap orders entries by due time, then by when they were made.
type entryHeap []*replEntry

func (h entryHeap) Len() int { return len(h) }
func (h entryHeap) Less(i, j int) bool {
	if !h[i].due.Equal(h[j].due) {
		return h[i].due.Before(h[j].due)
	}
	return h[i].seq < h[j].seq
}
func (h entryHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *entryHeap) Push(x any)   { *h = append(*h, x.(*replEntry)) }
func (h *entryHeap) Pop() any {
	old := *h
	n := len(old)
	x := old[n-1]
	old[n-1] = nil
	*h = old[:n-1]
	return x
}

// replicator holds every entry not yet applied and delivers them.
type replicator struct {
	set    *regionSet
	manual bool // no background delivery (Options.ManualReplication)

	mu      sync.Mutex
	queue   entryHeap
	seq     uint64
	rng     *rand.Rand
	faults  ReplicationFaults
	paused  bool
	cut     map[[2]string]bool // partitioned pairs, both orders
	down    map[string]bool    // crashed Regions
	lastDue map[string]time.Time
	latency map[latencyKey]*LatencyStats
	// arrivalOrder applies every entry as it arrives, without last
	// writer wins: a test switch that shows what the model test catches.
	arrivalOrder bool
	// noForwards never passes a replicated write on to the replicas
	// seeded from its destination (replicaLink.forwards): a test switch.
	noForwards bool

	wake     chan struct{}
	stopOnce sync.Once
	stopped  chan struct{}
	done     sync.WaitGroup
	started  bool
}

type latencyKey struct{ table, from, to string }

func newReplicator(set *regionSet, manual bool) *replicator {
	return &replicator{
		set: set, manual: manual,
		rng:     rand.New(rand.NewSource(1)),
		cut:     map[[2]string]bool{},
		down:    map[string]bool{},
		lastDue: map[string]time.Time{},
		latency: map[latencyKey]*LatencyStats{},
		wake:    make(chan struct{}, 1),
		stopped: make(chan struct{}),
	}
}

// nextSeq numbers an entry.
func (r *replicator) nextSeq() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq++
	return r.seq
}

// enqueue schedules entries after their lag.
func (r *replicator) enqueue(ens []*replEntry) {
	r.mu.Lock()
	for _, en := range ens {
		due := en.committed
		if r.faults.Lag != nil {
			due = due.Add(r.faults.Lag(r.rng))
		}
		// One item's changes reach a replica in the order they were made.
		order := en.to + "\x00" + en.table + "\x00" + string(en.key)
		if last, ok := r.lastDue[order]; ok && due.Before(last) {
			due = last
		}
		r.lastDue[order] = due
		en.due = due
		heap.Push(&r.queue, en)
	}
	started := r.started
	r.mu.Unlock()
	if !started && !r.manual {
		r.start()
	}
	r.poke()
}

// blocked reports whether an entry cannot be delivered now; the caller
// holds r.mu.
func (r *replicator) blocked(en *replEntry) bool {
	return r.paused || r.down[en.from] || r.down[en.to] || r.cut[[2]string{en.from, en.to}]
}

// takeDue removes and returns the entries that may be delivered by now
// (all deliverable ones when now is zero), in due order.
func (r *replicator) takeDue(now time.Time) []*replEntry {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out, held []*replEntry
	for r.queue.Len() > 0 {
		en := r.queue[0]
		if !now.IsZero() && en.due.After(now) {
			break
		}
		heap.Pop(&r.queue)
		if r.blocked(en) {
			held = append(held, en)
			continue
		}
		out = append(out, en)
	}
	for _, en := range held {
		heap.Push(&r.queue, en)
	}
	return out
}

// deliver applies entries in order, records their latency and removes
// them from their Regions' backlogs; it returns how many it removed.
func (r *replicator) deliver(ens []*replEntry, fastForward bool) int {
	var done []*replEntry
	defer func() { r.forget(done) }()
	for _, en := range ens {
		e := r.set.engines[en.to]
		if e == nil {
			continue
		}
		at := e.now()
		if fastForward && at.Before(en.due) {
			at = en.due
		}
		applied := e.applyReplicated(en, r.arrivalOrder)
		if en.failed {
			// Kept for a later delivery, as a Region that could not
			// write keeps its backlog.
			en.failed = false
			r.mu.Lock()
			heap.Push(&r.queue, en)
			r.mu.Unlock()
			continue
		}
		done = append(done, en)
		if applied {
			r.mu.Lock()
			k := latencyKey{en.table, en.from, en.to}
			s := r.latency[k]
			if s == nil {
				s = &LatencyStats{}
				r.latency[k] = s
			}
			s.add(at.Sub(en.committed))
			r.mu.Unlock()
		}
	}
	return len(done)
}

// start runs background delivery, once.
func (r *replicator) start() {
	r.mu.Lock()
	if r.started || r.manual {
		r.mu.Unlock()
		return
	}
	r.started = true
	r.done.Add(1)
	r.mu.Unlock()
	go r.loop()
}

func (r *replicator) stop() {
	r.stopOnce.Do(func() { close(r.stopped) })
	r.done.Wait()
}

// loop delivers due entries until stopped, sleeping until the next one
// is due or a new one arrives.
func (r *replicator) loop() {
	defer r.done.Done()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		r.deliver(r.takeDue(r.clock()), false)
		wait := time.Hour
		r.mu.Lock()
		if r.queue.Len() > 0 && !r.paused {
			wait = max(time.Millisecond, r.queue[0].due.Sub(r.clock()))
		}
		r.mu.Unlock()
		timer.Reset(wait)
		select {
		case <-r.stopped:
			return
		case <-r.wake:
		case <-timer.C:
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
	}
}

// clock is the unskewed time of the Regions.
func (r *replicator) clock() time.Time { return r.set.baseClock() }

// pending counts the entries not yet applied.
func (r *replicator) pending() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.queue.Len()
}

// dropFrom drops the entries a Region has not delivered yet.
func (r *replicator) dropFrom(region string) {
	var dropped []*replEntry
	defer func() { r.forget(dropped) }()
	r.mu.Lock()
	defer r.mu.Unlock()
	kept := r.queue[:0]
	for _, en := range r.queue {
		if en.from != region {
			kept = append(kept, en)
		} else {
			dropped = append(dropped, en)
		}
	}
	clear(r.queue[len(kept):])
	r.queue = kept
	heap.Init(&r.queue)
}

// dropTable drops the entries of a table on their way to a Region (every
// Region when to is "").
func (r *replicator) dropTable(table, to string) {
	var dropped []*replEntry
	defer func() { r.forget(dropped) }()
	r.mu.Lock()
	defer r.mu.Unlock()
	kept := r.queue[:0]
	for _, en := range r.queue {
		if en.table != table || (to != "" && en.to != to) {
			kept = append(kept, en)
		} else {
			dropped = append(dropped, en)
		}
	}
	clear(r.queue[len(kept):])
	r.queue = kept
	heap.Init(&r.queue)
}

// applyReplicated writes a replicated change to this Region's replica,
// unless the replica holds a later version of the item (or no replica of
// the table is here any more). It reports whether the change was applied.
func (e *Engine) applyReplicated(en *replEntry, arrivalOrder bool) bool {
	t := e.anyStatus(en.table)
	if t == nil {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.replica == nil || t.deleted {
		return false
	}
	l := t.replica
	l.applying = true
	defer func() { l.applying, l.incoming, l.forward = false, l.incoming[:0], nil }()
	if !e.applyLocked(t, en, arrivalOrder) {
		return false
	}
	if err := e.commit([]*table{t}, nil, false); err != nil {
		en.failed = true
		return false
	}
	return true
}

// applyLocked writes a replicated change to t, a replica, without
// committing it; the caller holds t.mu and has set applying. It reports
// whether the change was newer than the replica's item.
func (e *Engine) applyLocked(t *table, en *replEntry, arrivalOrder bool) bool {
	l := t.replica
	k := string(en.key)
	if cur, ok := l.versions[k]; ok && !arrivalOrder && !en.ver.after(cur) {
		return false
	}
	old, err := t.get(en.key)
	if err != nil {
		return false
	}
	next, err := decodeRaw(en.val)
	if err != nil {
		return false
	}
	fw := l.forwards(t.name, en)
	if old == nil && next == nil {
		l.versions[k] = en.ver
		if len(fw) > 0 {
			l.set.repl.enqueue(fw)
		}
		return true
	}
	l.forward = append(l.forward, fw...)
	l.incoming = append(l.incoming, en.ver)
	t.serviceWrite = en.ttl
	t.write(en.key, old, next, 0, e.now())
	t.serviceWrite = false
	return true
}

// forwards returns the copies of a replicated change that this Region owes
// the replicas seeded from its items after the change's Region sent it: a
// replica created while a third Region's write was on its way here was
// seeded without it, and its writer did not know of the replica. Each
// such replica gets it from here, once, under the same version; a change
// that reaches here after such a replica's seeding was not in the seed.
// The caller holds the replica's table lock, as createReplica does while
// seeding, so no change falls between the two.
func (l *replicaLink) forwards(table string, en *replEntry) []*replEntry {
	if en.fanout == nil || l.set.repl.noForwards {
		return nil
	}
	var tos []string
	l.set.mu.Lock()
	if g := l.set.groups[table]; g != nil {
		for r, st := range g.replicas {
			if st.seededFrom == l.region && !slices.Contains(en.fanout, r) {
				tos = append(tos, r)
			}
		}
	}
	l.set.mu.Unlock()
	if len(tos) == 0 {
		return nil
	}
	sort.Strings(tos)
	fanout := append(slices.Clip(en.fanout), tos...)
	out := make([]*replEntry, 0, len(tos))
	for _, to := range tos {
		out = append(out, &replEntry{seq: l.set.repl.nextSeq(), table: table, from: l.region, to: to, key: en.key, val: en.val,
			ver: en.ver, ttl: en.ttl, committed: en.committed, fanout: fanout})
	}
	return out
}

// LatencyStats are the ReplicationLatency figures of one table from one
// Region to another: the time from a write's commit in its Region to its
// application in the other, as CloudWatch's ReplicationLatency metric
// ("Monitoring global tables").
type LatencyStats struct {
	Count   int
	Average time.Duration
	Maximum time.Duration
	Last    time.Duration
	sum     time.Duration
}

func (s *LatencyStats) add(d time.Duration) {
	s.Count++
	s.sum += d
	s.Average = s.sum / time.Duration(s.Count)
	s.Maximum = max(s.Maximum, d)
	s.Last = d
}
