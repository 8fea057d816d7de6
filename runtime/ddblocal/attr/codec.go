package attr

import (
	"encoding/binary"
	"errors"
	"unsafe"
)

// ErrCorrupt is returned by DecodeItem for bytes EncodeItem did not produce.
var ErrCorrupt = errors.New("attr: corrupt encoded item")

// EncodeItem appends a compact binary form of it to dst. The engine stores
// items this way: a few bytes of framing per attribute instead of a Go map
// of structs, which keeps a million small items well under a gigabyte.
func EncodeItem(dst []byte, it Item) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(it)))
	for k, v := range it {
		dst = appendString(dst, k)
		dst = encodeValue(dst, v)
	}
	return dst
}

// EncodeItemSized is EncodeItem that also returns ItemSize(it), in one pass
// over the item.
func EncodeItemSized(dst []byte, it Item) ([]byte, int) {
	dst = binary.AppendUvarint(dst, uint64(len(it)))
	size := 0
	for k, v := range it {
		dst = appendString(dst, k)
		dst = encodeValue(dst, v)
		size += len(k) + v.Size()
	}
	return dst, size
}

func appendString(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

func encodeValue(dst []byte, v Value) []byte {
	dst = append(dst, byte(v.T))
	switch v.T {
	case S, N, B:
		dst = appendString(dst, v.S)
	case BOOL:
		if v.Bool {
			dst = append(dst, 1)
		} else {
			dst = append(dst, 0)
		}
	case L:
		dst = binary.AppendUvarint(dst, uint64(len(v.L)))
		for _, e := range v.L {
			dst = encodeValue(dst, e)
		}
	case M:
		dst = EncodeItem(dst, Item(v.M))
	case SS, NS, BS:
		dst = binary.AppendUvarint(dst, uint64(len(v.Set)))
		for _, m := range v.Set {
			dst = appendString(dst, m)
		}
	}
	return dst
}

// DecodeItem decodes an item written by EncodeItem.
func DecodeItem(src []byte) (Item, error) {
	d := decoder{src: src}
	it := d.item()
	if d.err != nil || d.pos != len(src) {
		return nil, ErrCorrupt
	}
	return it, nil
}

// DecodeItemView is DecodeItem for bytes that never change: the item's
// strings share src instead of copying it, which saves an allocation per
// string. The engine's stored rows are immutable; mapped or reused buffers
// must go through DecodeItem.
func DecodeItemView(src []byte) (Item, error) {
	d := decoder{src: src, view: true}
	it := d.item()
	if d.err != nil || d.pos != len(src) {
		return nil, ErrCorrupt
	}
	return it, nil
}

// DecodeItemViewInto is DecodeItemView into it, which must be empty: a
// cleared item's room is reused. A nil it is made to size.
func DecodeItemViewInto(src []byte, it Item) (Item, error) {
	d := decoder{src: src, view: true}
	it = d.itemInto(it)
	if d.err != nil || d.pos != len(src) {
		return nil, ErrCorrupt
	}
	return it, nil
}

type decoder struct {
	src  []byte
	pos  int
	err  error
	view bool
}

func (d *decoder) uvarint() int {
	if d.err != nil {
		return 0
	}
	n, w := binary.Uvarint(d.src[d.pos:])
	if w <= 0 || n > uint64(len(d.src)-d.pos) {
		d.err = ErrCorrupt
		return 0
	}
	d.pos += w
	return int(n)
}

func (d *decoder) str() string {
	n := d.uvarint()
	if d.err != nil || d.pos+n > len(d.src) {
		d.err = ErrCorrupt
		return ""
	}
	b := d.src[d.pos : d.pos+n]
	d.pos += n
	if d.view && n > 0 {
		return unsafe.String(&b[0], n)
	}
	return string(b)
}

func (d *decoder) byte() byte {
	if d.err != nil || d.pos >= len(d.src) {
		d.err = ErrCorrupt
		return 0
	}
	b := d.src[d.pos]
	d.pos++
	return b
}

func (d *decoder) item() Item { return d.itemInto(nil) }

func (d *decoder) itemInto(it Item) Item {
	n := d.uvarint()
	if it == nil {
		it = make(Item, n)
	}
	for i := 0; i < n && d.err == nil; i++ {
		k := d.str()
		it[k] = d.value()
	}
	return it
}

func (d *decoder) value() Value {
	t := Type(d.byte())
	v := Value{T: t}
	switch t {
	case S, N, B:
		v.S = d.str()
	case BOOL:
		v.Bool = d.byte() == 1
	case NULL:
	case L:
		n := d.uvarint()
		v.L = make([]Value, 0, n)
		for i := 0; i < n && d.err == nil; i++ {
			v.L = append(v.L, d.value())
		}
	case M:
		v.M = d.item()
	case SS, NS, BS:
		n := d.uvarint()
		v.Set = make([]string, 0, n)
		for i := 0; i < n && d.err == nil; i++ {
			v.Set = append(v.Set, d.str())
		}
	default:
		d.err = ErrCorrupt
	}
	return v
}
