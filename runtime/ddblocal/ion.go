package ddblocal

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
)

// Amazon Ion text, as DynamoDB's ION exports and imports write items
// (Developer Guide, "DynamoDB table export output format", Ion): a map is
// a struct, a list a list, S a string, N a decimal (an integer written
// 103., an exponent with d), B a blob {{base64}}, BOOL and NULL as
// themselves, and sets lists annotated $dynamodb_SS::, $dynamodb_NS:: and
// $dynamodb_BS::.

func writeIonItem(b *bytes.Buffer, it attr.Item) {
	names := make([]string, 0, len(it))
	for k := range it {
		names = append(names, k)
	}
	sort.Strings(names)
	b.WriteByte('{')
	for i, k := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		writeIonSymbol(b, k)
		b.WriteByte(':')
		writeIonValue(b, it[k])
	}
	b.WriteByte('}')
}

func writeIonValue(b *bytes.Buffer, v attr.Value) {
	switch v.T {
	case attr.S:
		b.WriteString(strconv.Quote(v.S))
	case attr.N:
		b.WriteString(ionDecimal(v.S))
	case attr.B:
		writeIonBlob(b, v.S)
	case attr.BOOL:
		b.WriteString(strconv.FormatBool(v.Bool))
	case attr.NULL:
		b.WriteString("null")
	case attr.L:
		b.WriteByte('[')
		for i, e := range v.L {
			if i > 0 {
				b.WriteByte(',')
			}
			writeIonValue(b, e)
		}
		b.WriteByte(']')
	case attr.M:
		writeIonItem(b, attr.Item(v.M))
	case attr.SS, attr.NS, attr.BS:
		b.WriteString("$dynamodb_" + v.T.String() + "::[")
		for i, e := range v.Set {
			if i > 0 {
				b.WriteByte(',')
			}
			switch v.T {
			case attr.SS:
				b.WriteString(strconv.Quote(e))
			case attr.NS:
				b.WriteString(ionDecimal(e))
			default:
				writeIonBlob(b, e)
			}
		}
		b.WriteByte(']')
	}
}

func writeIonBlob(b *bytes.Buffer, raw string) {
	b.WriteString("{{")
	b.WriteString(base64.StdEncoding.EncodeToString([]byte(raw)))
	b.WriteString("}}")
}

// writeIonSymbol writes a field name: bare when it is an identifier,
// quoted otherwise.
func writeIonSymbol(b *bytes.Buffer, s string) {
	bare := s != "" && s != "null" && s != "true" && s != "false" && s != "nan"
	for i, c := range s {
		if !(c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			bare = false
			break
		}
	}
	if bare {
		b.WriteString(s)
		return
	}
	q := strconv.Quote(s)
	b.WriteString("'" + strings.ReplaceAll(strings.ReplaceAll(q[1:len(q)-1], `\"`, `"`), "'", `\'`) + "'")
}

// ionDecimal writes a DynamoDB number as an Ion decimal: 103 → 103.,
// 1.5E+3 → 1.5d+3.
func ionDecimal(n string) string {
	if i := strings.IndexAny(n, "eE"); i >= 0 {
		return n[:i] + "d" + n[i+1:]
	}
	if !strings.Contains(n, ".") {
		return n + "."
	}
	return n
}

// parseIonLine reads one line of an ION export or import: an optional
// $ion_1_0 marker and a struct {Item:{…}}.
func parseIonLine(line string) (attr.Item, error) {
	p := &ionParser{s: line}
	p.space()
	if strings.HasPrefix(p.s[p.i:], "$ion_1_0") {
		p.i += len("$ion_1_0")
	}
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	if v.T != attr.M {
		return nil, errIon("a line is not a struct")
	}
	item, ok := v.M["Item"]
	if !ok || item.T != attr.M {
		return nil, errIon("no Item struct")
	}
	return attr.Item(item.M), nil
}

type ionParser struct {
	s string
	i int
}

func errIon(msg string) error { return &attr.ValidationError{Message: "Ion: " + msg} }

func (p *ionParser) space() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *ionParser) peek() byte {
	p.space()
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *ionParser) eat(c byte) bool {
	if p.peek() == c {
		p.i++
		return true
	}
	return false
}

// symbol reads a bare identifier or a 'quoted' symbol.
func (p *ionParser) symbol() (string, error) {
	p.space()
	if p.i < len(p.s) && p.s[p.i] == '\'' {
		return p.quoted('\'')
	}
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if !(c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			break
		}
		p.i++
	}
	if p.i == start {
		return "", errIon("symbol expected at " + strconv.Itoa(p.i))
	}
	return p.s[start:p.i], nil
}

// quoted reads a string quoted by q, with Ion's (and Go's) escapes.
func (p *ionParser) quoted(q byte) (string, error) {
	start := p.i
	p.i++
	for p.i < len(p.s) && p.s[p.i] != q {
		if p.s[p.i] == '\\' {
			p.i++
		}
		p.i++
	}
	if p.i >= len(p.s) {
		return "", errIon("unterminated string")
	}
	p.i++
	body := p.s[start+1 : p.i-1]
	if q == '\'' {
		body = strings.ReplaceAll(strings.ReplaceAll(body, `\'`, `'`), `"`, `\"`)
	}
	return strconv.Unquote(`"` + body + `"`)
}

func (p *ionParser) value() (attr.Value, error) {
	c := p.peek()
	switch {
	case c == '{' && strings.HasPrefix(p.s[p.i:], "{{"):
		b, err := p.blob()
		return attr.Value{T: attr.B, S: b}, err
	case c == '{':
		return p.structure()
	case c == '[':
		l, err := p.list()
		return attr.Value{T: attr.L, L: l}, err
	case c == '"':
		s, err := p.quoted('"')
		return attr.Str(s), err
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	sym, err := p.symbol()
	if err != nil {
		return attr.Value{}, err
	}
	if p.eat(':') {
		if !p.eat(':') {
			return attr.Value{}, errIon("':' after a symbol outside a struct")
		}
		return p.annotated(sym)
	}
	switch {
	case sym == "true" || sym == "false":
		return attr.Boolean(sym == "true"), nil
	case sym == "null" || strings.HasPrefix(sym, "null"):
		return attr.Value{T: attr.NULL, Bool: true}, nil
	}
	return attr.Value{}, errIon("unexpected symbol " + sym)
}

// annotated reads the list a $dynamodb_SS, _NS or _BS annotation marks.
func (p *ionParser) annotated(ann string) (attr.Value, error) {
	typ, ok := map[string]attr.Type{"$dynamodb_SS": attr.SS, "$dynamodb_NS": attr.NS, "$dynamodb_BS": attr.BS}[ann]
	if !ok {
		return attr.Value{}, errIon("unknown annotation " + ann)
	}
	l, err := p.list()
	if err != nil {
		return attr.Value{}, err
	}
	v := attr.Value{T: typ}
	for _, e := range l {
		want := map[attr.Type]attr.Type{attr.SS: attr.S, attr.NS: attr.N, attr.BS: attr.B}[typ]
		if e.T != want {
			return attr.Value{}, errIon("a " + typ.String() + " holds a " + e.T.String())
		}
		v.Set = append(v.Set, e.S)
	}
	// Validate (empty sets, duplicates) as the wire form is validated.
	raw, _ := v.MarshalJSON()
	var checked attr.Value
	if err := json.Unmarshal(raw, &checked); err != nil {
		return attr.Value{}, err
	}
	return checked, nil
}

func (p *ionParser) structure() (attr.Value, error) {
	p.eat('{')
	m := map[string]attr.Value{}
	for !p.eat('}') {
		if len(m) > 0 && !p.eat(',') {
			return attr.Value{}, errIon("',' expected in a struct")
		}
		if p.peek() == '}' {
			continue
		}
		var name string
		var err error
		if p.peek() == '"' {
			name, err = p.quoted('"')
		} else {
			name, err = p.symbol()
		}
		if err != nil {
			return attr.Value{}, err
		}
		if !p.eat(':') {
			return attr.Value{}, errIon("':' expected after " + name)
		}
		if m[name], err = p.value(); err != nil {
			return attr.Value{}, err
		}
	}
	return attr.Value{T: attr.M, M: m}, nil
}

func (p *ionParser) list() ([]attr.Value, error) {
	if !p.eat('[') {
		return nil, errIon("'[' expected")
	}
	l := []attr.Value{}
	for !p.eat(']') {
		if len(l) > 0 && !p.eat(',') {
			return nil, errIon("',' expected in a list")
		}
		if p.peek() == ']' {
			continue
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		l = append(l, v)
	}
	return l, nil
}

func (p *ionParser) blob() (string, error) {
	p.i += 2
	end := strings.Index(p.s[p.i:], "}}")
	if end < 0 {
		return "", errIon("unterminated blob")
	}
	b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(p.s[p.i:p.i+end]), ""))
	p.i += end + 2
	return string(b), err
}

// number reads an Ion int, decimal (d exponent) or float (e exponent) as
// a DynamoDB number.
func (p *ionParser) number() (attr.Value, error) {
	start := p.i
	for p.i < len(p.s) && strings.IndexByte("+-0123456789.dDeE_", p.s[p.i]) >= 0 {
		p.i++
	}
	n := strings.ReplaceAll(p.s[start:p.i], "_", "")
	n = strings.NewReplacer("d", "E", "D", "E").Replace(n)
	n = strings.TrimSuffix(n, ".")
	if i := strings.Index(n, ".E"); i >= 0 {
		n = n[:i] + n[i+1:]
	}
	var v attr.Value
	err := json.Unmarshal([]byte(`{"N":"`+n+`"}`), &v)
	return v, err
}
