package ddblocal

import (
	"encoding/binary"
	"hash/maphash"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
)

// Every money flow is one TransactWriteItems, so its request decodes on the
// fast path of the item operations (decode.go) and its ClientRequestToken
// digest is taken without encoding/json.

func (in *transactWriteItemsInput) decodeField(r *jsonReader, name string) bool {
	var ok bool
	switch name {
	case "TransactItems":
		in.TransactItems, ok = decodeTransactItems(r)
	case "ReturnConsumedCapacity":
		in.ReturnConsumedCapacity, ok = r.str()
	case "ReturnItemCollectionMetrics":
		in.ReturnItemCollectionMetrics, ok = r.str()
	case "ClientRequestToken":
		// The token is unique per call: not interned, and held by the
		// input itself rather than by a pointer of its own.
		if in.token, ok = r.text(); ok {
			in.ClientRequestToken = &in.token
		}
	}
	return ok
}

// decodeTransactItems reads TransactItems, taking the actions from one
// slab instead of an allocation each.
func decodeTransactItems(r *jsonReader) ([]transactWriteItem, bool) {
	if !r.consume('[') {
		return nil, false
	}
	items := make([]transactWriteItem, 0, 4)
	var slab []txAction
	for i := 0; ; i++ {
		more, ok := r.elem(i)
		if !more || !ok {
			return items, ok
		}
		if len(slab) == cap(slab) {
			slab = make([]txAction, 0, max(4, 2*cap(slab)))
		}
		slab = slab[:len(slab)+1]
		var ti transactWriteItem
		if !decodeTransactWriteItem(r, &ti, &slab[len(slab)-1]) {
			return nil, false
		}
		items = append(items, ti)
	}
}

// decodeTransactWriteItem reads one entry of TransactItems into ti, its
// action into a.
func decodeTransactWriteItem(r *jsonReader, ti *transactWriteItem, a *txAction) bool {
	return r.decodeObject(func(name string) bool {
		var dst **txAction
		switch name {
		case "ConditionCheck":
			dst = &ti.ConditionCheck
		case "Put":
			dst = &ti.Put
		case "Delete":
			dst = &ti.Delete
		case "Update":
			dst = &ti.Update
		default:
			return false
		}
		if *ti != (transactWriteItem{}) {
			return false // two actions in one entry: encoding/json reports it
		}
		*dst = a
		return r.decodeObject(func(name string) bool { return a.decodeField(r, name) })
	})
}

// decodeField reads a member of a transaction action. Its items, keys and
// values take maps from the pool, which a committed transaction gives back
// (releaseTxItems).
func (a *txAction) decodeField(r *jsonReader, name string) bool {
	var ok bool
	switch name {
	case "TableName":
		a.TableName, ok = r.str()
	case "Key":
		a.Key, ok = r.reusedItem()
	case "Item":
		a.Item, ok = r.reusedItem()
	case "ConditionExpression":
		if a.condition, ok = r.str(); ok {
			a.ConditionExpression = &a.condition
		}
	case "UpdateExpression":
		if a.update, ok = r.str(); ok {
			a.UpdateExpression = &a.update
		}
	case "ReturnValuesOnConditionCheckFailure":
		a.ReturnValuesOnConditionCheckFailure, ok = r.str()
	case "ExpressionAttributeNames":
		a.ExpressionAttributeNames, ok = r.names()
	case "ExpressionAttributeValues":
		a.ExpressionAttributeValues, ok = r.values()
	}
	return ok
}

// txDigest identifies a transaction's items for its ClientRequestToken:
// equal for the same request whatever the order of its map members (the
// SDK writes maps in random order), different for any other, but for a
// 64-bit hash collision. Members are hashed one by one and their hashes
// summed, which needs neither sorting nor a buffer. The seed is the
// process's own, as the token cache is.
func txDigest(items []transactWriteItem) uint64 {
	var h maphash.Hash
	h.SetSeed(digestSeed)
	for _, ti := range items {
		for _, k := range [...]struct {
			tag byte
			a   *txAction
		}{{'C', ti.ConditionCheck}, {'P', ti.Put}, {'D', ti.Delete}, {'U', ti.Update}} {
			if k.a != nil {
				_ = h.WriteByte(k.tag)
				k.a.hashInto(&h)
			}
		}
		_ = h.WriteByte(';')
	}
	return h.Sum64()
}

var digestSeed = maphash.MakeSeed()

func (a *txAction) hashInto(h *maphash.Hash) {
	hashString(h, a.TableName)
	hashUint(h, itemDigest(a.Key))
	hashUint(h, itemDigest(a.Item))
	for _, s := range [...]*string{a.ConditionExpression, a.UpdateExpression} {
		if s == nil {
			_ = h.WriteByte(0)
		} else {
			_ = h.WriteByte(1)
			hashString(h, *s)
		}
	}
	hashString(h, a.ReturnValuesOnConditionCheckFailure)
	hashUint(h, namesDigest(a.ExpressionAttributeNames))
	hashUint(h, itemDigest(a.ExpressionAttributeValues))
}

// itemDigest is the order-free digest of an item: nil and empty differ,
// as they did in the request.
func itemDigest(it attr.Item) uint64 {
	if it == nil {
		return 0
	}
	sum := uint64(len(it)) + 1
	for k, v := range it {
		var h maphash.Hash
		h.SetSeed(digestSeed)
		hashString(&h, k)
		hashValue(&h, v)
		sum += h.Sum64()
	}
	return sum
}

func namesDigest(names map[string]string) uint64 {
	if names == nil {
		return 0
	}
	sum := uint64(len(names)) + 1
	for k, v := range names {
		var h maphash.Hash
		h.SetSeed(digestSeed)
		hashString(&h, k)
		hashString(&h, v)
		sum += h.Sum64()
	}
	return sum
}

func hashValue(h *maphash.Hash, v attr.Value) {
	_ = h.WriteByte(byte(v.T))
	switch v.T {
	case attr.S, attr.N, attr.B:
		hashString(h, v.S)
	case attr.BOOL:
		if v.Bool {
			_ = h.WriteByte(1)
		} else {
			_ = h.WriteByte(0)
		}
	case attr.L:
		hashUint(h, uint64(len(v.L)))
		for _, e := range v.L {
			hashValue(h, e)
		}
	case attr.M:
		hashUint(h, itemDigest(attr.Item(v.M)))
	case attr.SS, attr.NS, attr.BS:
		hashUint(h, uint64(len(v.Set)))
		for _, m := range v.Set {
			hashString(h, m)
		}
	}
}

// hashString writes s with its length, so that no two sequences of
// strings write the same bytes.
func hashString(h *maphash.Hash, s string) {
	hashUint(h, uint64(len(s)))
	_, _ = h.WriteString(s)
}

func hashUint(h *maphash.Hash, n uint64) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], n)
	_, _ = h.Write(b[:])
}
