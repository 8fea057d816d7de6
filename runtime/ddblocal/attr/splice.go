package attr

import "encoding/binary"

// DecodeSomeViewInto is DecodeItemViewInto for the attributes of src named
// in names alone: the others are skipped, not decoded. It lets a write that
// reads and changes a few attributes of a large item leave the rest in
// their encoding (see Splice).
func DecodeSomeViewInto(src []byte, names []string, it Item) (Item, error) {
	d := decoder{src: src, view: true}
	n := d.uvarint()
	if it == nil {
		it = make(Item, len(names))
	}
	for i := 0; i < n && d.err == nil; i++ {
		k := d.str()
		if has(names, k) {
			it[k] = d.value()
		} else {
			d.skipValue()
		}
	}
	if d.err != nil || d.pos != len(src) {
		return nil, ErrCorrupt
	}
	return it, nil
}

// Splice appends to dst the encoding of the item src encodes with the
// attributes named in drop left out and those of add put in: the item
// DecodeItem(src) would give after deleting drop and setting add, every
// attribute kept copied as encoded. Names of add must be in drop or absent
// from src.
func Splice(dst, src []byte, drop []string, add Item) ([]byte, error) {
	d := decoder{src: src, view: true} // names are only compared
	n := d.uvarint()
	type span struct{ from, to int }
	var keepBuf [16]span
	keep := keepBuf[:0]
	for i := 0; i < n && d.err == nil; i++ {
		from := d.pos
		k := d.str()
		d.skipValue()
		if !has(drop, k) {
			keep = append(keep, span{from, d.pos})
		}
	}
	if d.err != nil || d.pos != len(src) {
		return dst, ErrCorrupt
	}
	dst = binary.AppendUvarint(dst, uint64(len(keep)+len(add)))
	for _, s := range keep {
		dst = append(dst, src[s.from:s.to]...)
	}
	for k, v := range add {
		dst = appendString(dst, k)
		dst = encodeValue(dst, v)
	}
	return dst, nil
}

// has reports whether names holds name; the lists are a few names long.
func has(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// skipValue moves past one encoded value.
func (d *decoder) skipValue() {
	switch Type(d.byte()) {
	case S, N, B:
		d.skipBytes(d.uvarint())
	case BOOL:
		d.byte()
	case NULL:
	case L:
		n := d.uvarint()
		for i := 0; i < n && d.err == nil; i++ {
			d.skipValue()
		}
	case M:
		n := d.uvarint()
		for i := 0; i < n && d.err == nil; i++ {
			d.skipBytes(d.uvarint())
			d.skipValue()
		}
	case SS, NS, BS:
		n := d.uvarint()
		for i := 0; i < n && d.err == nil; i++ {
			d.skipBytes(d.uvarint())
		}
	default:
		d.err = ErrCorrupt
	}
}

func (d *decoder) skipBytes(n int) {
	if d.err != nil || d.pos+n > len(d.src) {
		d.err = ErrCorrupt
		return
	}
	d.pos += n
}
