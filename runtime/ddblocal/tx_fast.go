package ddblocal

import (
	"crypto/sha256"
	"encoding/binary"
	"slices"

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
// SDK writes maps in random order), different for any other.
func txDigest(items []transactWriteItem) [sha256.Size]byte {
	b := make([]byte, 0, 512)
	for _, ti := range items {
		for _, k := range []struct {
			tag byte
			a   *txAction
		}{{'C', ti.ConditionCheck}, {'P', ti.Put}, {'D', ti.Delete}, {'U', ti.Update}} {
			if k.a != nil {
				b = append(b, k.tag)
				b = k.a.appendCanonical(b)
			}
		}
		b = append(b, ';')
	}
	return sha256.Sum256(b)
}

func (a *txAction) appendCanonical(b []byte) []byte {
	b = appendLenString(b, a.TableName)
	b = appendCanonicalItem(b, a.Key)
	b = appendCanonicalItem(b, a.Item)
	for _, s := range []*string{a.ConditionExpression, a.UpdateExpression} {
		if s == nil {
			b = append(b, 0)
		} else {
			b = appendLenString(append(b, 1), *s)
		}
	}
	b = appendLenString(b, a.ReturnValuesOnConditionCheckFailure)
	names := make([]string, 0, len(a.ExpressionAttributeNames))
	for k := range a.ExpressionAttributeNames {
		names = append(names, k)
	}
	slices.Sort(names)
	b = binary.AppendUvarint(b, uint64(len(names)))
	for _, k := range names {
		b = appendLenString(appendLenString(b, k), a.ExpressionAttributeNames[k])
	}
	return appendCanonicalItem(b, a.ExpressionAttributeValues)
}

func appendLenString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// appendCanonicalItem writes an item with its names in sorted order; nil
// and empty differ, as they did in the JSON the digest replaced.
func appendCanonicalItem(b []byte, it attr.Item) []byte {
	if it == nil {
		return append(b, 0)
	}
	b = binary.AppendUvarint(append(b, 1), uint64(len(it)))
	var buf [16]string
	names := buf[:0]
	for k := range it {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		b = appendCanonicalValue(appendLenString(b, k), it[k])
	}
	return b
}

func appendCanonicalValue(b []byte, v attr.Value) []byte {
	b = append(b, byte(v.T))
	switch v.T {
	case attr.S, attr.N, attr.B:
		b = appendLenString(b, v.S)
	case attr.BOOL:
		if v.Bool {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
	case attr.L:
		b = binary.AppendUvarint(b, uint64(len(v.L)))
		for _, e := range v.L {
			b = appendCanonicalValue(b, e)
		}
	case attr.M:
		b = appendCanonicalItem(b, attr.Item(v.M))
	case attr.SS, attr.NS, attr.BS:
		b = binary.AppendUvarint(b, uint64(len(v.Set)))
		for _, m := range v.Set {
			b = appendLenString(b, m)
		}
	}
	return b
}
