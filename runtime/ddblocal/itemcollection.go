package ddblocal

import (
	"math"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
)

// Item collections (Developer Guide, "Item collections in Local Secondary
// Indexes"): in a table with a local secondary index, the items that share
// a partition key value, with their index rows, form an item collection of
// at most 10 GB. A write that would make one larger fails with
// ItemCollectionSizeLimitExceededException, and a write asked for
// ReturnItemCollectionMetrics=SIZE reports the collection it touched
// (API Reference, "ItemCollectionMetrics"). Tables without a local
// secondary index have no such limit and report nothing.

// CodeItemCollectionSizeLimitExceeded is the error of a write that would
// make an item collection larger than its limit.
const CodeItemCollectionSizeLimitExceeded = "ItemCollectionSizeLimitExceededException"

// defaultItemCollectionLimit is DynamoDB's 10 GB.
const defaultItemCollectionLimit = 10 << 30

const bytesPerGB = 1 << 30

func (e *Engine) itemCollectionLimit() int64 {
	if e.opts.ItemCollectionSizeLimit > 0 {
		return e.opts.ItemCollectionSizeLimit
	}
	return defaultItemCollectionLimit
}

// partitionPrefix is the encoded partition key of it, with which the keys
// of its table rows and its local index rows begin; nil without one.
func (t *table) partitionPrefix(it attr.Item) []byte {
	v, ok := it[t.keys.hash.name]
	if !ok {
		return nil
	}
	return appendKey(nil, v)
}

// collectionBytes is what it adds to its item collection: its size and
// that of its rows in the local secondary indexes.
func (t *table) collectionBytes(it attr.Item) int64 {
	if it == nil {
		return 0
	}
	n := int64(attr.ItemSize(it))
	for _, ix := range t.lsis {
		if row, _ := ix.rowKey(it, nil); row != nil {
			n += int64(attr.ItemSize(t.project(ix, it)))
		}
	}
	return n
}

// collectionSize sums the table rows and local index rows of the
// partition whose encoded key is prefix. The caller holds t.mu.
func (t *table) collectionSize(prefix []byte) int64 {
	var n int64
	add := func(en entry) bool { n += int64(en.size); return true }
	end := prefixEnd(prefix)
	for _, tree := range t.collectionTrees() {
		if end == nil {
			tree.AscendGreaterOrEqual(probe(prefix), add)
		} else {
			tree.AscendRange(probe(prefix), probe(end), add)
		}
	}
	return n
}

// collectionTrees are the trees whose rows make up item collections.
func (t *table) collectionTrees() []entryTree {
	trees := []entryTree{t.items}
	for _, ix := range t.lsis {
		trees = append(trees, ix.tree)
	}
	return trees
}

// checkItemCollection refuses writing next over an item that took
// oldBytes of its collection (see collectionBytes) when that makes the
// collection larger than the limit. The caller holds t.mu. Only a table
// with a local secondary index has the limit, and the partition is only
// summed when the whole table could exceed it.
func (e *Engine) checkItemCollection(t *table, oldBytes int64, next attr.Item) error {
	if len(t.lsis) == 0 || next == nil {
		return nil
	}
	grow := t.collectionBytes(next) - oldBytes
	if grow <= 0 {
		return nil
	}
	limit := e.itemCollectionLimit()
	total := t.size
	for _, ix := range t.lsis {
		total += ix.size
	}
	if total+grow <= limit {
		return nil
	}
	if t.collectionSize(t.partitionPrefix(next))+grow > limit {
		return newError(CodeItemCollectionSizeLimitExceeded, "Item collection size limit exceeded")
	}
	return nil
}

// itemCollectionMetrics describes the item collection of it after a write,
// when mode is SIZE and t has a local secondary index; nil otherwise. The
// caller holds t.mu.
func (t *table) itemCollectionMetrics(mode string, it attr.Item) map[string]any {
	if mode != "SIZE" || len(t.lsis) == 0 || it == nil {
		return nil
	}
	v, ok := it[t.keys.hash.name]
	if !ok {
		return nil
	}
	return map[string]any{
		"ItemCollectionKey":   attr.Item{t.keys.hash.name: v},
		"SizeEstimateRangeGB": sizeEstimateGB(t.collectionSize(appendKey(nil, v))),
	}
}

// sizeEstimateGB is the whole-gigabyte range the size lies in, as the
// two-element estimate DynamoDB returns.
func sizeEstimateGB(bytes int64) []float64 {
	lo := math.Floor(float64(bytes) / bytesPerGB)
	return []float64{lo, lo + 1}
}

// collectionBytes is what the replaced item took of its collection. An
// item updated in place (p.item nil) was in no index: its size alone.
func (p prior) collectionBytes(t *table) int64 {
	if p.item == nil {
		return int64(p.size)
	}
	return t.collectionBytes(p.item)
}

// collectionReport gathers the ItemCollectionMetrics of a BatchWriteItem
// or TransactWriteItems: per table, one entry per item collection written.
type collectionReport struct {
	mode   string
	byName map[string][]map[string]any
	seen   map[string]bool
}

func newCollectionReport(mode string) *collectionReport {
	return &collectionReport{mode: mode}
}

// add reports the collection of it (the item written, or deleted) once per
// collection. The caller holds t.mu, after the write.
func (r *collectionReport) add(t *table, it attr.Item) {
	if r.mode != "SIZE" || len(t.lsis) == 0 || it == nil {
		return
	}
	id := t.name + "\x00" + string(t.partitionPrefix(it))
	if r.seen[id] {
		return
	}
	if r.seen == nil {
		r.seen, r.byName = map[string]bool{}, map[string][]map[string]any{}
	}
	r.seen[id] = true
	if m := t.itemCollectionMetrics(r.mode, it); m != nil {
		r.byName[t.name] = append(r.byName[t.name], m)
	}
}

// addTo sets out's ItemCollectionMetrics when any collection was reported.
func (r *collectionReport) addTo(out map[string]any) {
	if len(r.byName) > 0 {
		out["ItemCollectionMetrics"] = r.byName
	}
}

// checkCollectionOf is checkItemCollection for writing next under key,
// reading the item it replaces. The caller holds t.mu.
func (e *Engine) checkCollectionOf(t *table, key []byte, next attr.Item) error {
	if len(t.lsis) == 0 {
		return nil
	}
	old, err := t.get(key)
	if err != nil {
		return err
	}
	return e.checkItemCollection(t, t.collectionBytes(old), next)
}
