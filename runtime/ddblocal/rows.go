package ddblocal

import (
	"bytes"
	"hash/maphash"
	"sync/atomic"

	"github.com/google/btree"
)

// rows are a table's items: a B-tree in key order for ranges and scans,
// and, in a live table, a hash index of the same cells for point reads and
// writes. A live table updates a row in place, in its cell, without
// searching the tree, unless a clone (a backup, a point-in-time copy) may
// still see the cell: Clone starts a new generation, and a cell of an older
// one is replaced by a new cell in the tree instead. The entries rows hand
// out are values whose kv is never written again, so a caller may keep one
// after releasing the table's lock.
//
// A live table makes its cells slabCells at a time, in one allocation: a
// cell of its own per row was an object more per row for the garbage
// collector to mark, a third of a large table's objects. A slab lives as
// long as one of its cells is referred to, so a cell that leaves the table
// lets go of its row, unless a clone may still read it (a stale cell):
// when the stale cells reach half as many as the rows, the table moves
// its rows to cells of its own (rehome), and the old slabs live only as
// long as the clones that read them.
//
// The caller holds the table's lock for a write and its read lock at
// least for a read. A snapshot (Clone's result) has no hash index, never
// updates a cell in place, and may be read without the table's lock.
type rows struct {
	tree *btree.BTreeG[slot]
	// point hashes a key to its cell; a key whose hash another key holds
	// there is in clash. Both are nil in a snapshot.
	point map[uint64]*cell
	clash map[string]*cell
	// hash is the hash of point; tests make keys collide with their own.
	hash func(key []byte) uint64
	// gen is the generation of the cells this rows may update in place; 0
	// in a snapshot, which updates none.
	gen uint64
	// slab is the room left for new cells of a live table.
	slab []cell
	// stale counts the cells of an older generation the table replaced or
	// deleted since it last moved its rows.
	stale int
}

// slabCells is the number of cells a live table makes at once.
const slabCells = 64

// slot is a tree element: the key's prefix inline, so that most
// comparisons end without reading the cell.
type slot struct {
	pfx rowPrefix
	c   *cell
}

// cell holds one row: en is replaced whole, never written into. A cell
// may be shared by a table and its clones, so besides the row it holds
// only the generation it was made in, never changed.
type cell struct {
	en  entry
	gen uint64
}

// generations numbers the generations of every table's rows, so that a
// cell is never of the generation of rows it did not start in.
var generations atomic.Uint64

var rowSeed = maphash.MakeSeed()

func rowHash(key []byte) uint64 { return maphash.Bytes(rowSeed, key) }

func slotLess(a, b slot) bool {
	if a.pfx[0] != b.pfx[0] {
		return a.pfx[0] < b.pfx[0]
	}
	if a.pfx[1] != b.pfx[1] {
		return a.pfx[1] < b.pfx[1]
	}
	return bytes.Compare(a.c.en.key(), b.c.en.key()) < 0
}

// newRows is an empty live table's rows.
func newRows() *rows { return newSnapshot().live() }

// newSnapshot is empty rows to fill as a snapshot (a backup read from the
// store).
func newSnapshot() *rows { return &rows{tree: btree.NewG(32, slotLess)} }

// newCell is a cell of the current generation holding en, from the slab.
func (r *rows) newCell(en entry) *cell {
	if len(r.slab) == 0 {
		r.slab = make([]cell, slabCells)
	}
	c := &r.slab[0]
	r.slab = r.slab[1:]
	c.en, c.gen = en, r.gen
	return c
}

// staled counts a cell of an older generation left by the table, and
// moves the rows to new cells when they reach half as many as the rows.
func (r *rows) staled() {
	r.stale++
	if r.stale > slabCells && 2*r.stale > r.tree.Len() {
		r.rehome()
	}
}

// rehome moves every row of a live table to a new cell of the current
// generation, in a new tree and hash index, so that no slab of an older
// generation is kept alive by the table.
func (r *rows) rehome() {
	tree := newSnapshot().tree
	r.point, r.clash, r.slab, r.stale = make(map[uint64]*cell, r.tree.Len()), nil, nil, 0
	r.tree.Ascend(func(s slot) bool {
		c := r.newCell(s.c.en)
		r.index(r.hash(c.en.key()), c)
		tree.ReplaceOrInsert(slot{pfx: s.pfx, c: c})
		return true
	})
	r.tree = tree
}

// pivot is a tree element for looking en's key up.
func pivot(en entry) slot { return slot{pfx: en.pfx, c: &cell{en: en}} }

// Len is the number of rows.
func (r *rows) Len() int { return r.tree.Len() }

// find is the cell of key (nil when absent) and the hash of key.
func (r *rows) find(key []byte) (*cell, uint64) {
	h := r.hash(key)
	if c := r.point[h]; c != nil && bytes.Equal(c.en.key(), key) {
		return c, h
	}
	if len(r.clash) == 0 {
		return nil, h
	}
	return r.clash[string(key)], h
}

// index files c under its key, whose hash is h, replacing the cell of
// that key: in point, unless another key holds h there or the key is in
// clash already.
func (r *rows) index(h uint64, c *cell) {
	k := c.en.key()
	at := r.point[h]
	if at != nil && bytes.Equal(at.en.key(), k) {
		r.point[h] = c
		return
	}
	if _, clashed := r.clash[string(k)]; at == nil && !clashed {
		r.point[h] = c
		return
	}
	if r.clash == nil {
		r.clash = map[string]*cell{}
	}
	r.clash[string(k)] = c
}

// unindex removes the cell of key, whose hash is h.
func (r *rows) unindex(h uint64, key []byte) {
	if at := r.point[h]; at != nil && bytes.Equal(at.en.key(), key) {
		delete(r.point, h)
		return
	}
	delete(r.clash, string(key))
}

// Get returns the row of probe's key.
func (r *rows) Get(probe entry) (entry, bool) {
	if r.point == nil {
		s, ok := r.tree.Get(pivot(probe))
		return s.en(), ok
	}
	if c, _ := r.find(probe.key()); c != nil {
		return c.en, true
	}
	return entry{}, false
}

// en is the slot's row (none for the zero slot).
func (s slot) en() entry {
	if s.c == nil {
		return entry{}
	}
	return s.c.en
}

// ReplaceOrInsert stores en under its key and returns the row it replaced.
func (r *rows) ReplaceOrInsert(en entry) (entry, bool) {
	if r.point == nil {
		s, had := r.tree.ReplaceOrInsert(slot{pfx: en.pfx, c: &cell{en: en}})
		return s.en(), had
	}
	c, h := r.find(en.key())
	switch {
	case c == nil:
		c = r.newCell(en)
		r.index(h, c)
		r.tree.ReplaceOrInsert(slot{pfx: en.pfx, c: c})
		return entry{}, false
	case c.gen == r.gen:
		prev := c.en
		c.en = en
		return prev, true
	}
	// A clone may see c: a new cell takes its place here only.
	fresh := r.newCell(en)
	r.index(h, fresh)
	r.tree.ReplaceOrInsert(slot{pfx: en.pfx, c: fresh})
	prev := c.en
	r.staled()
	return prev, true
}

// Delete removes the row of probe's key and returns it.
func (r *rows) Delete(probe entry) (entry, bool) {
	if r.point == nil {
		s, had := r.tree.Delete(pivot(probe))
		return s.en(), had
	}
	c, h := r.find(probe.key())
	if c == nil {
		return entry{}, false
	}
	r.unindex(h, c.en.key())
	r.tree.Delete(slot{pfx: c.en.pfx, c: c})
	prev := c.en
	if c.gen == r.gen {
		c.en = entry{} // no clone reads it: its slab keeps the row no longer
	} else {
		r.staled()
	}
	return prev, true
}

// Clone is a snapshot of the rows, O(1): the tree is copied on write, and
// the cells it shares are never updated in place again. The caller holds
// the table's write lock (two clones must not run at once).
func (r *rows) Clone() *rows {
	s := &rows{tree: r.tree.Clone(), hash: r.hash}
	if r.point != nil {
		r.gen = generations.Add(1)
	}
	return s
}

// live makes a snapshot the rows of a live table, indexing every cell;
// none of them is updated in place (a clone may share it).
func (r *rows) live() *rows {
	if r.point != nil {
		return r
	}
	r.point = make(map[uint64]*cell, r.tree.Len())
	r.gen = generations.Add(1)
	if r.hash == nil {
		r.hash = rowHash
	}
	r.tree.Ascend(func(s slot) bool {
		r.index(r.hash(s.c.en.key()), s.c)
		return true
	})
	return r
}

// visit wraps an iterator over entries as one over slots.
func visit(it btree.ItemIteratorG[entry]) btree.ItemIteratorG[slot] {
	return func(s slot) bool { return it(s.c.en) }
}

// Ascend visits every row in key order.
func (r *rows) Ascend(it btree.ItemIteratorG[entry]) { r.tree.Ascend(visit(it)) }

// Descend visits every row in reverse key order.
func (r *rows) Descend(it btree.ItemIteratorG[entry]) { r.tree.Descend(visit(it)) }

// AscendRange visits the rows from lo (inclusive) to hi (exclusive).
func (r *rows) AscendRange(lo, hi entry, it btree.ItemIteratorG[entry]) {
	r.tree.AscendRange(pivot(lo), pivot(hi), visit(it))
}

// AscendGreaterOrEqual visits the rows from p on.
func (r *rows) AscendGreaterOrEqual(p entry, it btree.ItemIteratorG[entry]) {
	r.tree.AscendGreaterOrEqual(pivot(p), visit(it))
}

// DescendLessOrEqual visits the rows from p down.
func (r *rows) DescendLessOrEqual(p entry, it btree.ItemIteratorG[entry]) {
	r.tree.DescendLessOrEqual(pivot(p), visit(it))
}

// entryTree is what reading a range needs of a tree of entries: a
// table's rows or an index's tree.
type entryTree interface {
	Ascend(btree.ItemIteratorG[entry])
	Descend(btree.ItemIteratorG[entry])
	AscendRange(lo, hi entry, it btree.ItemIteratorG[entry])
	AscendGreaterOrEqual(p entry, it btree.ItemIteratorG[entry])
	DescendLessOrEqual(p entry, it btree.ItemIteratorG[entry])
	Len() int
}

var (
	_ entryTree = (*rows)(nil)
	_ entryTree = (*btree.BTreeG[entry])(nil)
)
