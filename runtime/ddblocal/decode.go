package ddblocal

import (
	"encoding/binary"
	"strconv"
	"sync"
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
	if !r.consume('{') {
		return false
	}
	var seen [16]string
	for i := 0; ; i++ {
		b, more, ok := r.member(i)
		if !ok {
			return false
		}
		if !more {
			break
		}
		// Field names are only compared, so they may view the body.
		name := unsafeString(b)
		for _, s := range seen[:min(i, len(seen))] {
			if s == name {
				return false // encoding/json merges repeated maps: leave it to it
			}
		}
		if i >= len(seen) || !fd.decodeField(&r, name) {
			return false
		}
		seen[i] = name
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
	r.pos = skipPlain(r.src, r.pos)
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

// str reads a string of the request's structure (a name, an expression,
// an enum), interned.
// skipPlain returns the position of the first byte at or after pos that
// the string scanner must look at: a quote, a backslash, a control
// character or a byte of a multi-byte sequence. It reads eight bytes at a
// time (SWAR): for most strings of a request it goes straight to the
// closing quote.
func skipPlain(src []byte, pos int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for pos+8 <= len(src) {
		w := binary.LittleEndian.Uint64(src[pos:])
		quote, slash := w^(ones*'"'), w^(ones*'\\')
		special := (quote-ones)&^quote | (slash-ones)&^slash | (w - ones*0x20) | w
		if special&highs != 0 {
			break
		}
		pos += 8
	}
	return pos
}

func (r *jsonReader) str() (string, bool) {
	b, ok := r.rawString()
	if !ok {
		return "", false
	}
	return intern(b), true
}

// text reads a string of the data (an attribute value), not interned.
func (r *jsonReader) text() (string, bool) {
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

// member moves to the i-th member of an object whose '{' was consumed
// and returns its name, the reader then being at its value; more is false
// at the closing '}'.
func (r *jsonReader) member(i int) (name []byte, more, ok bool) {
	if r.consume('}') {
		return nil, false, true
	}
	if i > 0 && !r.consume(',') {
		return nil, false, false
	}
	b, ok := r.rawString()
	if !ok || !r.consume(':') {
		return nil, false, false
	}
	return b, true, true
}

// elem moves to the i-th element of an array whose '[' was consumed; more
// is false at the closing ']'.
func (r *jsonReader) elem(i int) (more, ok bool) {
	if r.consume(']') {
		return false, true
	}
	if i > 0 && !r.consume(',') {
		return false, false
	}
	return true, true
}

func (r *jsonReader) strings() ([]string, bool) {
	if !r.consume('[') {
		return nil, false
	}
	out := []string{}
	for i := 0; ; i++ {
		more, ok := r.elem(i)
		if !more || !ok {
			return out, ok
		}
		s, ok := r.str()
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
}

func (r *jsonReader) names() (map[string]string, bool) {
	if !r.consume('{') {
		return nil, false
	}
	m := map[string]string{}
	for i := 0; ; i++ {
		k, more, ok := r.member(i)
		if !more || !ok {
			return m, ok
		}
		v, ok := r.str()
		if !ok {
			return nil, false
		}
		m[intern(k)] = v
	}
}

func (r *jsonReader) item() (attr.Item, bool) { return r.itemInto(attr.Item{}) }

// reusedItem is item into the room of an item given to releaseItem, for
// request parameters an operation releases when done with them. Its size
// is unknown until read: a whole item's room first, else a small one,
// which releaseItem files a released item of a few attributes in (a
// PutItem of small items finds its room there, not in a new map).
func (r *jsonReader) reusedItem() (attr.Item, bool) {
	return r.reusedFrom(&itemPool, &smallItemPool)
}

// reusedSmall is reusedItem for a map of a few attributes: a key or the
// placeholder values of expressions.
func (r *jsonReader) reusedSmall() (attr.Item, bool) { return r.reusedFrom(&smallItemPool) }

// reusedFrom reads an item into the room of the first of pools that has
// one, or into a new map.
func (r *jsonReader) reusedFrom(pools ...*sync.Pool) (attr.Item, bool) {
	for _, pool := range pools {
		if it, _ := pool.Get().(attr.Item); it != nil {
			return r.itemInto(it)
		}
	}
	return r.itemInto(attr.Item{})
}

// itemInto reads an item into it, which is empty.
func (r *jsonReader) itemInto(it attr.Item) (attr.Item, bool) {
	if !r.consume('{') {
		return nil, false
	}
	for i := 0; ; i++ {
		k, more, ok := r.member(i)
		if !more || !ok {
			return it, ok
		}
		v, ok := r.value()
		if !ok {
			return nil, false
		}
		it[intern(k)] = v
	}
}

func (r *jsonReader) values() (map[string]attr.Value, bool) {
	it, ok := r.reusedSmall()
	return map[string]attr.Value(it), ok
}

// value reads an attribute value of exactly one type. Binary values and
// sets are left to encoding/json (base64 and set validation).
func (r *jsonReader) value() (attr.Value, bool) {
	if !r.consume('{') {
		return attr.Value{}, false
	}
	t, more, ok := r.member(0)
	if !more || !ok {
		return attr.Value{}, false
	}
	var v attr.Value
	switch string(t) {
	case "S":
		v.T = attr.S
		v.S, ok = r.text()
	case "N":
		var b []byte
		if b, ok = r.rawString(); ok {
			var err error
			v.T = attr.N
			v.S, err = attr.CanonicalNumber(string(b))
			ok = err == nil
		}
	case "BOOL":
		v.T = attr.BOOL
		v.Bool, ok = r.boolean()
	case "NULL":
		var b bool
		b, ok = r.boolean()
		v.T = attr.NULL
		ok = ok && b
	case "M":
		v.T = attr.M
		v.M, ok = r.item()
	case "L":
		v.T = attr.L
		v.L, ok = r.list()
	default:
		return attr.Value{}, false
	}
	if !ok || !r.consume('}') {
		return attr.Value{}, false
	}
	return v, true
}

func (r *jsonReader) list() ([]attr.Value, bool) {
	if !r.consume('[') {
		return nil, false
	}
	l := []attr.Value{}
	for i := 0; ; i++ {
		more, ok := r.elem(i)
		if !more || !ok {
			return l, ok
		}
		e, ok := r.value()
		if !ok {
			return nil, false
		}
		l = append(l, e)
	}
}

// decodeExprField reads the expression parameters every decoded input
// shares; the legacy parameters are kept raw, decoded by the operations
// that take them (legacy.go). (Not named decodeField, which embedding
// would promote to every input.)
func (p *exprParams) decodeExprField(r *jsonReader, name string) bool {
	var ok bool
	switch name {
	case "ExpressionAttributeNames":
		p.ExpressionAttributeNames, ok = r.names()
	case "ExpressionAttributeValues":
		p.ExpressionAttributeValues, ok = r.values()
	case "Expected":
		p.Expected, ok = r.rawValue()
	case "AttributeUpdates":
		p.AttributeUpdates, ok = r.rawValue()
	case "ConditionalOperator":
		p.ConditionalOperator, ok = r.rawValue()
	case "KeyConditions":
		p.KeyConditions, ok = r.rawValue()
	case "QueryFilter":
		p.QueryFilter, ok = r.rawValue()
	case "ScanFilter":
		p.ScanFilter, ok = r.rawValue()
	}
	return ok
}

func (in *putItemInput) decodeField(r *jsonReader, name string) bool {
	var ok bool
	switch name {
	case "Item":
		in.Item, ok = r.reusedItem()
	default:
		ok = in.writeOptions.decodeField(r, name)
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
	if name == "Key" {
		var ok bool
		in.Key, ok = r.item()
		return ok
	}
	return in.writeOptions.decodeField(r, name)
}

// decodeField decodes the members PutItem, UpdateItem and DeleteItem share.
func (w *writeOptions) decodeField(r *jsonReader, name string) bool {
	var ok bool
	switch name {
	case "TableName":
		w.TableName, ok = r.str()
	case "ConditionExpression":
		w.ConditionExpression, ok = r.strPtr()
	case "ReturnValues":
		w.ReturnValues, ok = r.str()
	case "ReturnConsumedCapacity":
		w.ReturnConsumedCapacity, ok = r.str()
	case "ReturnItemCollectionMetrics":
		w.ReturnItemCollectionMetrics, ok = r.str()
	case "ReturnValuesOnConditionCheckFailure":
		w.ReturnValuesOnConditionCheckFailure, ok = r.str()
	default:
		ok = w.exprParams.decodeExprField(r, name)
	}
	return ok
}

func (in *updateItemInput) decodeField(r *jsonReader, name string) bool {
	var ok bool
	switch name {
	case "Key":
		in.Key, ok = r.reusedSmall()
	case "UpdateExpression":
		in.UpdateExpression, ok = r.strPtr()
	default:
		ok = in.writeOptions.decodeField(r, name)
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
