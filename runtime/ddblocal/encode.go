package ddblocal

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"sort"
	"strconv"
	"unsafe"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
)

// appendResponse writes v as JSON. Items and values are written directly,
// without encoding/json's reflection and re-compaction, which dominate the
// cost of large Query responses.
func appendResponse(buf *bytes.Buffer, v any) error {
	switch v := v.(type) {
	case nil:
		buf.WriteString("null")
	case attr.Item:
		if v == nil {
			buf.WriteString("null")
			return nil
		}
		appendItem(buf, v)
	case attr.Value:
		appendValue(buf, v)
	case rawItem:
		mark := buf.Len()
		if !appendEncodedItem(buf, v) {
			buf.Truncate(mark)
			it, err := decodeItem(v)
			if err != nil {
				return err
			}
			appendItem(buf, it)
		}
	case rawItems:
		buf.WriteByte('[')
		for i, raw := range v {
			if i > 0 {
				buf.WriteByte(',')
			}
			mark := buf.Len()
			if !appendEncodedItem(buf, raw) {
				buf.Truncate(mark)
				it, err := decodeItem(raw)
				if err != nil {
					return err
				}
				appendItem(buf, it)
			}
		}
		buf.WriteByte(']')
	case []attr.Item:
		buf.WriteByte('[')
		for i, it := range v {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := appendResponse(buf, it); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case map[string]any:
		return appendMap(buf, v)
	case *writeOutput:
		// Fields in sorted order, as appendMap writes them.
		buf.WriteByte('{')
		if v.Attributes != nil {
			buf.WriteString(`"Attributes":`)
			appendItem(buf, v.Attributes)
		}
		if v.ConsumedCapacity != nil {
			if v.Attributes != nil {
				buf.WriteByte(',')
			}
			buf.WriteString(`"ConsumedCapacity":`)
			if err := appendMap(buf, v.ConsumedCapacity); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	case []map[string]any:
		buf.WriteByte('[')
		for i, m := range v {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := appendMap(buf, m); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case map[string][]attr.Item:
		buf.WriteByte('{')
		for i, k := range sortedKeys(v) {
			if i > 0 {
				buf.WriteByte(',')
			}
			appendString(buf, k)
			buf.WriteByte(':')
			if err := appendResponse(buf, v[k]); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	case string:
		appendString(buf, v)
	case int:
		buf.WriteString(strconv.Itoa(v))
	case int32:
		buf.WriteString(strconv.FormatInt(int64(v), 10))
	case bool:
		buf.WriteString(strconv.FormatBool(v))
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		buf.Write(b)
	}
	return nil
}

func appendMap(buf *bytes.Buffer, m map[string]any) error {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	buf.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		appendString(buf, k)
		buf.WriteByte(':')
		if err := appendResponse(buf, m[k]); err != nil {
			return err
		}
	}
	buf.WriteByte('}')
	return nil
}

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string.
func appendString(buf *bytes.Buffer, s string) {
	buf.WriteByte('"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		buf.WriteString(s[start:i])
		switch c {
		case '"', '\\':
			buf.WriteByte('\\')
			buf.WriteByte(c)
		case '\n':
			buf.WriteString(`\n`)
		case '\r':
			buf.WriteString(`\r`)
		case '\t':
			buf.WriteString(`\t`)
		default:
			buf.WriteString(`\u00`)
			buf.WriteByte(hexDigits[c>>4])
			buf.WriteByte(hexDigits[c&0xF])
		}
		start = i + 1
	}
	buf.WriteString(s[start:])
	buf.WriteByte('"')
}

// appendItem writes an item in DynamoDB's wire form.
func appendItem(buf *bytes.Buffer, it attr.Item) {
	buf.WriteByte('{')
	first := true
	for k, v := range it {
		if !first {
			buf.WriteByte(',')
		}
		first = false
		appendString(buf, k)
		buf.WriteByte(':')
		appendValue(buf, v)
	}
	buf.WriteByte('}')
}

func appendBase64(buf *bytes.Buffer, s string) {
	buf.WriteByte('"')
	n := base64.StdEncoding.EncodedLen(len(s))
	buf.Grow(n)
	b := buf.AvailableBuffer()[:n]
	base64.StdEncoding.Encode(b, []byte(s))
	buf.Write(b)
	buf.WriteByte('"')
}

// appendValue writes one attribute value in DynamoDB's wire form.
func appendValue(buf *bytes.Buffer, v attr.Value) {
	switch v.T {
	case attr.S:
		buf.WriteString(`{"S":`)
		appendString(buf, v.S)
	case attr.N:
		buf.WriteString(`{"N":`)
		appendString(buf, v.S)
	case attr.B:
		buf.WriteString(`{"B":`)
		appendBase64(buf, v.S)
	case attr.BOOL:
		buf.WriteString(`{"BOOL":`)
		buf.WriteString(strconv.FormatBool(v.Bool))
	case attr.NULL:
		buf.WriteString(`{"NULL":true`)
	case attr.L:
		buf.WriteString(`{"L":[`)
		for i, e := range v.L {
			if i > 0 {
				buf.WriteByte(',')
			}
			appendValue(buf, e)
		}
		buf.WriteByte(']')
	case attr.M:
		buf.WriteString(`{"M":`)
		appendItem(buf, v.M)
	case attr.SS, attr.NS, attr.BS:
		buf.WriteString(`{"` + v.T.String() + `":[`)
		for i, m := range v.Set {
			if i > 0 {
				buf.WriteByte(',')
			}
			if v.T == attr.BS {
				appendBase64(buf, m)
			} else {
				appendString(buf, m)
			}
		}
		buf.WriteByte(']')
	default:
		buf.WriteString(`{"NULL":true`)
	}
	buf.WriteByte('}')
}

// rawItem is one stored item in attr's binary encoding.
type rawItem []byte

// rawItems are stored items still in attr's binary encoding; the response
// encoder transcodes them to JSON without building maps.
type rawItems [][]byte

// appendEncodedItem writes an item stored by attr.EncodeItem as JSON. It
// reports false when src is not in the expected format.
func appendEncodedItem(buf *bytes.Buffer, src []byte) bool {
	d := rawDecoder{src: src}
	d.item(buf)
	return d.ok && d.pos == len(src)
}

type rawDecoder struct {
	src []byte
	pos int
	ok  bool
}

func (d *rawDecoder) uvarint() int {
	n, w := binary.Uvarint(d.src[d.pos:])
	if w <= 0 || n > uint64(len(d.src)-d.pos) {
		d.ok = false
		d.pos = len(d.src)
		return 0
	}
	d.pos += w
	return int(n)
}

func (d *rawDecoder) str() string {
	n := d.uvarint()
	if d.pos+n > len(d.src) {
		d.ok = false
		d.pos = len(d.src)
		return ""
	}
	s := d.src[d.pos : d.pos+n]
	d.pos += n
	return unsafeString(s)
}

func (d *rawDecoder) item(buf *bytes.Buffer) {
	d.ok = true
	n := d.uvarint()
	buf.WriteByte('{')
	for i := 0; i < n && d.ok; i++ {
		if i > 0 {
			buf.WriteByte(',')
		}
		appendString(buf, d.str())
		buf.WriteByte(':')
		d.value(buf)
	}
	buf.WriteByte('}')
}

func (d *rawDecoder) value(buf *bytes.Buffer) {
	if d.pos >= len(d.src) {
		d.ok = false
		return
	}
	t := attr.Type(d.src[d.pos])
	d.pos++
	switch t {
	case attr.S, attr.N, attr.B:
		appendValue(buf, attr.Value{T: t, S: d.str()})
	case attr.BOOL:
		if d.pos >= len(d.src) {
			d.ok = false
			return
		}
		appendValue(buf, attr.Value{T: t, Bool: d.src[d.pos] == 1})
		d.pos++
	case attr.NULL:
		buf.WriteString(`{"NULL":true}`)
	case attr.L:
		n := d.uvarint()
		buf.WriteString(`{"L":[`)
		for i := 0; i < n && d.ok; i++ {
			if i > 0 {
				buf.WriteByte(',')
			}
			d.value(buf)
		}
		buf.WriteString(`]}`)
	case attr.M:
		buf.WriteString(`{"M":`)
		ok := d.ok
		d.item(buf)
		d.ok = d.ok && ok
		buf.WriteByte('}')
	case attr.SS, attr.NS, attr.BS:
		n := d.uvarint()
		buf.WriteString(`{"` + t.String() + `":[`)
		for i := 0; i < n && d.ok; i++ {
			if i > 0 {
				buf.WriteByte(',')
			}
			if t == attr.BS {
				appendBase64(buf, d.str())
			} else {
				appendString(buf, d.str())
			}
		}
		buf.WriteString(`]}`)
	default:
		d.ok = false
	}
}

// unsafeString views b as a string without copying; the caller uses it
// only while b is alive and unchanged (stored rows are never modified).
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
