package expr

import (
	"strconv"
	"strings"
)

// Limits DynamoDB applies to every expression.
const (
	// MaxExpressionSize is the longest expression string, in bytes.
	MaxExpressionSize = 4096
	// MaxPathDepth is the deepest document path.
	MaxPathDepth = 32
	// MaxInOperands bounds IN: the left operand plus the list.
	MaxInOperands = 100
	maxListIndex  = 1<<31 - 1
)

type parser struct {
	src    string
	toks   []token
	i      int
	match  []int // for each "(" the index of its ")", -1 if unmatched
	update bool
}

// syntaxErr is DynamoDB's syntax error: the token where reading stopped and
// the source from the token before it to the token after it.
type syntaxErr struct{ err *Error }

func newParser(src string, update bool) *parser {
	p := &parser{src: src, toks: lex(src), update: update}
	p.match = make([]int, len(p.toks))
	var stack []int
	for i, t := range p.toks {
		p.match[i] = -1
		if t.is("(") {
			stack = append(stack, i)
		} else if t.is(")") && len(stack) > 0 {
			p.match[stack[len(stack)-1]] = i
			stack = stack[:len(stack)-1]
		}
	}
	return p
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

// fail stops parsing with a syntax error at the current token.
func (p *parser) fail() {
	at := p.i
	t := p.toks[at]
	from := 0
	if at > 0 {
		from = p.toks[at-1].pos
	}
	to := t.end
	if at+1 < len(p.toks) {
		to = p.toks[at+1].end
	}
	near := strings.TrimRight(p.src[from:to], " \t\r\n")
	panic(syntaxErr{errorf("Syntax error; token: %q, near: %q", t.text, near)})
}

// stop aborts parsing with a non-syntax error.
func (p *parser) stop(e *Error) { panic(syntaxErr{e}) }

func (p *parser) expect(s string) token {
	if !p.peek().is(s) {
		p.fail()
	}
	return p.next()
}

// run calls f, turning a parse abort into an error; any other panic is a bug
// and propagates.
func run(src string, f func()) (err *Error) {
	defer func() {
		if r := recover(); r != nil {
			se, ok := r.(syntaxErr)
			if !ok {
				panic(r)
			}
			err = se.err
		}
	}()
	if strings.TrimSpace(src) == "" {
		return errorf("The expression can not be empty;")
	}
	if len(src) > MaxExpressionSize {
		return errorf("Expression size has exceeded the maximum allowed size; expression size: %d", len(src))
	}
	f()
	return nil
}

// path reads a document path, checking bare names against the reserved words.
func (p *parser) path() Path {
	var path Path
	path = append(path, p.pathName())
	for {
		switch t := p.peek(); {
		case t.is("."):
			p.next()
			path = append(path, p.pathName())
		case t.is("["):
			p.next()
			n := p.peek()
			if n.kind != tNumber {
				p.fail()
			}
			p.next()
			idx, err := strconv.Atoi(n.text)
			if err != nil || idx > maxListIndex {
				p.stop(errorf("List index is not within the allowable range; index: %s", n.text))
			}
			p.expect("]")
			path = append(path, PathElem{Index: idx, IsIndex: true})
		default:
			if len(path) > MaxPathDepth {
				p.stop(errorf("The document path has too many nesting levels; nesting levels: %d", len(path)))
			}
			return path
		}
	}
}

func (p *parser) pathName() PathElem {
	t := p.peek()
	switch {
	case t.kind == tName:
	case t.kind == tIdent && !isKeyword(t, p.update):
		if IsReserved(t.text) {
			p.stop(errorf("Attribute name is a reserved keyword; reserved keyword: %s", t.text))
		}
	default:
		p.fail()
	}
	p.next()
	return PathElem{Name: t.text}
}

// ParseCondition parses a ConditionExpression or FilterExpression. It checks
// syntax and everything that does not depend on the placeholders' values:
// function names and operand counts, misused functions, reserved words and
// redundant parentheses.
func ParseCondition(s string) (*Condition, error) {
	root, err := parseCond(s)
	if err != nil {
		return nil, err
	}
	return &Condition{Root: root}, nil
}

func parseCond(s string) (root Cond, perr *Error) {
	p := newParser(s, false)
	if err := run(s, func() {
		root = p.or()
		if p.peek().kind != tEOF {
			p.fail()
		}
		p.checkParens()
		checkCond(p, root)
		checkOperatorCount(p, countCond(root))
	}); err != nil {
		return nil, err
	}
	return root, nil
}

// checkParens reports "((x))": two parentheses around the same thing, other
// than a function's or an IN list's own parentheses.
func (p *parser) checkParens() {
	for i := 0; i+1 < len(p.toks); i++ {
		if !p.toks[i].is("(") || !p.toks[i+1].is("(") || p.match[i] < 0 || p.match[i+1] != p.match[i]-1 {
			continue
		}
		if prev := p.toks[max(i-1, 0)]; i > 0 && prev.kind == tIdent && (!isKeyword(prev, false) || prev.is("IN")) {
			continue // a function's or an IN list's own parentheses
		}
		p.stop(errorf("The expression has redundant parentheses;"))
	}
}

func (p *parser) or() Cond {
	c := p.and()
	for p.peek().is("OR") {
		p.next()
		c = &Or{Left: c, Right: p.and()}
	}
	return c
}

func (p *parser) and() Cond {
	c := p.not()
	for p.peek().is("AND") {
		p.next()
		c = &And{Left: c, Right: p.not()}
	}
	return c
}

func (p *parser) not() Cond {
	if p.peek().is("NOT") {
		p.next()
		return &Not{X: p.not()}
	}
	return p.primary()
}

// startsComparison reports whether t continues an operand into a condition.
func startsComparison(t token) bool {
	switch {
	case t.kind == tPunct:
		switch t.text {
		case "=", "<>", "<", "<=", ">", ">=":
			return true
		}
	case t.is("BETWEEN"), t.is("IN"):
		return true
	}
	return false
}

func (p *parser) primary() Cond {
	// "(" opens either a nested condition or a parenthesised operand; the
	// token after its ")" tells which.
	if p.peek().is("(") {
		if m := p.match[p.i]; m < 0 || !startsComparison(p.toks[min(m+1, len(p.toks)-1)]) {
			p.next()
			c := p.or()
			p.expect(")")
			return c
		}
	}
	x := p.operand()
	t := p.peek()
	switch {
	case t.kind == tPunct && startsComparison(t):
		p.next()
		return &Compare{Op: t.text, Left: x, Right: p.operand()}
	case t.is("BETWEEN"):
		p.next()
		lo := p.operand()
		p.expect("AND")
		return &Between{Operand: x, Low: lo, High: p.operand()}
	case t.is("IN"):
		p.next()
		p.expect("(")
		in := &In{Operand: x, List: []Operand{p.operand()}}
		for p.peek().is(",") {
			p.next()
			in.List = append(in.List, p.operand())
		}
		p.expect(")")
		return in
	}
	if c, ok := x.(*Call); ok {
		return c
	}
	p.fail()
	return nil
}

// operand reads a path, a :value, a function call or a parenthesised
// operand. In update expressions a parenthesised operand may hold a + or -.
func (p *parser) operand() Operand {
	t := p.peek()
	switch {
	case t.is("("):
		p.next()
		var o Operand
		if p.update {
			o = p.setValue()
		} else {
			o = p.operand()
		}
		p.expect(")")
		return o
	case t.kind == tValue:
		p.next()
		return ValueRef(t.text)
	case t.kind == tIdent && !isKeyword(t, p.update) && p.peekAt(1).is("("):
		p.next()
		p.next()
		c := &Call{Name: t.text}
		if p.peek().is(")") {
			p.next()
			return c
		}
		c.Args = append(c.Args, p.operand())
		for p.peek().is(",") {
			p.next()
			c.Args = append(c.Args, p.operand())
		}
		p.expect(")")
		return c
	}
	return p.path()
}

// setValue reads SET's right-hand side: an operand, or two joined by + or -.
func (p *parser) setValue() Operand {
	x := p.operand()
	if t := p.peek(); t.is("+") || t.is("-") {
		p.next()
		return &Arith{Op: t.text[0], Left: x, Right: p.operand()}
	}
	return x
}

// ParseUpdate parses an UpdateExpression: SET, REMOVE, ADD and DELETE
// clauses in any order, each at most once.
func ParseUpdate(s string) (*Update, error) {
	u := &Update{}
	p := newParser(s, true)
	if err := run(s, func() {
		seen := map[string]bool{}
		for p.peek().kind != tEOF {
			kw := strings.ToUpper(p.peek().text)
			if p.peek().kind != tIdent || !(kw == "SET" || kw == "REMOVE" || kw == "ADD" || kw == "DELETE") {
				p.fail()
			}
			p.next()
			if seen[kw] {
				p.stop(errorf("The %q section can only be used once in an update expression;", kw))
			}
			seen[kw] = true
			for {
				switch kw {
				case "SET":
					path := p.path()
					p.expect("=")
					u.Set = append(u.Set, SetAction{Path: path, Value: p.setValue()})
				case "REMOVE":
					u.Remove = append(u.Remove, p.path())
				default:
					path := p.path()
					v := p.peek()
					if v.kind != tValue {
						p.fail()
					}
					p.next()
					a := ValueAction{Path: path, Value: ValueRef(v.text)}
					if kw == "ADD" {
						u.Add = append(u.Add, a)
					} else {
						u.Delete = append(u.Delete, a)
					}
				}
				if !p.peek().is(",") {
					break
				}
				p.next()
			}
		}
		checkUpdate(p, u)
	}); err != nil {
		return nil, err
	}
	return u, nil
}

// ParseProjection parses a ProjectionExpression: document paths separated by
// commas.
func ParseProjection(s string) (*Projection, error) {
	proj := &Projection{}
	p := newParser(s, false)
	if err := run(s, func() {
		proj.Paths = append(proj.Paths, p.path())
		for p.peek().is(",") {
			p.next()
			proj.Paths = append(proj.Paths, p.path())
		}
		if p.peek().kind != tEOF {
			p.fail()
		}
	}); err != nil {
		return nil, err
	}
	return proj, nil
}
