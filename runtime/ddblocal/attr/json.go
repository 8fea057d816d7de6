package attr

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"sort"
	"unicode/utf8"
)

// wire is DynamoDB's JSON shape of an AttributeValue; exactly one field is set.
type wire struct {
	S    *string           `json:"S,omitempty"`
	N    *string           `json:"N,omitempty"`
	B    *[]byte           `json:"B,omitempty"`
	BOOL *bool             `json:"BOOL,omitempty"`
	NULL *bool             `json:"NULL,omitempty"`
	L    *[]Value          `json:"L,omitempty"`
	M    *map[string]Value `json:"M,omitempty"`
	SS   *[]string         `json:"SS,omitempty"`
	NS   *[]string         `json:"NS,omitempty"`
	BS   *[][]byte         `json:"BS,omitempty"`
}

const (
	msgEmptyValue   = "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"
	msgManyTypes    = "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"
	msgNullNotTrue  = "One or more parameter values were invalid: Null attribute value types must have the value of true"
	msgNumberFormat = "The parameter cannot be converted to a numeric value: %s"
)

// UnmarshalJSON decodes DynamoDB's wire form and validates it as DynamoDB
// does. Validation failures are *ValidationError.
func (v *Value) UnmarshalJSON(data []byte) error {
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		return &ValidationError{Message: msgEmptyValue}
	}
	if ok, err := v.unmarshalScalar(data); ok {
		return err
	}
	return v.unmarshalWire(data)
}

// unmarshalWire is the general decoder for every shape of value.
func (v *Value) unmarshalWire(data []byte) error {
	var w wire
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	n := 0
	for _, set := range []bool{w.S != nil, w.N != nil, w.B != nil, w.BOOL != nil, w.NULL != nil, w.L != nil, w.M != nil, w.SS != nil, w.NS != nil, w.BS != nil} {
		if set {
			n++
		}
	}
	switch {
	case n == 0:
		return &ValidationError{Message: msgEmptyValue}
	case n > 1:
		return &ValidationError{Message: msgManyTypes}
	}
	var err error
	switch {
	case w.S != nil:
		*v = Value{T: S, S: *w.S}
	case w.N != nil:
		var c string
		if c, err = CanonicalNumber(*w.N); err != nil {
			if ve, ok := err.(*ValidationError); ok && ve.Message == msgNotNumber {
				return Invalidf(msgNumberFormat, *w.N)
			}
			return err
		}
		*v = Value{T: N, S: c}
	case w.B != nil:
		*v = Value{T: B, S: string(*w.B)}
	case w.BOOL != nil:
		*v = Value{T: BOOL, Bool: *w.BOOL}
	case w.NULL != nil:
		if !*w.NULL {
			return &ValidationError{Message: msgNullNotTrue}
		}
		*v = Value{T: NULL}
	case w.L != nil:
		l := *w.L
		if l == nil {
			l = []Value{}
		}
		*v = Value{T: L, L: l}
	case w.M != nil:
		m := *w.M
		if m == nil {
			m = map[string]Value{}
		}
		*v = Value{T: M, M: m}
	case w.SS != nil:
		*v, err = StrSet(*w.SS...)
	case w.NS != nil:
		*v, err = NumSet(*w.NS...)
	case w.BS != nil:
		*v, err = BinSet(*w.BS...)
	}
	return err
}

// MarshalJSON encodes v in DynamoDB's wire form.
func (v Value) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	v.appendJSON(&buf)
	return buf.Bytes(), nil
}

func (v Value) appendJSON(buf *bytes.Buffer) {
	switch v.T {
	case S:
		buf.WriteString(`{"S":`)
		writeString(buf, v.S)
	case N:
		buf.WriteString(`{"N":`)
		writeString(buf, v.S)
	case B:
		buf.WriteString(`{"B":"`)
		buf.WriteString(base64.StdEncoding.EncodeToString([]byte(v.S)))
		buf.WriteByte('"')
	case BOOL:
		if v.Bool {
			buf.WriteString(`{"BOOL":true`)
		} else {
			buf.WriteString(`{"BOOL":false`)
		}
	case NULL:
		buf.WriteString(`{"NULL":true`)
	case L:
		buf.WriteString(`{"L":[`)
		for i, e := range v.L {
			if i > 0 {
				buf.WriteByte(',')
			}
			e.appendJSON(buf)
		}
		buf.WriteByte(']')
	case M:
		buf.WriteString(`{"M":`)
		Item(v.M).appendJSON(buf)
	case SS, NS, BS:
		buf.WriteString(`{"` + v.T.String() + `":[`)
		for i, m := range v.Set {
			if i > 0 {
				buf.WriteByte(',')
			}
			if v.T == BS {
				buf.WriteByte('"')
				buf.WriteString(base64.StdEncoding.EncodeToString([]byte(m)))
				buf.WriteByte('"')
			} else {
				writeString(buf, m)
			}
		}
		buf.WriteByte(']')
	default:
		buf.WriteString(`{`)
	}
	buf.WriteByte('}')
}

// MarshalJSON encodes the item as a JSON object of wire values, with names
// in sorted order so output is deterministic.
func (it Item) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	it.appendJSON(&buf)
	return buf.Bytes(), nil
}

func (it Item) appendJSON(buf *bytes.Buffer) {
	names := make([]string, 0, len(it))
	for k := range it {
		names = append(names, k)
	}
	sort.Strings(names)
	buf.WriteByte('{')
	for i, k := range names {
		if i > 0 {
			buf.WriteByte(',')
		}
		writeString(buf, k)
		buf.WriteByte(':')
		it[k].appendJSON(buf)
	}
	buf.WriteByte('}')
}

func writeString(buf *bytes.Buffer, s string) {
	b, _ := json.Marshal(s)
	buf.Write(b)
}

// unmarshalScalar decodes the common shapes {"S":"…"} and {"N":"…"} without
// reflection; ok is false for anything else, which the general path handles.
func (v *Value) unmarshalScalar(data []byte) (ok bool, err error) {
	data = bytes.TrimSpace(data)
	if len(data) < 8 || data[0] != '{' || data[1] != '"' || data[3] != '"' || data[4] != ':' || data[len(data)-1] != '}' {
		return false, nil
	}
	t := data[2]
	if t != 'S' && t != 'N' {
		return false, nil
	}
	str := bytes.TrimSpace(data[5 : len(data)-1])
	if len(str) < 2 || str[0] != '"' || str[len(str)-1] != '"' {
		return false, nil
	}
	body := str[1 : len(str)-1]
	for _, c := range body {
		// Escapes, quotes and control characters take the general path.
		if c == '\\' || c == '"' || c < 0x20 {
			return false, nil
		}
	}
	if t == 'S' {
		if !utf8.Valid(body) {
			return false, nil
		}
		*v = Value{T: S, S: string(body)}
		return true, nil
	}
	c, err := CanonicalNumber(string(body))
	if err != nil {
		if ve, ok := err.(*ValidationError); ok && ve.Message == msgNotNumber {
			return true, Invalidf(msgNumberFormat, string(body))
		}
		return true, err
	}
	*v = Value{T: N, S: c}
	return true, nil
}
