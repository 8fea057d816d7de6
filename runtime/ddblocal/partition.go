package ddblocal

import (
	"sort"
	"sync"
	"time"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
	"github.com/oncetable/oncetable/runtime/ddblocal/expr"
)

// PartitionThroughput limits the throughput of each partition-key value of
// every table and global secondary index, as DynamoDB limits each of its
// partitions. It is a simplified model: every partition-key value is its
// own partition (DynamoDB groups many values into one partition and splits
// hot ones), and each has one token bucket for reads and one for writes.
// The zero value leaves throughput unlimited.
type PartitionThroughput struct {
	// Enabled turns the limits on. Default: off.
	Enabled bool

	// ReadUnits is the read capacity units per second each partition-key
	// value serves. Default: 3,000, DynamoDB's per-partition limit.
	ReadUnits float64

	// WriteUnits is the write capacity units per second each
	// partition-key value serves. Default: 1,000, DynamoDB's per-partition
	// limit.
	WriteUnits float64

	// Burst is how many seconds of unused capacity a partition keeps: a
	// bucket holds at most Burst times its rate. Default: one second
	// (DynamoDB keeps up to 300 seconds for a table as a whole).
	Burst time.Duration
}

// The reasons of a ThrottlingReason for a partition-key value that exceeds
// its throughput.
const (
	ReasonTableReadKeyRange  = "TableReadKeyRangeThroughputExceeded"
	ReasonTableWriteKeyRange = "TableWriteKeyRangeThroughputExceeded"
	ReasonIndexReadKeyRange  = "IndexReadKeyRangeThroughputExceeded"
	ReasonIndexWriteKeyRange = "IndexWriteKeyRangeThroughputExceeded"
)

// throttledMessage is what DynamoDB says when a key range is throttled.
const throttledMessage = "Throughput exceeds the current capacity for one or more partition key values of your table or index. Consider distributing the load across more partition key values."

// partKey names one bucket: a partition-key value of a table or index.
type partKey struct {
	table string
	index string // "" for the table itself
	part  string // the partition-key values, encoded
	write bool
}

type bucket struct {
	tokens float64
	at     time.Time
}

// charge is the units a request takes from one bucket; resource is the
// table or index ARN a throttle names.
type charge struct {
	key      partKey
	units    float64
	resource string
}

// partitionLimiter holds the buckets. A full bucket is the same as none, so
// full buckets are dropped now and then to bound the map.
type partitionLimiter struct {
	clock       func() time.Time
	read, write float64
	burst       float64 // seconds

	mu      sync.Mutex
	buckets map[partKey]*bucket
	added   int
	counts  map[string]int64
	keys    map[throttledKey]int64
}

// throttledKey is one partition-key value of a table or index that was
// throttled, and why.
type throttledKey struct {
	resource, part, reason string
}

// maxThrottledKeys bounds the distinct keys ThrottledKeys remembers; once
// it is reached, only the keys already seen are counted.
const maxThrottledKeys = 4096

func newPartitionLimiter(p PartitionThroughput, clock func() time.Time) *partitionLimiter {
	if !p.Enabled {
		return nil
	}
	l := &partitionLimiter{clock: clock, read: p.ReadUnits, write: p.WriteUnits, burst: p.Burst.Seconds(),
		buckets: map[partKey]*bucket{}, counts: map[string]int64{}, keys: map[throttledKey]int64{}}
	if l.read <= 0 {
		l.read = 3000
	}
	if l.write <= 0 {
		l.write = 1000
	}
	if l.burst <= 0 {
		l.burst = 1
	}
	return l
}

// take takes every charge, or none when one bucket has not enough tokens;
// it returns the index of that charge, or -1. A full bucket admits any
// request, going into debt, so that no request is too large ever to pass.
func (l *partitionLimiter) take(cs []charge) int {
	now := l.clock()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.added >= 4096 {
		// Before the charges are looked at, so that none of their
		// buckets is dropped between the check and the taking.
		l.prune(now)
	}
	for i, c := range cs {
		b := l.refill(c.key, now)
		if b.tokens < c.units && b.tokens < l.capacity(c.key.write) {
			l.count(c)
			return i
		}
	}
	for _, c := range cs {
		l.buckets[c.key].tokens -= c.units
	}
	return -1
}

func (l *partitionLimiter) capacity(write bool) float64 {
	if write {
		return l.write * l.burst
	}
	return l.read * l.burst
}

// refill returns the bucket of k with the tokens earned since it was last
// seen. The caller holds l.mu.
func (l *partitionLimiter) refill(k partKey, now time.Time) *bucket {
	b, ok := l.buckets[k]
	if !ok {
		l.added++
		b = &bucket{tokens: l.capacity(k.write), at: now}
		l.buckets[k] = b
		return b
	}
	rate := l.read
	if k.write {
		rate = l.write
	}
	if d := now.Sub(b.at); d > 0 {
		b.tokens = min(l.capacity(k.write), b.tokens+rate*d.Seconds())
		b.at = now
	}
	return b
}

// prune drops the buckets that have refilled. The caller holds l.mu.
func (l *partitionLimiter) prune(now time.Time) {
	l.added = 0
	for k, b := range l.buckets {
		rate := l.read
		if k.write {
			rate = l.write
		}
		if b.tokens+rate*now.Sub(b.at).Seconds() >= l.capacity(k.write) {
			delete(l.buckets, k)
		}
	}
}

// count records a throttle of c. The caller holds l.mu.
func (l *partitionLimiter) count(c charge) {
	reason := reasonOf(c.key)
	l.counts[reason]++
	k := throttledKey{resource: c.resource, part: c.key.part, reason: reason}
	if _, ok := l.keys[k]; ok || len(l.keys) < maxThrottledKeys {
		l.keys[k]++
	}
}

func (l *partitionLimiter) snapshot() map[string]int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[string]int64, len(l.counts))
	for r, n := range l.counts {
		out[r] = n
	}
	return out
}

func reasonOf(k partKey) string {
	switch {
	case k.index == "" && k.write:
		return ReasonTableWriteKeyRange
	case k.index == "":
		return ReasonTableReadKeyRange
	case k.write:
		return ReasonIndexWriteKeyRange
	}
	return ReasonIndexReadKeyRange
}

// ThrottleCounts counts the requests (and transaction or batch items)
// throttled by PartitionThroughput so far, by throttling reason. It is
// empty when the limits are off.
func (e *Engine) ThrottleCounts() map[string]int64 {
	if e.parts == nil {
		return map[string]int64{}
	}
	return e.parts.snapshot()
}

// ThrottledKey is a partition-key value that PartitionThroughput
// throttled, with the table or index and the reason: what CloudWatch
// Contributor Insights for DynamoDB reports as the most throttled keys.
type ThrottledKey struct {
	// Resource is the ARN of the table or index, as in ThrottlingReasons.
	Resource string
	// Key is the partition-key value: a string as its text, a number as
	// its digits, binary as hex; the values of a multi-attribute key are
	// joined by " | ".
	Key string
	// Reason is the throttling reason, such as ReasonIndexWriteKeyRange.
	Reason string
	// Count is how many requests (or transaction and batch items) it
	// throttled.
	Count int64
}

// ThrottledKeys lists the partition-key values throttled so far, most
// throttled first (then by resource and key). It is empty when the limits
// are off; it keeps at most 4,096 distinct keys.
func (e *Engine) ThrottledKeys() []ThrottledKey {
	if e.parts == nil {
		return []ThrottledKey{}
	}
	e.parts.mu.Lock()
	out := make([]ThrottledKey, 0, len(e.parts.keys))
	for k, n := range e.parts.keys {
		out = append(out, ThrottledKey{Resource: k.resource, Key: describePartition(k.part), Reason: k.reason, Count: n})
	}
	e.parts.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		if a.Resource != b.Resource {
			return a.Resource < b.Resource
		}
		return a.Key < b.Key
	})
	return out
}

// throttled is the error of a request that c throttled.
func throttled(c charge) *APIError {
	ae := newError(CodeProvisionedThroughputExceeded, throttledMessage)
	ae.Extra = map[string]any{"ThrottlingReasons": []map[string]string{{"reason": reasonOf(c.key), "resource": c.resource}}}
	return ae
}

// partitionOf encodes the partition-key values of it under ks, or returns
// false when it has none (an item outside a sparse index).
func partitionOf(ks keySchema, it attr.Item) (string, bool) {
	if it == nil {
		return "", false
	}
	attrs := ks.attrs
	n := ks.nHash
	if len(attrs) == 0 {
		attrs, n = []keyAttr{ks.hash}, 1
	}
	var buf []byte
	for _, ka := range attrs[:max(n, 1)] {
		v, ok := it[ka.name]
		if !ok {
			return "", false
		}
		buf = appendKey(buf, v)
	}
	return string(buf), true
}

// addCharge adds units to the charge of the same bucket in cs, or appends one.
func addCharge(cs []charge, k partKey, units float64, resource string) []charge {
	for i := range cs {
		if cs[i].key == k {
			cs[i].units += units
			return cs
		}
	}
	return append(cs, charge{key: k, units: units, resource: resource})
}

func (t *table) indexARN(ix *index) string { return t.arn + "/index/" + ix.name }

// rowChange is a write to one item as the partition limits see it: old
// (of oldSize bytes, nil when absent) replaced by next (of nextSize bytes,
// nil to delete); key holds the item's key attributes, for a delete of an
// absent item.
type rowChange struct {
	key      attr.Item
	old      attr.Item
	oldSize  int
	next     attr.Item
	nextSize int
}

// writeCharges appends what c takes from the partitions of the table and of
// its global secondary indexes, in the units writeEntry reports, times
// factor (2 in a transaction). Local index rows count on the table's
// partition, which they share. The caller holds t.mu.
func (t *table) writeCharges(cs []charge, c rowChange, factor float64) []charge {
	item := c.next
	if item == nil {
		item = c.old
	}
	if item == nil {
		item = c.key
	}
	part, _ := partitionOf(t.keys, item)
	tableKey := partKey{table: t.name, part: part, write: true}
	cs = addCharge(cs, tableKey, factor*writeUnits(max(c.oldSize, c.nextSize)), t.arn)
	for _, ix := range t.indexes() {
		cs = t.indexCharges(cs, ix, tableKey, c, factor)
	}
	return cs
}

// indexCharges appends the charges of c's rows in ix; see writeCharges.
func (t *table) indexCharges(cs []charge, ix *index, tableKey partKey, c rowChange, factor float64) []charge {
	oldRow, _ := ix.rowKey(c.old, nil)
	nextRow, _ := ix.rowKey(c.next, nil)
	if oldRow == nil && nextRow == nil {
		return cs
	}
	var oldProj, nextProj attr.Item
	if oldRow != nil {
		oldProj = t.project(ix, c.old)
	}
	if nextRow != nil {
		nextProj = t.project(ix, c.next)
	}
	sameRow := oldRow != nil && nextRow != nil && string(oldRow) == string(nextRow)
	if sameRow && attr.EqualItems(oldProj, nextProj) {
		return cs
	}
	row := func(it, proj attr.Item) {
		units := factor * writeUnits(attr.ItemSize(proj))
		if ix.local {
			cs = addCharge(cs, tableKey, units, t.arn)
			return
		}
		p, _ := partitionOf(ix.keys, it)
		cs = addCharge(cs, partKey{table: t.name, index: ix.name, part: p, write: true}, units, t.indexARN(ix))
	}
	if oldRow != nil && !sameRow {
		row(c.old, oldProj)
	}
	if nextRow != nil {
		row(c.next, nextProj)
	}
	return cs
}

// chargeWrite takes a single-item write's units, before it is applied, or
// returns the throttling error. The caller holds t.mu.
func (e *Engine) chargeWrite(t *table, c rowChange) error {
	cs := t.writeCharges(nil, c, 1)
	if i := e.parts.take(cs); i >= 0 {
		return throttled(cs[i])
	}
	return nil
}

// readCharge is a read of units from the partition of item (a key or an
// item) on the table, or on ix when not nil.
func (t *table) readCharge(ix *index, item attr.Item, units float64) charge {
	if ix == nil || ix.local {
		p, _ := partitionOf(t.keys, item)
		return charge{key: partKey{table: t.name, part: p}, units: units, resource: t.arn}
	}
	p, _ := partitionOf(ix.keys, item)
	return charge{key: partKey{table: t.name, index: ix.name, part: p}, units: units, resource: t.indexARN(ix)}
}

// chargeRead takes a read's units, or returns the throttling error.
func (e *Engine) chargeRead(c charge) error {
	if e.parts.take([]charge{c}) >= 0 {
		return throttled(c)
	}
	return nil
}

// chargeQuery takes the units of a query's page from the partition its key
// condition names.
func (e *Engine) chargeQuery(r *reader, q *expr.KeyQuery, p *page) error {
	var part []byte
	for _, v := range q.PartitionValues {
		part = appendKey(part, v)
	}
	units := readUnits(p.bytes, r.in.ConsistentRead) + p.extraRCU
	c := charge{key: partKey{table: r.t.name, part: string(part)}, units: units, resource: r.t.arn}
	if r.ix != nil && !r.ix.local {
		c.key.index, c.resource = r.ix.name, r.t.indexARN(r.ix)
	}
	return e.chargeRead(c)
}

// chargeTxWrite takes the units of a TransactWriteItems whose items have
// all been evaluated, before any is applied. When a partition has not
// enough, the transaction is cancelled with a ThrottlingError reason on the
// item that needs it, as DynamoDB does. The caller holds the tables' locks.
func (e *Engine) chargeTxWrite(ops []*txOp) error {
	var cs []charge
	var owner []int
	for i, op := range ops {
		if op.write {
			cs = op.t.writeCharges(cs, op.rowChange(), 2)
		} else {
			c := op.t.readCharge(nil, op.keyItem(), 2*writeUnits(attr.ItemSize(op.old)))
			c.key.write = true
			cs = addCharge(cs, c.key, c.units, c.resource)
		}
		for len(owner) < len(cs) {
			owner = append(owner, i)
		}
	}
	i := e.parts.take(cs)
	if i < 0 {
		return nil
	}
	return throttledTx(len(ops), owner[i])
}

func (op *txOp) keyItem() attr.Item {
	if op.act.Key != nil {
		return op.act.Key
	}
	return op.act.Item
}

func (op *txOp) rowChange() rowChange {
	c := rowChange{key: op.keyItem(), old: op.old, next: op.next}
	if op.old != nil {
		c.oldSize = attr.ItemSize(op.old)
	}
	if op.row != nil {
		c.nextSize = int(op.row.size)
	} else if op.next != nil {
		c.nextSize = attr.ItemSize(op.next)
	}
	return c
}

// chargeBatchGet takes the units of one BatchGetItem key (encoded as key)
// from its partition. The caller holds t.mu for reading.
func (e *Engine) chargeBatchGet(t *table, keyItem attr.Item, key []byte, consistent bool) error {
	size := 0
	if en, ok := t.items.Get(probe(key)); ok {
		size = int(en.size)
	}
	return e.chargeRead(t.readCharge(nil, keyItem, readUnits(size, consistent)))
}

// chargeBatchWrite takes the units of one BatchWriteItem request, old being
// the item it replaces and next the item it puts (nil for a delete). The
// caller holds t.mu.
func (e *Engine) chargeBatchWrite(t *table, req writeRequest, old, next attr.Item) error {
	c := rowChange{old: old, next: next}
	if req.DeleteRequest != nil {
		c.key = req.DeleteRequest.Key
	}
	if old != nil {
		c.oldSize = attr.ItemSize(old)
	}
	if next != nil {
		c.nextSize = attr.ItemSize(next)
	}
	return e.chargeWrite(t, c)
}

// chargeTxRead takes the units of a TransactGetItems, one charge per item
// in order, or cancels it with a ThrottlingError reason on the item whose
// partition has not enough.
func (e *Engine) chargeTxRead(reads []charge) error {
	var cs []charge
	owner := make([]int, 0, len(reads))
	for i, c := range reads {
		cs = addCharge(cs, c.key, c.units, c.resource)
		for len(owner) < len(cs) {
			owner = append(owner, i)
		}
	}
	i := e.parts.take(cs)
	if i < 0 {
		return nil
	}
	return throttledTx(len(reads), owner[i])
}

// throttledTx cancels a transaction of n items whose item i is throttled.
func throttledTx(n, i int) error {
	reasons := make([]cancellationReason, n)
	for j := range reasons {
		reasons[j] = cancellationReason{Code: "None"}
	}
	reasons[i] = cancellationReason{Code: "ThrottlingError", Message: throttledMessage}
	return transactionCanceled(reasons)
}
