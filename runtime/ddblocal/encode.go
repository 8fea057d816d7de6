package ddblocal

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"unsafe"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
)

// appendResponse writes v as JSON to buf; see encodeResponse.
func appendResponse(buf *bytes.Buffer, v any) error {
	b, err := encodeResponse(buf.AvailableBuffer(), v)
	buf.Write(b)
	return err
}

// appendItem writes an item in DynamoDB's wire form to buf.
func appendItem(buf *bytes.Buffer, it attr.Item) { buf.Write(encodeItem(buf.AvailableBuffer(), it)) }

// appendEncodedItem writes an item stored by attr.EncodeItem as JSON to
// buf. It reports false when src is not in the expected format.
func appendEncodedItem(buf *bytes.Buffer, src []byte) bool {
	b, ok := encodeStoredItem(buf.AvailableBuffer(), src)
	buf.Write(b)
	return ok
}

// encodeResponse appends v as JSON to buf. Items and values are written
// directly, without encoding/json's reflection and re-compaction, which
// dominate the cost of large Query responses.
func encodeResponse(buf []byte, v any) (_ []byte, err error) {
	switch v := v.(type) {
	case nil:
		buf = append(buf, "null"...)
	case attr.Item:
		if v == nil {
			buf = append(buf, "null"...)
			return buf, nil
		}
		buf = encodeItem(buf, v)
	case attr.Value:
		buf = encodeValue(buf, v)
	case rawItem:
		if buf, err = encodeRaw(buf, v); err != nil {
			return buf, err
		}
	case rawItems:
		buf = append(buf, '[')
		for i, raw := range v {
			if i > 0 {
				buf = append(buf, ',')
			}
			if buf, err = encodeRaw(buf, raw); err != nil {
				return buf, err
			}
		}
		buf = append(buf, ']')
	case []attr.Item:
		buf = append(buf, '[')
		for i, it := range v {
			if i > 0 {
				buf = append(buf, ',')
			}
			if buf, err = encodeResponse(buf, it); err != nil {
				return buf, err
			}
		}
		buf = append(buf, ']')
	case map[string]any:
		return encodeMap(buf, v)
	case *readOutput:
		// Fields in sorted order, as encodeMap writes them.
		buf = append(buf, '{')
		if v.ConsumedCapacity != nil {
			buf = append(buf, `"ConsumedCapacity":`...)
			if buf, err = encodeMap(buf, v.ConsumedCapacity); err != nil {
				return buf, err
			}
			buf = append(buf, ',')
		}
		buf = append(buf, `"Count":`...)
		buf = strconv.AppendInt(buf, int64(v.Count), 10)
		if v.Items != nil {
			buf = append(buf, `,"Items":`...)
			if buf, err = encodeResponse(buf, v.Items); err != nil {
				return buf, err
			}
		}
		if v.LastEvaluatedKey != nil {
			buf = append(buf, `,"LastEvaluatedKey":`...)
			buf = encodeItem(buf, v.LastEvaluatedKey)
		}
		buf = append(buf, `,"ScannedCount":`...)
		buf = strconv.AppendInt(buf, int64(v.ScannedCount), 10)
		buf = append(buf, '}')
	case *getOutput:
		// Fields in sorted order, as encodeMap writes them.
		buf = append(buf, '{')
		if v.ConsumedCapacity != nil {
			buf = append(buf, `"ConsumedCapacity":`...)
			if buf, err = encodeMap(buf, v.ConsumedCapacity); err != nil {
				return buf, err
			}
		}
		if v.Item != nil {
			if v.ConsumedCapacity != nil {
				buf = append(buf, ',')
			}
			buf = append(buf, `"Item":`...)
			if buf, err = encodeResponse(buf, v.Item); err != nil {
				return buf, err
			}
		}
		buf = append(buf, '}')
	case *writeOutput:
		// Fields in sorted order, as appendMap writes them.
		buf = append(buf, '{')
		if v.Attributes != nil {
			buf = append(buf, `"Attributes":`...)
			buf = encodeItem(buf, v.Attributes)
		}
		if v.ConsumedCapacity != nil {
			if v.Attributes != nil {
				buf = append(buf, ',')
			}
			buf = append(buf, `"ConsumedCapacity":`...)
			if buf, err = encodeMap(buf, v.ConsumedCapacity); err != nil {
				return buf, err
			}
		}
		if v.ItemCollectionMetrics != nil {
			if v.Attributes != nil || v.ConsumedCapacity != nil {
				buf = append(buf, ',')
			}
			buf = append(buf, `"ItemCollectionMetrics":`...)
			if buf, err = encodeMap(buf, v.ItemCollectionMetrics); err != nil {
				return buf, err
			}
		}
		buf = append(buf, '}')
	case []map[string]any:
		buf = append(buf, '[')
		for i, m := range v {
			if i > 0 {
				buf = append(buf, ',')
			}
			if buf, err = encodeMap(buf, m); err != nil {
				return buf, err
			}
		}
		buf = append(buf, ']')
	case map[string][]attr.Item:
		buf = append(buf, '{')
		for i, k := range sortedKeys(v) {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = encodeString(buf, k)
			buf = append(buf, ':')
			if buf, err = encodeResponse(buf, v[k]); err != nil {
				return buf, err
			}
		}
		buf = append(buf, '}')
	case string:
		buf = encodeString(buf, v)
	case int64:
		buf = strconv.AppendInt(buf, v, 10)
	case float64:
		if a := math.Abs(v); a == 0 || (a >= 1e-6 && a < 1e21) {
			// encoding/json's format in this range.
			buf = strconv.AppendFloat(buf, v, 'f', -1, 64)
		} else {
			return marshalJSON(buf, v)
		}
	case []attributeDefinition:
		if v == nil {
			return append(buf, "null"...), nil
		}
		mark := len(buf)
		buf = append(buf, '[')
		for i, d := range v {
			if !plainString(d.AttributeName) || !plainString(d.AttributeType) {
				return marshalJSON(buf[:mark], v)
			}
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = append(buf, `{"AttributeName":"`...)
			buf = append(buf, d.AttributeName...)
			buf = append(buf, `","AttributeType":"`...)
			buf = append(buf, d.AttributeType...)
			buf = append(buf, `"}`...)
		}
		buf = append(buf, ']')
	case []keySchemaElement:
		if v == nil {
			return append(buf, "null"...), nil
		}
		mark := len(buf)
		buf = append(buf, '[')
		for i, k := range v {
			if !plainString(k.AttributeName) || !plainString(k.KeyType) {
				return marshalJSON(buf[:mark], v)
			}
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = append(buf, `{"AttributeName":"`...)
			buf = append(buf, k.AttributeName...)
			buf = append(buf, `","KeyType":"`...)
			buf = append(buf, k.KeyType...)
			buf = append(buf, `"}`...)
		}
		buf = append(buf, ']')
	case int:
		buf = strconv.AppendInt(buf, int64(v), 10)
	case int32:
		buf = strconv.AppendInt(buf, int64(v), 10)
	case bool:
		buf = strconv.AppendBool(buf, v)
	default:
		return marshalJSON(buf, v)
	}
	return buf, nil
}

func marshalJSON(buf []byte, v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return buf, err
	}
	return append(buf, b...), nil
}

// plainString reports whether encoding/json writes s unchanged between
// quotes: printable ASCII without '"', '\\' and the HTML characters it
// escapes.
func plainString(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// encodeRaw writes a stored row, through its decoded item if the row is
// not in the format the transcoder expects.
func encodeRaw(buf, raw []byte) ([]byte, error) {
	out, ok := encodeStoredItem(buf, raw)
	if ok {
		return out, nil
	}
	it, err := decodeItem(raw)
	if err != nil {
		return buf, err
	}
	return encodeItem(buf, it), nil
}

func encodeMap(buf []byte, m map[string]any) (_ []byte, err error) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	buf = append(buf, '{')
	for i, k := range keys {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = encodeString(buf, k)
		buf = append(buf, ':')
		if buf, err = encodeResponse(buf, m[k]); err != nil {
			return buf, err
		}
	}
	buf = append(buf, '}')
	return buf, nil
}

const hexDigits = "0123456789abcdef"

// jsonSafe marks the bytes a JSON string holds unescaped.
var jsonSafe = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// skipSafe returns the length of the prefix of s, in whole 8-byte words,
// that holds no byte JSON escapes (a quote, a backslash, a control
// character), read eight bytes at a time (SWAR).
func skipSafe(s string) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	b := unsafe.Slice(unsafe.StringData(s), len(s))
	i := 0
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		quote, slash := w^(ones*'"'), w^(ones*'\\')
		if ((quote-ones)&^quote|(slash-ones)&^slash|(w-ones*0x20)&^w)&highs != 0 {
			break
		}
	}
	return i
}

// encodeString appends s as a JSON string. A string of 16 bytes or more
// is first copied word by word up to its first byte to escape; a shorter
// one costs less byte by byte.
func encodeString(buf []byte, s string) []byte {
	if len(s) >= 16 {
		return encodeStringFrom(buf, s, skipSafe(s))
	}
	return encodeStringFrom(buf, s, 0)
}

// encodeStringFrom is encodeString for an s whose first safe bytes need
// no escape.
func encodeStringFrom(buf []byte, s string, safe int) []byte {
	buf = append(buf, '"')
	start := 0
	for i := safe; i < len(s); i++ {
		c := s[i]
		if jsonSafe[c] {
			continue
		}
		buf = append(buf, s[start:i]...)
		switch c {
		case '"', '\\':
			buf = append(buf, '\\')
			buf = append(buf, c)
		case '\n':
			buf = append(buf, `\n`...)
		case '\r':
			buf = append(buf, `\r`...)
		case '\t':
			buf = append(buf, `\t`...)
		default:
			buf = append(buf, `\u00`...)
			buf = append(buf, hexDigits[c>>4])
			buf = append(buf, hexDigits[c&0xF])
		}
		start = i + 1
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}

// encodeItem appends an item in DynamoDB's wire form.
func encodeItem(buf []byte, it attr.Item) []byte {
	mustBeLive(it, "response encoding")
	buf = append(buf, '{')
	first := true
	for k, v := range it {
		if !first {
			buf = append(buf, ',')
		}
		first = false
		buf = encodeString(buf, k)
		buf = append(buf, ':')
		buf = encodeValue(buf, v)
	}
	return append(buf, '}')
}

func encodeBase64(buf []byte, s string) []byte {
	buf = append(buf, '"')
	buf = base64.StdEncoding.AppendEncode(buf, []byte(s))
	return append(buf, '"')
}

// encodeValue appends one attribute value in DynamoDB's wire form.
func encodeValue(buf []byte, v attr.Value) []byte {
	switch v.T {
	case attr.S:
		buf = append(buf, `{"S":`...)
		buf = encodeString(buf, v.S)
	case attr.N:
		buf = append(buf, `{"N":`...)
		buf = encodeString(buf, v.S)
	case attr.B:
		buf = append(buf, `{"B":`...)
		buf = encodeBase64(buf, v.S)
	case attr.BOOL:
		buf = append(buf, `{"BOOL":`...)
		buf = strconv.AppendBool(buf, v.Bool)
	case attr.NULL:
		buf = append(buf, `{"NULL":true`...)
	case attr.L:
		buf = append(buf, `{"L":[`...)
		for i, e := range v.L {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = encodeValue(buf, e)
		}
		buf = append(buf, ']')
	case attr.M:
		buf = append(buf, `{"M":`...)
		buf = encodeItem(buf, v.M)
	case attr.SS, attr.NS, attr.BS:
		buf = append(buf, `{"`+v.T.String()+`":[`...)
		for i, m := range v.Set {
			if i > 0 {
				buf = append(buf, ',')
			}
			if v.T == attr.BS {
				buf = encodeBase64(buf, m)
			} else {
				buf = encodeString(buf, m)
			}
		}
		buf = append(buf, ']')
	default:
		buf = append(buf, `{"NULL":true`...)
	}
	return append(buf, '}')
}

// rawItem is one stored item in attr's binary encoding.
type rawItem []byte

// rawItems are stored items still in attr's binary encoding; the response
// encoder transcodes them to JSON without building maps.
type rawItems [][]byte

// encodeStoredItem appends an item stored by attr.EncodeItem as JSON. It
// reports false when src is not in the expected format.
func encodeStoredItem(buf, src []byte) ([]byte, bool) {
	d := rawDecoder{src: src}
	buf = d.item(buf)
	return buf, d.ok && d.pos == len(src)
}

type rawDecoder struct {
	src []byte
	pos int
	ok  bool
}

func (d *rawDecoder) uvarint() int {
	if d.pos < len(d.src) && d.src[d.pos] < 0x80 {
		// One byte, the common case (lengths and counts under 128).
		n := int(d.src[d.pos])
		if n > len(d.src)-d.pos {
			d.ok = false
			d.pos = len(d.src)
			return 0
		}
		d.pos++
		return n
	}
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

// jsonString appends the next string as a JSON string. Its bytes are
// checked a word at a time where the stored row holds eight bytes from
// there (the bytes past the string's end are masked off), so a string that
// needs no escape, as nearly all do, is copied at once.
func (d *rawDecoder) jsonString(buf []byte) []byte {
	s := d.str()
	if !d.ok {
		return buf
	}
	if noEscapes(d.src, d.pos-len(s), len(s)) {
		buf = append(buf, '"')
		buf = append(buf, s...)
		return append(buf, '"')
	}
	return encodeString(buf, s)
}

// noEscapes reports whether src[at:at+n] holds no byte JSON escapes, read
// eight bytes at a time while src has eight bytes from there; it reports
// false, deciding nothing, when the last word would pass src's end.
func noEscapes(src []byte, at, n int) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; n > 0; at, n = at+8, n-8 {
		if at+8 > len(src) {
			return false
		}
		w := binary.LittleEndian.Uint64(src[at:])
		quote, slash := w^(ones*'"'), w^(ones*'\\')
		found := ((quote - ones) &^ quote) | ((slash - ones) &^ slash) | ((w - ones*0x20) &^ w)
		if n < 8 {
			found &= 1<<(8*n) - 1 // the bytes past the string
		}
		if found&highs != 0 {
			return false
		}
	}
	return true
}

func (d *rawDecoder) item(buf []byte) []byte {
	d.ok = true
	n := d.uvarint()
	buf = append(buf, '{')
	for i := 0; i < n && d.ok; i++ {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = d.jsonString(buf)
		buf = append(buf, ':')
		buf = d.value(buf)
	}
	return append(buf, '}')
}

func (d *rawDecoder) value(buf []byte) []byte {
	if d.pos >= len(d.src) {
		d.ok = false
		return buf
	}
	t := attr.Type(d.src[d.pos])
	d.pos++
	switch t {
	case attr.S:
		buf = append(buf, `{"S":`...)
		buf = d.jsonString(buf)
		buf = append(buf, '}')
	case attr.N:
		buf = append(buf, `{"N":`...)
		buf = d.jsonString(buf)
		buf = append(buf, '}')
	case attr.B:
		buf = encodeValue(buf, attr.Value{T: t, S: d.str()})
	case attr.BOOL:
		if d.pos >= len(d.src) {
			d.ok = false
			return buf
		}
		buf = encodeValue(buf, attr.Value{T: t, Bool: d.src[d.pos] == 1})
		d.pos++
	case attr.NULL:
		buf = append(buf, `{"NULL":true}`...)
	case attr.L:
		n := d.uvarint()
		buf = append(buf, `{"L":[`...)
		for i := 0; i < n && d.ok; i++ {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = d.value(buf)
		}
		buf = append(buf, `]}`...)
	case attr.M:
		buf = append(buf, `{"M":`...)
		ok := d.ok
		buf = d.item(buf)
		d.ok = d.ok && ok
		buf = append(buf, '}')
	case attr.SS, attr.NS, attr.BS:
		n := d.uvarint()
		buf = append(buf, `{"`+t.String()+`":[`...)
		for i := 0; i < n && d.ok; i++ {
			if i > 0 {
				buf = append(buf, ',')
			}
			if t == attr.BS {
				buf = encodeBase64(buf, d.str())
			} else {
				buf = d.jsonString(buf)
			}
		}
		buf = append(buf, `]}`...)
	default:
		d.ok = false
	}
	return buf
}

// unsafeString views b as a string without copying; the caller uses it
// only while b is alive and unchanged (stored rows are never modified).
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
