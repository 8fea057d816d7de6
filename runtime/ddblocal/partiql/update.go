package partiql

import (
	"strconv"
	"strings"

	"github.com/oncetable/oncetable/runtime/ddblocal/expr"
)

func itoa(i int) string { return strconv.Itoa(i) }

// assignment reads "path = value" of a SET clause into u. set_add and
// set_delete become ADD and DELETE actions of the same path.
func (p *parser) assignment(u *expr.Update) {
	target := p.path()
	p.expect("=")
	t := p.peek()
	if t.kind == tIdent && p.peekAt(1).is("(") {
		switch fn := strings.ToLower(t.text); fn {
		case "set_add", "set_delete":
			p.next()
			p.next()
			a := p.setFunction(fn, target)
			if fn == "set_add" {
				u.Add = append(u.Add, a)
			} else {
				u.Delete = append(u.Delete, a)
			}
			return
		}
	}
	v := p.setOperand()
	if p.peek().is("+") || p.peek().is("-") {
		op := p.next().text[0]
		v = &expr.Arith{Op: op, Left: v, Right: p.setOperand()}
	}
	u.Set = append(u.Set, expr.SetAction{Path: target, Value: v})
}

// setFunction reads the operands of set_add(path, set) or set_delete.
func (p *parser) setFunction(fn string, target expr.Path) expr.ValueAction {
	name := strings.ToUpper(strings.TrimPrefix(fn, "set_"))
	var args []expr.Operand
	for !p.peek().is(")") {
		args = append(args, p.setOperand())
		if !p.accept(",") {
			break
		}
	}
	p.expect(")")
	if len(args) != 2 {
		p.stop(validation("SET_" + name + " must have exactly two arguments"))
	}
	if first, ok := args[0].(expr.Path); !ok || first.String() != target.String() {
		p.stop(validation("The first argument to SET_" + name + " must equal the assignment value"))
	}
	ref, ok := args[1].(expr.ValueRef)
	if !ok || !isSetLiteral(p.st.Values[string(ref)]) {
		p.stop(validation("The second argument to SET_" + name + " must be a value with type SET"))
	}
	return expr.ValueAction{Path: target, Value: ref}
}

// isSetLiteral reports whether l is a bag, or a parameter (whose type is
// known only when bound; the update checks it then).
func isSetLiteral(l *Literal) bool {
	switch l.Kind {
	case LitSet, LitParam:
		return true
	case LitConst:
		return l.Value.T.IsSet()
	}
	return false
}

// setOperand reads a SET right-hand side operand: a value, a path, or
// list_append(...) and if_not_exists(...).
func (p *parser) setOperand() expr.Operand {
	if p.startsValue() {
		return p.value(p.literal())
	}
	t := p.peek()
	if t.kind == tIdent && p.peekAt(1).is("(") {
		fn := strings.ToLower(t.text)
		if fn != "list_append" && fn != "if_not_exists" {
			p.stop(validation("Unrecognized function: " + t.text))
		}
		p.next()
		p.next()
		c := &expr.Call{Name: fn}
		for !p.peek().is(")") {
			c.Args = append(c.Args, p.setOperand())
			if !p.accept(",") {
				break
			}
		}
		p.expect(")")
		if len(c.Args) != 2 {
			p.stop(validation("Incorrect number of operands for operator or function; operator or function: " + fn + ", number of operands: " + itoa(len(c.Args))))
		}
		return c
	}
	return p.path()
}
