package ddblocal

import (
	"strconv"
	"unicode/utf8"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
)

// The item operations and Query and Scan decode their requests without
// encoding/json's reflection, which was the largest cost of a small request.
// The fast path accepts only the plain shape clients send: exact field
// names, each once, no escapes in strings, no nulls, valid values. On
// anything else it gives up and the request is decoded again by
// encoding/json, so errors and unusual inputs behave exactly as before.

// fieldDecoder is an input with a hand-written decoder: decodeField reads
// the value of field name and reports false when the fast path must give up.
type fieldDecoder interface {
	decodeField(r *jsonReader, name string) bool
}

// decodeFast decodes body into in when in has a fieldDecoder and body has
// the plain shape; false means in may be partly filled and must be reset.
func decodeFast(body []byte, in any) bool {
	fd, ok := in.(fieldDecoder)
	if !ok {
		return false
	}
	r := jsonReader{src: body}
	var seen [16]string
	n := 0
	ok = r.object(func(name string) bool {
		for _, s := range seen[:n] {
			if s == name {
				return false // encoding/json merges repeated maps: leave it to it
			}
		}
		if n == len(seen) {
			return false
		}
		seen[n] = name
		n++
		return fd.decodeField(&r, name)
	})
	if !ok {
		return false
	}
	r.ws()
	return r.pos == len(r.src)
}

// jsonReader reads the plain subset of JSON the fast path accepts.
type jsonReader struct {
	src []byte
	pos int
}

func (r *jsonReader) ws() {
	for r.pos < len(r.src) {
		switch r.src[r.pos] {
		case ' ', '\t', '\n', '\r':
			r.pos++
		default:
			return
		}
	}
}

// consume skips whitespace and then c, reporting whether c was there.
func (r *jsonReader) consume(c byte) bool {
	r.ws()
	if r.pos < len(r.src) && r.src[r.pos] == c {
		r.pos++
		return true
	}
	return false
}

// rawString returns the bytes of a string without escapes, valid UTF-8.
func (r *jsonReader) rawString() ([]byte, bool) {
	if !r.consume('"') {
		return nil, false
	}
	start := r.pos
	ascii := true
	for r.pos < len(r.src) {
		c := r.src[r.pos]
		switch {
		case c == '"':
			s := r.src[start:r.pos]
			r.pos++
			if !ascii && !utf8.Valid(s) {
				return nil, false
			}
			return s, true
		case c == '\\' || c < 0x20:
			return nil, false
		case c >= 0x80:
			ascii = false
		}
		r.pos++
	}
	return nil, false
}

func (r *jsonReader) str() (string, bool) {
	b, ok := r.rawString()
	if !ok {
		return "", false
	}
	return string(b), true
}

func (r *jsonReader) strPtr() (*string, bool) {
	s, ok := r.str()
	if !ok {
		return nil, false
	}
	return &s, true
}

// literal reads true or false.
func (r *jsonReader) boolean() (bool, bool) {
	r.ws()
	rest := r.src[r.pos:]
	switch {
	case len(rest) >= 4 && string(rest[:4]) == "true":
		r.pos += 4
		return true, r.delimited()
	case len(rest) >= 5 && string(rest[:5]) == "false":
		r.pos += 5
		return false, r.delimited()
	}
	return false, false
}

// delimited reports whether a literal or number ends where it should.
func (r *jsonReader) delimited() bool {
	if r.pos == len(r.src) {
		return true
	}
	switch r.src[r.pos] {
	case ' ', '\t', '\n', '\r', ',', '}', ']':
		return true
	}
	return false
}

// integer reads a JSON integer (no fraction or exponent) that fits an int.
func (r *jsonReader) integer() (int, bool) {
	r.ws()
	start := r.pos
	if r.pos < len(r.src) && r.src[r.pos] == '-' {
		r.pos++
	}
	digits := r.pos
	for r.pos < len(r.src) && r.src[r.pos] >= '0' && r.src[r.pos] <= '9' {
		r.pos++
	}
	n := r.pos - digits
	if n == 0 || n > 18 || (n > 1 && r.src[digits] == '0') || !r.delimited() {
		return 0, false
	}
	v, err := strconv.Atoi(string(r.src[start:r.pos]))
	return v, err == nil
}

func (r *jsonReader) intPtr() (*int, bool) {
	v, ok := r.integer()
	if !ok {
		return nil, false
	}
	return &v, true
}

// object reads an object, calling field for each member with the reader
// positioned at its value.
func (r *jsonReader) object(field func(name string) bool) bool {
	if !r.consume('{') {
		return false
	}
	if r.consume('}') {
		return true
	}
	for {
		b, ok := r.rawString()
		if !ok || !r.consume(':') {
			return false
		}
		if !field(string(b)) {
			return false
		}
		if r.consume(',') {
			continue
		}
		return r.consume('}')
	}
}

// array reads an array, calling elem for each element.
func (r *jsonReader) array(elem func() bool) bool {
	if !r.consume('[') {
		return false
	}
	if r.consume(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		if r.consume(',') {
			continue
		}
		return r.consume(']')
	}
}

func (r *jsonReader) strings() ([]string, bool) {
	out := []string{}
	ok := r.array(func() bool {
		s, ok := r.str()
		out = append(out, s)
		return ok
	})
	return out, ok
}

func (r *jsonReader) names() (map[string]string, bool) {
	m := map[string]string{}
	ok := r.object(func(k string) bool {
		v, ok := r.str()
		m[k] = v
		return ok
	})
	return m, ok
}

func (r *jsonReader) item() (attr.Item, bool) {
	it := attr.Item{}
	ok := r.object(func(k string) bool {
		v, ok := r.value()
		it[k] = v
		return ok
	})
	return it, ok
}

func (r *jsonReader) values() (map[string]attr.Value, bool) {
	it, ok := r.item()
	return map[string]attr.Value(it), ok
}

// value reads an attribute value of exactly one type. Binary values and
// sets are left to encoding/json (base64 and set validation).
func (r *jsonReader) value() (attr.Value, bool) {
	var v attr.Value
	n := 0
	ok := r.object(func(t string) bool {
		n++
		if n > 1 {
			return false
		}
		switch t {
		case "S":
			s, ok := r.str()
			v = attr.Value{T: attr.S, S: s}
			return ok
		case "N":
			b, ok := r.rawString()
			if !ok {
				return false
			}
			c, err := attr.CanonicalNumber(string(b))
			v = attr.Value{T: attr.N, S: c}
			return err == nil
		case "BOOL":
			b, ok := r.boolean()
			v = attr.Value{T: attr.BOOL, Bool: b}
			return ok
		case "NULL":
			b, ok := r.boolean()
			v = attr.Value{T: attr.NULL}
			return ok && b
		case "M":
			m, ok := r.item()
			v = attr.Value{T: attr.M, M: m}
			return ok
		case "L":
			l := []attr.Value{}
			ok := r.array(func() bool {
				e, ok := r.value()
				l = append(l, e)
				return ok
			})
			v = attr.Value{T: attr.L, L: l}
			return ok
		}
		return false
	})
	return v, ok && n == 1
}

// decodeExprField reads the expression parameters every decoded input
// shares; the legacy parameters are left to encoding/json. (Not named
// decodeField, which embedding would promote to every input.)
func (p *exprParams) decodeExprField(r *jsonReader, name string) bool {
	var ok bool
	switch name {
	case "ExpressionAttributeNames":
		p.ExpressionAttributeNames, ok = r.names()
	case "ExpressionAttributeValues":
		p.ExpressionAttributeValues, ok = r.values()
	}
	return ok
}

func (in *putItemInput) decodeField(r *jsonReader, name string) bool {
	var ok bool
	switch name {
	case "TableName":
		in.TableName, ok = r.str()
	case "Item":
		in.Item, ok = r.item()
	case "ConditionExpression":
		in.ConditionExpression, ok = r.strPtr()
	case "ReturnValues":
		in.ReturnValues, ok = r.str()
	case "ReturnConsumedCapacity":
		in.ReturnConsumedCapacity, ok = r.str()
	case "ReturnItemCollectionMetrics":
		in.ReturnItemCollectionMetrics, ok = r.str()
	case "ReturnValuesOnConditionCheckFailure":
		in.ReturnValuesOnConditionCheckFailure, ok = r.str()
	default:
		ok = in.exprParams.decodeExprField(r, name)
	}
	return ok
}

func (in *getItemInput) decodeField(r *jsonReader, name string) bool {
	var ok bool
	switch name {
	case "TableName":
		in.TableName, ok = r.str()
	case "Key":
		in.Key, ok = r.item()
	case "ConsistentRead":
		in.ConsistentRead, ok = r.boolean()
	case "ProjectionExpression":
		in.ProjectionExpression, ok = r.strPtr()
	case "AttributesToGet":
		in.AttributesToGet, ok = r.strings()
	case "ReturnConsumedCapacity":
		in.ReturnConsumedCapacity, ok = r.str()
	default:
		ok = in.exprParams.decodeExprField(r, name)
	}
	return ok
}

func (in *deleteItemInput) decodeField(r *jsonReader, name string) bool {
	var ok bool
	switch name {
	case "TableName":
		in.TableName, ok = r.str()
	case "Key":
		in.Key, ok = r.item()
	case "ConditionExpression":
		in.ConditionExpression, ok = r.strPtr()
	case "ReturnValues":
		in.ReturnValues, ok = r.str()
	case "ReturnConsumedCapacity":
		in.ReturnConsumedCapacity, ok = r.str()
	case "ReturnItemCollectionMetrics":
		in.ReturnItemCollectionMetrics, ok = r.str()
	case "ReturnValuesOnConditionCheckFailure":
		in.ReturnValuesOnConditionCheckFailure, ok = r.str()
	default:
		ok = in.exprParams.decodeExprField(r, name)
	}
	return ok
}

func (in *updateItemInput) decodeField(r *jsonReader, name string) bool {
	var ok bool
	switch name {
	case "TableName":
		in.TableName, ok = r.str()
	case "Key":
		in.Key, ok = r.item()
	case "UpdateExpression":
		in.UpdateExpression, ok = r.strPtr()
	case "ConditionExpression":
		in.ConditionExpression, ok = r.strPtr()
	case "ReturnValues":
		in.ReturnValues, ok = r.str()
	case "ReturnConsumedCapacity":
		in.ReturnConsumedCapacity, ok = r.str()
	case "ReturnItemCollectionMetrics":
		in.ReturnItemCollectionMetrics, ok = r.str()
	case "ReturnValuesOnConditionCheckFailure":
		in.ReturnValuesOnConditionCheckFailure, ok = r.str()
	default:
		ok = in.exprParams.decodeExprField(r, name)
	}
	return ok
}

func (in *readInput) decodeField(r *jsonReader, name string) bool {
	var ok bool
	switch name {
	case "TableName":
		in.TableName, ok = r.str()
	case "IndexName":
		in.IndexName, ok = r.strPtr()
	case "FilterExpression":
		in.FilterExpression, ok = r.strPtr()
	case "ProjectionExpression":
		in.ProjectionExpression, ok = r.strPtr()
	case "AttributesToGet":
		in.AttributesToGet, ok = r.strings()
	case "Limit":
		in.Limit, ok = r.intPtr()
	case "ExclusiveStartKey":
		in.ExclusiveStartKey, ok = r.item()
	case "Select":
		in.Select, ok = r.str()
	case "ConsistentRead":
		in.ConsistentRead, ok = r.boolean()
	case "ReturnConsumedCapacity":
		in.ReturnConsumedCapacity, ok = r.str()
	default:
		ok = in.exprParams.decodeExprField(r, name)
	}
	return ok
}

func (in *queryInput) decodeField(r *jsonReader, name string) bool {
	var ok bool
	switch name {
	case "KeyConditionExpression":
		in.KeyConditionExpression, ok = r.strPtr()
	case "ScanIndexForward":
		var b bool
		b, ok = r.boolean()
		in.ScanIndexForward = &b
	default:
		ok = in.readInput.decodeField(r, name)
	}
	return ok
}

func (in *scanInput) decodeField(r *jsonReader, name string) bool {
	var ok bool
	switch name {
	case "Segment":
		in.Segment, ok = r.intPtr()
	case "TotalSegments":
		in.TotalSegments, ok = r.intPtr()
	default:
		ok = in.readInput.decodeField(r, name)
	}
	return ok
}
