package ddblocal

import (
	"encoding/binary"
	"sync"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
)

// decodeItem decodes a stored row. Rows are never modified once stored, so
// the item's strings share the row's bytes.
func decodeItem(raw []byte) (attr.Item, error) {
	it, err := attr.DecodeItemView(raw)
	if err != nil {
		return nil, newError(CodeInternalServerError, "stored item is corrupt: %v", err)
	}
	return it, nil
}

// itemPool holds decoded items that are no longer referenced, cleared, so
// the next decode reuses their room: a map of more than 8 attributes costs
// about 2 KB, and UpdateItem decodes one per call. Maps that held at most
// smallItem attributes (a request's keys and placeholder values) are kept
// in smallItemPool apart, so that a stored item is not decoded into a map
// that must grow, nor a key cleared through the room of a whole item.
var itemPool, smallItemPool sync.Pool

// smallItem is the most attributes of a map in smallItemPool: a map of up
// to 8 entries is a single group of slots.
const smallItem = 8

// maxPooledItem bounds the attributes of an item kept for reuse.
const maxPooledItem = 64

// decodeItemReusing is decodeItem into the room of a released item, taken
// from the pool releaseItem files an item of raw's attribute count in.
func decodeItemReusing(raw []byte) (attr.Item, error) {
	pool := &itemPool
	if n, w := binary.Uvarint(raw); w > 0 && n <= smallItem {
		pool = &smallItemPool
	}
	reuse, _ := pool.Get().(attr.Item)
	it, err := attr.DecodeItemViewInto(raw, reuse)
	if err != nil {
		return nil, newError(CodeInternalServerError, "stored item is corrupt: %v", err)
	}
	return it, nil
}

// releaseItem gives up it for reuse; nothing may refer to it any more (its
// nested lists and maps are not reused, only the item's own map).
func releaseItem(it attr.Item) {
	if poisonReleased && it != nil {
		poisonItem(it)
		return
	}
	n := len(it)
	if it == nil || n > maxPooledItem {
		return
	}
	clear(it)
	if n <= smallItem {
		smallItemPool.Put(it)
	} else {
		itemPool.Put(it)
	}
}
