package ddblocal

import (
	"bytes"
	"encoding/binary"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/btree"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
)

// entry is one stored row: the encoded key followed by the encoded item, in
// a single allocation, which keeps a million small items well under 1 GB.
// pfx holds the key's first 16 bytes inline, so that most comparisons of a
// tree search end without reading kv, which is a cache miss of its own on a
// large table.
type entry struct {
	kv   []byte
	klen uint32
	size uint32 // attr.ItemSize of the item, for paging and capacity
	pfx  rowPrefix
}

func (e entry) key() []byte { return e.kv[:e.klen:e.klen] }
func (e entry) val() []byte { return e.kv[e.klen:] }

// probe is an entry for looking a key up.
func probe(key []byte) entry {
	return entry{kv: key, klen: uint32(len(key)), pfx: prefixOf(key)}
}

// rowPrefix is the first 16 bytes of an encoded key as two big-endian
// words, zero-padded. Padding keeps the order of keys: where two prefixes
// first differ, either both keys have a byte there, or the shorter key ends
// (a zero) while the longer has a byte above zero there (had it a zero,
// the prefixes would not differ there). Equal prefixes decide nothing.
type rowPrefix [2]uint64

func prefixOf(key []byte) rowPrefix {
	var b [16]byte
	copy(b[:], key)
	return rowPrefix{binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:])}
}

var scratch = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// newEntry encodes it after key into an exactly sized buffer.
func newEntry(key []byte, it attr.Item) entry {
	mustBeLive(it, "storing")
	bp := scratch.Get().(*[]byte)
	buf, size := attr.EncodeItemSized(append((*bp)[:0], key...), it)
	kv := make([]byte, len(buf))
	copy(kv, buf)
	if cap(buf) <= 64<<10 {
		*bp = buf[:0]
		scratch.Put(bp)
	}
	return entry{kv: kv, klen: uint32(len(key)), size: uint32(size), pfx: prefixOf(key)}
}

// joinEntry is an entry of key and an already encoded item of size bytes.
func joinEntry(key, val []byte, size uint32) entry {
	kv := make([]byte, len(key)+len(val))
	copy(kv, key)
	copy(kv[len(key):], val)
	return entry{kv: kv, klen: uint32(len(key)), size: size, pfx: prefixOf(key)}
}

// change is a row written by an operation, for the persistent store; val
// is nil for a deletion.
// change is one row written by the current operation: its new encoding
// (nil when deleted) and the one it replaced (nil when absent), which a
// failed commit restores.
type change struct {
	key  []byte
	val  []byte
	prev entry // the replaced row; prev.kv is nil when there was none
}

// old is the encoding of the replaced row, nil when there was none.
func (c change) old() []byte {
	if c.prev.kv == nil {
		return nil
	}
	return c.prev.val()
}

func entryLess(a, b entry) bool {
	if a.pfx[0] != b.pfx[0] {
		return a.pfx[0] < b.pfx[0]
	}
	if a.pfx[1] != b.pfx[1] {
		return a.pfx[1] < b.pfx[1]
	}
	return bytes.Compare(a.key(), b.key()) < 0
}

func newTree() *btree.BTreeG[entry] { return btree.NewG(32, entryLess) }

func btreeTTL() *btree.BTreeG[ttlEntry] { return btree.NewG(32, ttlLess) }

type keyAttr struct {
	name string
	typ  attr.Type
}

// keySchema is a partition key and an optional sort key (rng.name == "").
// A GSI may have a multi-attribute key, up to four partition and four sort
// attributes: hash and rng are then the first of each, and attrs lists them
// all (see multikey.go).
type keySchema struct {
	hash keyAttr
	rng  keyAttr
	// attrs is every key attribute in key schema order, the nHash partition
	// attributes first.
	attrs []keyAttr
	nHash int
}

// count is the number of key attributes.
func (k keySchema) count() int {
	switch {
	case k.attrs != nil:
		return len(k.attrs)
	case k.hash.name == "":
		return 0
	case k.rng.name == "":
		return 1
	}
	return 2
}

func (k keySchema) names() []string {
	if k.attrs == nil && k.hash.name != "" {
		k = k.withAttrs() // built from hash and rng alone
	}
	out := make([]string, len(k.attrs))
	for i, ka := range k.attrs {
		out[i] = ka.name
	}
	return out
}

type projection struct {
	typ    string // ALL, KEYS_ONLY or INCLUDE
	nonKey []string
}

// index is a global or local secondary index. Its rows are keyed by the
// index key followed by the table key, and hold the projected item.
type index struct {
	name   string
	local  bool
	keys   keySchema
	proj   projection
	tree   *btree.BTreeG[entry]
	size   int64
	rcu    int64
	wcu    int64
	status string

	// pending holds index writes that a GSI propagation delay holds back,
	// oldest first.
	pending []indexOp
}

type indexOp struct {
	at  time.Time
	del []byte // row key to remove, or nil
	put *entry // row to insert, or nil
}

type ttlEntry struct {
	exp int64
	key []byte
}

func ttlLess(a, b ttlEntry) bool {
	if a.exp != b.exp {
		return a.exp < b.exp
	}
	return bytes.Compare(a.key, b.key) < 0
}

type attrDef struct {
	name string
	typ  attr.Type
}

// table is one DynamoDB table. mu serialises writers (which gives
// serializable isolation: every operation, transactions included, runs
// entirely under the locks of the tables it touches).
type table struct {
	mu sync.RWMutex

	name               string
	id                 string
	arn                string
	created            time.Time
	keys               keySchema
	attrDefs           []attrDef
	billing            string
	rcu                int64
	wcu                int64
	deletionProtection bool

	// stream is the enabled stream, nil when there is none; latestStream
	// is the last one enabled, which DescribeTable names even after it is
	// disabled.
	stream       *stream
	latestStream *stream
	// serviceWrite marks the writes of the TTL sweeper, whose stream
	// records name DynamoDB's service as the user.
	serviceWrite bool

	items *rows
	size  int64
	gsis  []*index
	lsis  []*index

	ttlAttr    string
	ttlEnabled bool
	ttlTree    *btree.BTreeG[ttlEntry]

	pitr      bool
	pitrSince time.Time
	pitrDays  int      // RecoveryPeriodInDays; 0 is the default of 35
	hist      *history // the PITR history, nil while PITR is off
	// lastTx is the changes of the last transaction that wrote more than
	// one of the table's items, for the torn-backup fault.
	lastTx []change
	// restoreSummary is the RestoreSummary of a restored table.
	restoreSummary map[string]any

	tags map[string]string
	// transient is the table's CREATING or UPDATING, while it lasts
	// (transient.go).
	transient transientStatus
	// policies are the resource-based policies of the table and its
	// streams, by resource ARN (ops_policy.go).
	policies map[string]resourcePolicy

	// delayedWrites counts index writes held back by a GSI delay.
	delayedWrites atomic.Int64

	// persist is set when the engine keeps the table in its store; changes
	// then collects the rows written by the current operation.
	persist bool
	changes []change
	// streamChanges are the stream records of the current operation, for
	// the persistent store.
	streamChanges []streamChange
	// deleted is set (under mu) by DeleteTable; later writes are not stored.
	deleted bool
	// pendingMark is how many delayed index writes each index held before
	// the current operation's first change (see rollback); undoing is set
	// while rollback writes the replaced rows back.
	pendingMark []int
	undoing     bool

	// replica makes the table a replica of a global table (replication.go);
	// nil for every other table.
	replica *replicaLink
}

// locked runs fn under the write lock, released even if fn panics (the
// protocol layer recovers panics, and a lock left held would hang the table).
func (t *table) locked(fn func() error) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return fn()
}

// rlocked runs fn under the read lock.
func (t *table) rlocked(fn func()) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	fn()
}

func (t *table) indexes() []*index {
	// Most tables have one kind of index or none: no allocation then.
	if len(t.lsis) == 0 {
		return t.gsis[:len(t.gsis):len(t.gsis)]
	}
	if len(t.gsis) == 0 {
		return t.lsis[:len(t.lsis):len(t.lsis)]
	}
	out := make([]*index, 0, len(t.gsis)+len(t.lsis))
	out = append(out, t.gsis...)
	return append(out, t.lsis...)
}

func (t *table) index(name string) *index {
	for _, ix := range t.indexes() {
		if ix.name == name {
			return ix
		}
	}
	return nil
}

// itemKey extracts and validates the table key of a full item (PutItem).
func (t *table) itemKey(it attr.Item) ([]byte, error) {
	var buf []byte
	for _, ka := range []keyAttr{t.keys.hash, t.keys.rng} {
		if ka.name == "" {
			continue
		}
		v, ok := it[ka.name]
		if !ok {
			return nil, validationf("One or more parameter values were invalid: Missing the key %s in the item", ka.name)
		}
		if v.T != ka.typ {
			return nil, validationf("One or more parameter values were invalid: Type mismatch for key %s expected: %s actual: %s", ka.name, ka.typ, v.T)
		}
		if err := checkKeyValue(ka.name, v); err != nil {
			return nil, err
		}
		if err := checkKeySize(v, ka == t.keys.rng); err != nil {
			return nil, err
		}
		buf = appendKey(buf, v)
	}
	return buf, nil
}

// keyOf validates a Key parameter (exactly the key attributes) and encodes it.
func (t *table) keyOf(key attr.Item) ([]byte, error) {
	b, _, err := t.keyAndSize(key)
	return b, err
}

// keyAndSize is keyOf, with the size of the key attributes as
// attr.ItemSize counts them. The values are looked up by name, never by
// ranging over key: a map's iteration costs more than its lookups.
func (t *table) keyAndSize(key attr.Item) ([]byte, int, error) {
	if len(key) != t.keys.count() {
		return nil, 0, validationf("The provided key element does not match the schema")
	}
	var vals [2]attr.Value
	attrs := [2]keyAttr{t.keys.hash, t.keys.rng}
	room, size := 0, 0
	for i, ka := range attrs {
		if ka.name == "" {
			continue
		}
		v, ok := key[ka.name]
		if !ok || v.T != ka.typ {
			return nil, 0, validationf("The provided key element does not match the schema")
		}
		if err := checkKeyValue(ka.name, v); err != nil {
			return nil, 0, err
		}
		if err := checkKeySize(v, i == 1); err != nil {
			return nil, 0, err
		}
		vals[i] = v
		// Numbers encode to at most 3 bytes more than their text, strings
		// take a 2-byte terminator: one allocation per key, escapes aside.
		room += len(v.S) + 4
		size += len(ka.name) + v.Size()
	}
	buf := make([]byte, 0, room)
	for i, ka := range attrs {
		if ka.name != "" {
			buf = appendKey(buf, vals[i])
		}
	}
	return buf, size, nil
}

func checkKeyValue(name string, v attr.Value) error {
	if v.S == "" {
		if v.T == attr.B {
			return validationf("One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty binary value. Key: %s", name)
		}
		if v.T == attr.S {
			return validationf("One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: %s", name)
		}
	}
	return nil
}

// checkKeySize applies DynamoDB's key length limits.
func checkKeySize(v attr.Value, isRange bool) error {
	if !isRange && len(v.S) > 2048 {
		return validationf("One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of2048 bytes")
	}
	if isRange && len(v.S) > 1024 {
		return validationf("One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of 1024 bytes")
	}
	return nil
}

// keyItem returns only the table key attributes of it.
func (t *table) keyItem(it attr.Item) attr.Item {
	out := attr.Item{t.keys.hash.name: it[t.keys.hash.name]}
	if t.keys.rng.name != "" {
		out[t.keys.rng.name] = it[t.keys.rng.name]
	}
	return out
}

// indexKey returns the index row key for an item, or nil when the item
// lacks an index key attribute (a sparse index leaves it out). A key
// attribute of the wrong type is a ValidationException.
func (ix *index) rowKey(it attr.Item, tableKey []byte) ([]byte, error) {
	if it == nil {
		return nil, nil
	}
	mustBeLive(it, "index maintenance")
	var buf []byte
	for _, ka := range ix.keys.attrs {
		v, ok := it[ka.name]
		if !ok {
			return nil, nil
		}
		if v.T != ka.typ {
			return nil, validationf("One or more parameter values were invalid: Type mismatch for Index Key %s Expected: %s Actual: %s IndexName: %s", ka.name, ka.typ, v.T, ix.name)
		}
		if v.S == "" && (v.T == attr.S || v.T == attr.B) {
			return nil, validationf("One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty string value. IndexName: %s, IndexKey: %s", ix.name, ka.name)
		}
		buf = appendKey(buf, v)
	}
	return append(buf, tableKey...), nil
}

// project returns the attributes of it that the index stores.
func (t *table) project(ix *index, it attr.Item) attr.Item {
	if ix.proj.typ == "ALL" {
		return it
	}
	out := t.keyItem(it)
	for _, ka := range ix.keys.attrs {
		out[ka.name] = it[ka.name]
	}
	if ix.proj.typ == "INCLUDE" {
		for _, n := range ix.proj.nonKey {
			if v, ok := it[n]; ok {
				out[n] = v
			}
		}
	}
	return out
}

// checkIndexKeys validates the index key attributes of an item about to be
// written.
func (t *table) checkIndexKeys(it attr.Item) error {
	for _, ix := range t.indexes() {
		if _, err := ix.rowKey(it, nil); err != nil {
			return err
		}
	}
	return nil
}

// getRaw returns the encoded item stored under key.
func (t *table) getRaw(key []byte) ([]byte, bool) {
	e, ok := t.items.Get(probe(key))
	return e.val(), ok
}

// get returns the decoded item stored under key, or nil.
func (t *table) get(key []byte) (attr.Item, error) {
	raw, ok := t.getRaw(key)
	if !ok {
		return nil, nil
	}
	return decodeItem(raw)
}

// getSized is get with the item's attr.ItemSize, which its row records;
// the item may reuse the room of one given to releaseItem.
func (t *table) getSized(key []byte) (attr.Item, int, error) {
	e, ok := t.items.Get(probe(key))
	if !ok {
		return nil, 0, nil
	}
	it, err := decodeItemReusing(e.val())
	return it, int(e.size), err
}

// prior is what a write needs to know of the item it replaces: whether it
// exists, its size, its TTL expiry and, for index maintenance, the item
// itself. item is nil when the item does not exist, or when the caller has
// established that it is in no index (see inIndex) and has since reused it.
type prior struct {
	item   attr.Item
	exists bool
	size   int
	exp    int64
	hasExp bool
	// fromRow asks writeEntry to describe the row it replaces instead
	// (priorOfRow), for a write to a table without indexes or TTL that
	// needed nothing of it before.
	fromRow bool
}

// priorOfRow describes the replaced row en (en.kv nil when there was
// none) for a table that needs no more of it: one without indexes or TTL.
func priorOfRow(en entry) prior {
	if en.kv == nil {
		return prior{}
	}
	return prior{exists: true, size: int(en.size)}
}

// priorOf describes old (nil when absent) of size bytes; a negative size
// is computed.
func (t *table) priorOf(old attr.Item, size int) prior {
	if old == nil {
		return prior{}
	}
	if size < 0 {
		size = attr.ItemSize(old)
	}
	p := prior{item: old, exists: true, size: size}
	if t.ttlAttr != "" {
		p.exp, p.hasExp = ttlOf(old, t.ttlAttr)
	}
	return p
}

// inIndex reports whether the item has a row in some index of t.
func (t *table) inIndex(it attr.Item) bool {
	for _, ix := range t.indexes() {
		if row, _ := ix.rowKey(it, nil); row != nil {
			return true
		}
	}
	return false
}

// writeResult reports the capacity a write consumed, in write units, for
// the table and for each index it touched.
type writeResult struct {
	table   float64
	indexes []indexUnits
}

type indexUnits struct {
	ix    *index
	units float64
}

// write replaces the item under key: old is the current item (nil when
// absent) and next the new one (nil to delete). The caller holds t.mu and
// has validated next. now is used for GSI propagation delay.
func (t *table) write(key []byte, old, next attr.Item, gsiDelay time.Duration, now time.Time) writeResult {
	return t.writeEntry(key, t.priorOf(old, -1), next, nil, gsiDelay, now)
}

// writeEntry is write with the replaced item described by p and, unless
// row is nil, next's row already encoded by newEntry(key, next) (PutItem
// does that before taking the lock, UpdateItem while sizing the item).
func (t *table) writeEntry(key []byte, p prior, next attr.Item, row *entry, gsiDelay time.Duration, now time.Time) writeResult {
	res := writeResult{}
	var nextRaw, oldRaw []byte
	var replaced entry
	var nextSize int
	old, oldSize := p.item, p.size
	if next != nil {
		var en entry
		if row != nil {
			en = *row
		} else {
			en = newEntry(key, next)
		}
		key = en.key() // share the stored copy with the TTL order
		nextRaw = en.val()
		nextSize = int(en.size)
		if prev, had := t.items.ReplaceOrInsert(en); had {
			oldRaw, replaced = prev.val(), prev
		}
		if p.fromRow {
			p = priorOfRow(replaced)
			old, oldSize = p.item, p.size
		}
	} else if p.exists {
		if prev, had := t.items.Delete(probe(key)); had {
			oldRaw, replaced = prev.val(), prev
		}
	}
	if t.stream != nil {
		// The commit point of every write path: one record per item.
		t.capture(oldRaw, nextRaw, now)
	}
	t.size += int64(nextSize - oldSize)
	res.table = writeUnits(max(oldSize, nextSize))
	if t.persist || t.pitr || t.replica != nil {
		if len(t.changes) == 0 {
			t.markPending()
		}
		t.changes = append(t.changes, change{key: key, val: nextRaw, prev: replaced})
	}

	for _, ix := range t.indexes() {
		oldRow, _ := ix.rowKey(old, key)
		nextRow, _ := ix.rowKey(next, key)
		if oldRow == nil && nextRow == nil {
			continue
		}
		var oldProj, nextProj attr.Item
		if oldRow != nil {
			oldProj = t.project(ix, old)
		}
		if nextRow != nil {
			nextProj = t.project(ix, next)
		}
		sameRow := oldRow != nil && nextRow != nil && bytes.Equal(oldRow, nextRow)
		if sameRow && attr.EqualItems(oldProj, nextProj) {
			continue
		}
		units := 0.0
		op := indexOp{}
		if oldRow != nil && !sameRow {
			op.del = oldRow
			oldProjSize := attr.ItemSize(oldProj)
			units += writeUnits(oldProjSize)
			ix.size -= int64(oldProjSize)
		}
		if sameRow {
			ix.size -= int64(attr.ItemSize(oldProj))
		}
		if nextRow != nil {
			var en entry
			if ix.proj.typ == "ALL" && nextRaw != nil {
				// The index stores the whole item: reuse the table row's encoding.
				en = joinEntry(nextRow, nextRaw, uint32(nextSize))
			} else {
				en = newEntry(nextRow, nextProj)
			}
			op.put = &en
			units += writeUnits(int(en.size))
			ix.size += int64(en.size)
		}
		res.indexes = append(res.indexes, indexUnits{ix, units})
		if !ix.local && !t.undoing && (gsiDelay > 0 || len(ix.pending) > 0) {
			op.at = now.Add(gsiDelay)
			ix.pending = append(ix.pending, op)
			t.delayedWrites.Add(1)
			continue
		}
		ix.apply(op)
	}

	if t.ttlAttr != "" {
		if p.hasExp {
			t.ttlTree.Delete(ttlEntry{exp: p.exp, key: key})
		}
		if exp, ok := ttlOf(next, t.ttlAttr); ok {
			t.ttlTree.ReplaceOrInsert(ttlEntry{exp: exp, key: key})
		}
	}
	return res
}

// markPending notes how many delayed writes each global secondary index
// holds before the current operation writes, for rollback.
func (t *table) markPending() {
	t.pendingMark = t.pendingMark[:0]
	for _, ix := range t.gsis {
		t.pendingMark = append(t.pendingMark, len(ix.pending))
	}
}

func (ix *index) apply(op indexOp) {
	if op.del != nil {
		ix.tree.Delete(probe(op.del))
	}
	if op.put != nil {
		ix.tree.ReplaceOrInsert(*op.put)
	}
}

// drain applies the delayed index writes that are due at now. The caller
// holds t.mu for writing.
func (ix *index) drain(now time.Time) {
	n := 0
	for n < len(ix.pending) && !ix.pending[n].at.After(now) {
		ix.apply(ix.pending[n])
		n++
	}
	if n > 0 {
		ix.pending = append(ix.pending[:0:0], ix.pending[n:]...)
	}
}

// ttlOf returns the expiry of it in epoch seconds when its TTL attribute is
// a number.
func ttlOf(it attr.Item, name string) (int64, bool) {
	if it == nil {
		return 0, false
	}
	v, ok := it[name]
	if !ok || v.T != attr.N {
		return 0, false
	}
	d := attr.Decimal(v.S)
	f, err := d.Float64()
	if err != nil || f > math.MaxInt64/2 || f < math.MinInt64/2 {
		return 0, false
	}
	return int64(f), true
}

// writeUnits is the write capacity for an item of size bytes: one unit per
// started kilobyte, at least one.
func writeUnits(size int) float64 {
	return math.Max(1, math.Ceil(float64(size)/1024))
}

// readUnits is the read capacity for size bytes read: one unit per started
// 4 KB, at least one, half for an eventually consistent read.
func readUnits(size int, consistent bool) float64 {
	u := math.Max(1, math.Ceil(float64(size)/4096))
	if !consistent {
		u /= 2
	}
	return u
}
