package partiql

import (
	"strconv"
	"strings"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
	"github.com/oncetable/oncetable/runtime/ddblocal/expr"
)

// MaxStatementSize is the longest statement DynamoDB accepts, in bytes.
const MaxStatementSize = 8192

// keywords may not stand as bare attribute names; quote them ("value").
var keywords = map[string]bool{
	"SELECT": true, "FROM": true, "WHERE": true, "AND": true, "OR": true, "NOT": true,
	"BETWEEN": true, "IN": true, "IS": true, "MISSING": true, "NULL": true, "TRUE": true,
	"FALSE": true, "SET": true, "REMOVE": true, "RETURNING": true, "VALUE": true,
	"INSERT": true, "INTO": true, "UPDATE": true, "DELETE": true, "ORDER": true, "BY": true,
	"EXISTS": true,
}

type parser struct {
	toks  []token
	i     int
	st    *Statement
	names map[string]string // real name -> placeholder
}

// Parse parses one PartiQL statement. Errors are *Error with DynamoDB's
// message.
func Parse(src string) (st *Statement, err error) {
	p := &parser{toks: lex(src), st: &Statement{Names: expr.Names{}, Values: map[string]*Literal{}}, names: map[string]string{}}
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(*Error)
			if !ok {
				panic(r)
			}
			st, err = nil, e
		}
	}()
	p.statement()
	if p.peek().is(";") {
		p.next()
	}
	if p.peek().kind != tEOF {
		p.unexpected()
	}
	return p.st, nil
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) peekAt(k int) token {
	if p.i+k < len(p.toks) {
		return p.toks[p.i+k]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) next() token {
	t := p.toks[p.i]
	if p.i < len(p.toks)-1 {
		p.i++
	}
	return t
}

func (p *parser) stop(e *Error) { panic(e) }

// unexpected reports the token where reading stopped.
func (p *parser) unexpected() {
	t := p.peek()
	switch t.kind {
	case tEOF:
		p.stop(syntax("Unexpected end of statement"))
	case tIdent:
		if keywords[strings.ToUpper(t.text)] {
			p.stop(syntax("Unexpected keyword: " + t.text))
		}
	case tBad:
		p.stop(syntax("Unexpected character: " + t.text))
	}
	p.stop(syntax("Unexpected token: " + t.text))
}

func (p *parser) accept(s string) bool {
	if p.peek().is(s) {
		p.next()
		return true
	}
	return false
}

func (p *parser) expect(s string) {
	if !p.accept(s) {
		p.unexpected()
	}
}

func (p *parser) statement() {
	t := p.peek()
	switch {
	case t.is("SELECT"):
		p.selectStatement()
	case t.is("INSERT"):
		p.insert()
	case t.is("UPDATE"):
		p.update()
	case t.is("DELETE"):
		p.deleteStatement()
	case t.is("EXISTS"):
		p.next()
		p.expect("(")
		if !p.peek().is("SELECT") {
			p.unexpected()
		}
		p.selectStatement()
		p.expect(")")
		p.st.Kind = Exists
	default:
		p.stop(syntax("Expected data manipulation"))
	}
}

func (p *parser) selectStatement() {
	p.expect("SELECT")
	p.st.Kind = Select
	if p.accept("*") {
		if p.peek().is(",") {
			p.stop(validation("Other attributes should not be present in the projection when '*' is used."))
		}
	} else {
		for {
			if p.peek().is("*") {
				p.stop(validation("Other attributes should not be present in the projection when '*' is used."))
			}
			p.st.Projection = append(p.st.Projection, p.path())
			if !p.accept(",") {
				break
			}
		}
	}
	p.expect("FROM")
	p.st.Table = p.name()
	if p.accept(".") {
		p.st.Index = p.name()
	}
	if p.accept("WHERE") {
		p.st.Where = p.cond()
	}
	if p.accept("ORDER") {
		p.expect("BY")
		p.st.OrderBy = p.path()
		if p.accept("DESC") {
			p.st.Descending = true
		} else {
			p.accept("ASC")
		}
	}
}

func (p *parser) insert() {
	p.expect("INSERT")
	p.expect("INTO")
	p.st.Kind = Insert
	p.st.Table = p.name()
	if !p.accept("VALUE") {
		if p.peek().is("VALUES") {
			p.stop(validation(`Unsupported operation: Inserting multiple items in a single statement is not supported, use "INSERT INTO tableName VALUE item" instead`))
		}
		p.unexpected()
	}
	if !p.peek().is("{") {
		p.stop(validation("Unsupported format in item expression. Please use struct format {...} to express item values for insert statement."))
	}
	p.st.Item = p.literal()
	if p.peek().is("RETURNING") {
		p.stop(validation("RETURNING is not supported in INSERT"))
	}
}

func (p *parser) update() {
	p.expect("UPDATE")
	p.st.Kind = Update
	p.st.Table = p.name()
	u := &expr.Update{}
	for {
		switch {
		case p.accept("SET"):
			for {
				p.assignment(u)
				if !p.accept(",") {
					break
				}
			}
			continue
		case p.accept("REMOVE"):
			for {
				u.Remove = append(u.Remove, p.path())
				if !p.accept(",") {
					break
				}
			}
			continue
		}
		break
	}
	if u.Set == nil && u.Remove == nil && u.Add == nil && u.Delete == nil {
		p.unexpected()
	}
	p.st.Update = u
	p.where()
	p.returning()
}

func (p *parser) deleteStatement() {
	p.expect("DELETE")
	p.expect("FROM")
	p.st.Kind = Delete
	p.st.Table = p.name()
	p.where()
	p.returning()
	if r := p.st.Returning; r != "" && r != "ALL_OLD" {
		p.stop(validation("Invalid returning clause: RETURNING " + strings.ReplaceAll(strings.ReplaceAll(r, "UPDATED", "MODIFIED"), "_", " ") + " *. Only RETURNING ALL OLD * is allowed in DELETE statements."))
	}
}

// where reads the WHERE clause a write must have.
func (p *parser) where() {
	if !p.accept("WHERE") {
		if p.peek().kind == tEOF {
			p.stop(validation("Where clause does not contain a mandatory equality on all key attributes"))
		}
		p.unexpected()
	}
	p.st.Where = p.cond()
}

func (p *parser) returning() {
	if !p.accept("RETURNING") {
		return
	}
	var which, when string
	switch {
	case p.accept("ALL"):
		which = "ALL"
	case p.accept("MODIFIED"):
		which = "UPDATED"
	default:
		p.unexpected()
	}
	switch {
	case p.accept("OLD"):
		when = "OLD"
	case p.accept("NEW"):
		when = "NEW"
	default:
		p.unexpected()
	}
	if !p.accept("*") {
		p.stop(validation("Expected '*' after ( MODIFIED | ALL ) ( NEW | OLD ) in RETURNING clause"))
	}
	if p.peek().is(",") {
		p.stop(validation("Invalid syntax with multiple returning elements in RETURNING clause"))
	}
	p.st.Returning = which + "_" + when
}

// name reads a table or index name: bare or double-quoted.
func (p *parser) name() string {
	t := p.peek()
	switch {
	case t.kind == tQuoted:
		p.next()
		return t.text
	case t.kind == tIdent && !keywords[strings.ToUpper(t.text)]:
		p.next()
		return t.text
	}
	p.unexpected()
	return ""
}

// placeholder returns the #name standing for an attribute name.
func (p *parser) placeholder(name string) string {
	if ph, ok := p.names[name]; ok {
		return ph
	}
	ph := "#n" + strconv.Itoa(len(p.names))
	p.names[name] = ph
	p.st.Names[ph] = name
	return ph
}

// value returns the :value standing for a literal.
func (p *parser) value(l *Literal) expr.ValueRef {
	ref := ":v" + strconv.Itoa(len(p.st.Values))
	p.st.Values[ref] = l
	return expr.ValueRef(ref)
}

// path reads a document path such as a.b[0]."c".
func (p *parser) path() expr.Path {
	first := p.name()
	if first == "" {
		p.stop(validation("Path component cannot be an empty string"))
	}
	path := expr.Path{{Name: p.placeholder(first)}}
	for {
		switch {
		case p.peek().is("."):
			p.next()
			n := p.name()
			if n == "" {
				p.stop(validation("Path component cannot be an empty string"))
			}
			path = append(path, expr.PathElem{Name: p.placeholder(n)})
		case p.peek().is("["):
			p.next()
			t := p.next()
			switch t.kind {
			case tNumber:
				i, err := strconv.Atoi(t.text)
				if err != nil || i < 0 {
					p.stop(validation("List index is not within the allowable range; index: [" + t.text + "]"))
				}
				path = append(path, expr.PathElem{Index: i, IsIndex: true})
			case tString:
				if t.text == "" {
					p.stop(validation("Path component cannot be an empty string"))
				}
				path = append(path, expr.PathElem{Name: p.placeholder(t.text)})
			default:
				p.i--
				p.unexpected()
			}
			p.expect("]")
		default:
			if len(path) > expr.MaxPathDepth {
				p.stop(validation("The document path has too many nesting levels; nesting levels: " + strconv.Itoa(len(path))))
			}
			return path
		}
	}
}

// startsValue reports whether the next token begins a literal or parameter.
func (p *parser) startsValue() bool {
	t := p.peek()
	switch t.kind {
	case tString, tNumber, tParam:
		return true
	case tIdent:
		return t.is("TRUE") || t.is("FALSE") || t.is("NULL")
	case tPunct:
		return t.text == "{" || t.text == "[" || t.text == "<<" || t.text == "-" && p.peekAt(1).kind == tNumber
	}
	return false
}

// literal reads a value: a scalar, a parameter, or a map, list or bag of
// them. Values without parameters fold to constants.
func (p *parser) literal() *Literal {
	t := p.next()
	switch t.kind {
	case tString:
		return &Literal{Value: attr.Str(t.text)}
	case tNumber:
		return p.number(t.text)
	case tParam:
		l := &Literal{Kind: LitParam, Param: p.st.Params}
		p.st.Params++
		return l
	case tIdent:
		switch {
		case t.is("TRUE"):
			return &Literal{Value: attr.Boolean(true)}
		case t.is("FALSE"):
			return &Literal{Value: attr.Boolean(false)}
		case t.is("NULL"):
			return &Literal{Value: attr.Null()}
		}
	case tPunct:
		switch t.text {
		case "-":
			if n := p.peek(); n.kind == tNumber {
				p.next()
				return p.number("-" + n.text)
			}
		case "{":
			return p.mapLiteral()
		case "[":
			return fold(&Literal{Kind: LitList, Elems: p.elements("]")})
		case "<<":
			return fold(&Literal{Kind: LitSet, Elems: p.elements(">>")})
		}
	}
	p.i--
	if p.i < 0 {
		p.i = 0
	}
	p.unexpected()
	return nil
}

func (p *parser) number(text string) *Literal {
	v, err := attr.Num(text)
	if err != nil {
		p.stop(validation(err.Error()))
	}
	return &Literal{Value: v}
}

func (p *parser) mapLiteral() *Literal {
	l := &Literal{Kind: LitMap, Fields: map[string]*Literal{}}
	if p.accept("}") {
		return fold(l)
	}
	for {
		k := p.next()
		if k.kind != tString {
			p.i--
			p.unexpected()
		}
		p.expect(":")
		if _, dup := l.Fields[k.text]; dup {
			p.stop(validation("Duplicate keys in tuple. Key: " + k.text))
		}
		l.Fields[k.text] = p.literal()
		if p.accept("}") {
			return fold(l)
		}
		p.expect(",")
	}
}

func (p *parser) elements(end string) []*Literal {
	elems := []*Literal{}
	if p.accept(end) {
		return elems
	}
	for {
		elems = append(elems, p.literal())
		if p.accept(end) {
			return elems
		}
		p.expect(",")
	}
}

// fold turns a composite whose parts are all constants into a constant.
func fold(l *Literal) *Literal {
	for _, f := range l.Fields {
		if f.Kind != LitConst {
			return l
		}
	}
	for _, e := range l.Elems {
		if e.Kind != LitConst {
			return l
		}
	}
	v, err := l.bind(nil)
	if err != nil {
		panic(err)
	}
	return &Literal{Value: v}
}
