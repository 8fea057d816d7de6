package partiql

import (
	"strings"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
	"github.com/oncetable/oncetable/runtime/ddblocal/expr"
)

// condFuncs are the functions that stand as conditions, with their operand
// counts; size is the one function that stands as an operand.
var condFuncs = map[string]int{
	"begins_with": 2, "contains": 2, "attribute_type": 2,
	"attribute_exists": 1, "attribute_not_exists": 1,
}

// isTypes maps the types of "x IS [NOT] type" to DynamoDB's type names.
var isTypes = map[string]string{
	"NULL": "NULL", "BOOLEAN": "BOOL", "BOOL": "BOOL", "STRING": "S", "NUMERIC": "N",
	"NUMBER": "N", "BLOB": "B", "STRUCT": "M", "TUPLE": "M", "LIST": "L",
}

func (p *parser) cond() expr.Cond {
	c := p.and()
	for p.accept("OR") {
		c = &expr.Or{Left: c, Right: p.and()}
	}
	return c
}

func (p *parser) and() expr.Cond {
	c := p.not()
	for p.accept("AND") {
		c = &expr.And{Left: c, Right: p.not()}
	}
	return c
}

func (p *parser) not() expr.Cond {
	if p.accept("NOT") {
		return &expr.Not{X: p.not()}
	}
	return p.predicate()
}

func (p *parser) predicate() expr.Cond {
	t := p.peek()
	if t.is("(") {
		p.next()
		c := p.cond()
		p.expect(")")
		return c
	}
	if t.kind == tIdent && p.peekAt(1).is("(") {
		name := strings.ToLower(t.text)
		if n, ok := condFuncs[name]; ok {
			p.next()
			p.next()
			return p.call(name, n)
		}
		if name != "size" {
			p.stop(validation("Unrecognized function: " + t.text))
		}
	}
	left := p.operand()
	switch {
	case p.peek().kind == tPunct && isComparison(p.peek().text):
		op := p.next().text
		if op == "!=" {
			op = "<>"
		}
		return &expr.Compare{Op: op, Left: left, Right: p.operand()}
	case p.accept("BETWEEN"):
		return p.between(left)
	case p.accept("IN"):
		return p.in(left)
	case p.accept("IS"):
		return p.is(left)
	case p.peek().is("NOT"):
		p.next()
		switch {
		case p.accept("BETWEEN"):
			return &expr.Not{X: p.between(left)}
		case p.accept("IN"):
			return &expr.Not{X: p.in(left)}
		}
	}
	p.stop(validation("WHERE clause must contain an expression that resolves to a boolean"))
	return nil
}

func isComparison(s string) bool {
	switch s {
	case "=", "<>", "!=", "<", "<=", ">", ">=":
		return true
	}
	return false
}

func (p *parser) between(x expr.Operand) expr.Cond {
	lo := p.operand()
	p.expect("AND")
	return &expr.Between{Operand: x, Low: lo, High: p.operand()}
}

func (p *parser) in(x expr.Operand) expr.Cond {
	end := "]"
	if !p.accept("[") {
		p.expect("(")
		end = ")"
	}
	var list []expr.Operand
	for !p.peek().is(end) {
		list = append(list, p.operand())
		if !p.accept(",") {
			break
		}
	}
	p.expect(end)
	if len(list) == 0 {
		p.stop(validation("IN operator must have a left hand argument of type Variable Reference and right hand argument of type Seq with at least one member"))
	}
	return &expr.In{Operand: x, List: list}
}

// is reads "IS [NOT] MISSING" and "IS [NOT] type".
func (p *parser) is(x expr.Operand) expr.Cond {
	path, ok := x.(expr.Path)
	if !ok {
		p.stop(validation("The left hand side argument to IS must be a Variable Reference, Literal, or Path"))
	}
	negate := p.accept("NOT")
	t := p.next()
	var c expr.Cond
	switch word := strings.ToUpper(t.text); {
	case t.kind == tIdent && word == "MISSING":
		c = &expr.Call{Name: "attribute_not_exists", Args: []expr.Operand{path}}
	case t.kind == tIdent && isTypes[word] != "":
		ref := p.value(&Literal{Value: attr.Str(isTypes[word])})
		c = &expr.Call{Name: "attribute_type", Args: []expr.Operand{path, ref}}
	default:
		p.i--
		p.stop(validation("Unsupported data type for IS operator: " + t.text + ". Supported data types are [MISSING, NULL, BOOLEAN, BLOB, STRING, NUMERIC, STRUCT, TUPLE, LIST]"))
	}
	if negate {
		return &expr.Not{X: c}
	}
	return c
}

// call reads a function's operands after "name(".
func (p *parser) call(name string, n int) *expr.Call {
	c := &expr.Call{Name: name}
	for !p.peek().is(")") {
		c.Args = append(c.Args, p.operand())
		if !p.accept(",") {
			break
		}
	}
	p.expect(")")
	if len(c.Args) != n {
		p.stop(validation("Incorrect number of operands for operator or function; operator or function: " + name + ", number of operands: " + itoa(len(c.Args))))
	}
	if _, isPath := c.Args[0].(expr.Path); !isPath {
		p.stop(validation("Operator or function requires a document path; operator or function: " + name))
	}
	return c
}

// operand reads a path, a value or size(path).
func (p *parser) operand() expr.Operand {
	if p.startsValue() {
		return p.value(p.literal())
	}
	t := p.peek()
	if t.kind == tIdent && p.peekAt(1).is("(") {
		if strings.EqualFold(t.text, "size") {
			p.next()
			p.next()
			return p.call("size", 1)
		}
		p.stop(validation("Unrecognized function: " + t.text))
	}
	if t.is("MISSING") {
		p.stop(validation("MISSING must be compared using IS operator"))
	}
	return p.path()
}
