package ddblocal

import (
	"unsafe"

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
		a.Key, ok = r.reusedSmall()
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

// txDigest identifies a transaction's actions for its ClientRequestToken:
// equal for the same request whatever the order of its map members (the
// SDK writes maps in random order), different for any other, but for a
// 64-bit hash collision. Strings are hashed with maphash (the process's
// own seed, as the token cache is in memory); the structure is folded in
// by a mixing function, and a map's members are summed, which needs
// neither sorting nor a buffer. A key is taken in its encoded form, which
// the table's key schema makes canonical, and an action that shares its
// predecessor's compiled expressions shares their digest.
func txDigest(ops []*txOp) uint64 {
	var d digest
	var params uint64 // of the expression parameters of the previous action
	for i, op := range ops {
		a := op.act
		d.add(uint64(op.kind[0]))
		d.str(a.TableName)
		d.bytes(op.key)
		d.add(itemDigest(a.Item))
		for _, s := range [...]*string{a.ConditionExpression, a.UpdateExpression} {
			if s == nil {
				d.add(0)
			} else {
				d.add(1)
				d.str(*s)
			}
		}
		d.str(a.ReturnValuesOnConditionCheckFailure)
		if i == 0 || op.x != ops[i-1].x {
			params = mix64(namesDigest(a.ExpressionAttributeNames)) + itemDigest(attr.Item(a.ExpressionAttributeValues))
		}
		d.add(params)
	}
	return d.h
}

// digest folds a sequence of 64-bit values into one.
type digest struct{ h uint64 }

func (d *digest) add(x uint64) { d.h = mix64(d.h*0x9e3779b97f4a7c15 + x) }

func (d *digest) str(s string) { d.add(uint64(len(s))); d.add(strHash(s)) }

func (d *digest) bytes(b []byte) {
	d.add(uint64(len(b)))
	d.add(strHash(unsafe.String(unsafe.SliceData(b), len(b))))
}

// strHash is a fixed 64-bit hash of s, eight bytes at a time. It takes no
// random seed: the digests of ClientRequestTokens are stored in a data
// directory and must mean the same to the next process.
func strHash(s string) uint64 {
	h := uint64(len(s)) * 0x9e3779b97f4a7c15
	for ; len(s) >= 8; s = s[8:] {
		h = mix64(h ^ (uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56))
	}
	var tail uint64
	for i := 0; i < len(s); i++ {
		tail |= uint64(s[i]) << (8 * i)
	}
	return mix64(h ^ tail ^ 0x5bd1e995)
}

// mix64 is the finalizer of SplitMix64: every bit of x affects every bit
// of the result.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// itemDigest is the order-free digest of an item: nil and empty differ,
// as they did in the request.
func itemDigest(it attr.Item) uint64 { return mapDigest(it, valueDigest) }

func namesDigest(names map[string]string) uint64 { return mapDigest(names, (*digest).str) }

// mapDigest sums the digests of m's members, each its name and its value
// as value folds it in; nil is 0, an empty map 1.
func mapDigest[M ~map[string]V, V any](m M, value func(*digest, V)) uint64 {
	if m == nil {
		return 0
	}
	sum := uint64(len(m)) + 1
	for k, v := range m {
		var d digest
		d.str(k)
		value(&d, v)
		sum += d.h
	}
	return sum
}

func valueDigest(d *digest, v attr.Value) {
	d.add(uint64(v.T))
	switch v.T {
	case attr.S, attr.N, attr.B:
		d.str(v.S)
	case attr.BOOL:
		if v.Bool {
			d.add(1)
		} else {
			d.add(0)
		}
	case attr.L:
		d.add(uint64(len(v.L)))
		for _, e := range v.L {
			valueDigest(d, e)
		}
	case attr.M:
		d.add(itemDigest(attr.Item(v.M)))
	case attr.SS, attr.NS, attr.BS:
		d.add(uint64(len(v.Set)))
		for _, m := range v.Set {
			d.str(m)
		}
	}
}
