package ddblocal

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"sort"
	"strconv"

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
