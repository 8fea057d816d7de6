package expr

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
)

// Lookup returns the value at a resolved path in item, and whether it exists.
func Lookup(item attr.Item, p Path) (attr.Value, bool) {
	if len(p) == 0 || p[0].IsIndex {
		return attr.Value{}, false
	}
	v, ok := item[p[0].Name]
	if !ok {
		return attr.Value{}, false
	}
	for _, e := range p[1:] {
		switch {
		case e.IsIndex && v.T == attr.L && e.Index < len(v.L):
			v = v.L[e.Index]
		case !e.IsIndex && v.T == attr.M:
			if v, ok = v.M[e.Name]; !ok {
				return attr.Value{}, false
			}
		default:
			return attr.Value{}, false
		}
	}
	return v, true
}

// env is what an evaluation reads: the item and the request's placeholders.
type env struct {
	item   attr.Item
	names  Names
	values Values
}

// value evaluates a condition operand; ok is false when it has no value
// (a missing attribute, or size of something without a size).
func (e *env) value(o Operand) (attr.Value, bool, error) {
	switch o := o.(type) {
	case Path:
		p, err := resolvePath(o, e.names)
		if err != nil {
			return attr.Value{}, false, err
		}
		v, ok := Lookup(e.item, p)
		return v, ok, nil
	case ValueRef:
		v, err := resolveValue(o, e.values)
		if err != nil {
			return attr.Value{}, false, err
		}
		return v, true, nil
	case *Call:
		if o.Name != "size" || len(o.Args) != 1 {
			return attr.Value{}, false, errorf("The function is not allowed to be used this way in an expression; function: %s", o.Name)
		}
		v, ok, err := e.value(o.Args[0])
		if err != nil || !ok {
			return attr.Value{}, false, err
		}
		n, ok := size(v)
		if !ok {
			return attr.Value{}, false, nil
		}
		return attr.Int(int64(n)), true, nil
	}
	return attr.Value{}, false, errorf("Syntax error; token: %q", o.String())
}

// size is DynamoDB's size(): characters of a string, bytes of a binary,
// members of a set, elements of a list or map.
func size(v attr.Value) (int, bool) {
	switch v.T {
	case attr.S:
		return utf8.RuneCountInString(v.S), true
	case attr.B:
		return len(v.S), true
	case attr.SS, attr.NS, attr.BS:
		return len(v.Set), true
	case attr.L:
		return len(v.L), true
	case attr.M:
		return len(v.M), true
	}
	return 0, false
}

// Eval reports whether item satisfies the condition. A missing item is an
// empty one. As in DynamoDB, comparisons with a missing attribute or between
// different types are false (and <> is true); errors arise only from
// placeholders that are not defined.
func (c *Condition) Eval(item attr.Item, names Names, values Values) (bool, error) {
	return c.eval(item, names, values, "ConditionExpression")
}

func (c *Condition) eval(item attr.Item, names Names, values Values, kind string) (bool, error) {
	e := &env{item: item, names: names, values: values}
	ok, err := e.cond(c.Root)
	if err != nil {
		return false, asValidation(err, kind)
	}
	return ok, nil
}

func (e *env) cond(c Cond) (bool, error) {
	switch c := c.(type) {
	case *And:
		l, err := e.cond(c.Left)
		if err != nil || !l {
			return false, err
		}
		return e.cond(c.Right)
	case *Or:
		l, err := e.cond(c.Left)
		if err != nil || l {
			return l, err
		}
		return e.cond(c.Right)
	case *Not:
		x, err := e.cond(c.X)
		return !x, err
	case *Compare:
		l, lok, err := e.value(c.Left)
		if err != nil {
			return false, err
		}
		r, rok, err := e.value(c.Right)
		if err != nil {
			return false, err
		}
		if c.Op == "<>" {
			return !(lok && rok && attr.Equal(l, r)), nil
		}
		if !lok || !rok {
			return false, nil
		}
		if c.Op == "=" {
			return attr.Equal(l, r), nil
		}
		cmp, ok := attr.Compare(l, r)
		if !ok {
			return false, nil
		}
		switch c.Op {
		case "<":
			return cmp < 0, nil
		case "<=":
			return cmp <= 0, nil
		case ">":
			return cmp > 0, nil
		default:
			return cmp >= 0, nil
		}
	case *Between:
		vals := make([]attr.Value, 3)
		for i, o := range []Operand{c.Operand, c.Low, c.High} {
			v, ok, err := e.value(o)
			if err != nil || !ok {
				return false, err
			}
			vals[i] = v
		}
		lo, ok1 := attr.Compare(vals[0], vals[1])
		hi, ok2 := attr.Compare(vals[0], vals[2])
		return ok1 && ok2 && lo >= 0 && hi <= 0, nil
	case *In:
		x, ok, err := e.value(c.Operand)
		if err != nil || !ok {
			return false, err
		}
		for _, o := range c.List {
			v, ok, err := e.value(o)
			if err != nil {
				return false, err
			}
			if ok && attr.Equal(x, v) {
				return true, nil
			}
		}
		return false, nil
	case *Call:
		return e.function(c)
	}
	return false, nil
}

func (e *env) function(c *Call) (bool, error) {
	// Every condition function takes one or two arguments: no allocation.
	var argBuf [2]attr.Value
	var presentBuf [2]bool
	args, present := argBuf[:0], presentBuf[:0]
	if len(c.Args) > len(argBuf) {
		args, present = make([]attr.Value, 0, len(c.Args)), make([]bool, 0, len(c.Args))
	}
	args, present = args[:len(c.Args)], present[:len(c.Args)]
	for i, a := range c.Args {
		v, ok, err := e.value(a)
		if err != nil {
			return false, err
		}
		args[i], present[i] = v, ok
	}
	switch c.Name {
	case "attribute_exists":
		return present[0], nil
	case "attribute_not_exists":
		return !present[0], nil
	case "attribute_type":
		return present[0] && present[1] && args[1].T == attr.S && args[0].T.String() == args[1].S, nil
	case "begins_with":
		if !present[0] || !present[1] || args[0].T != args[1].T || args[0].T != attr.S && args[0].T != attr.B {
			return false, nil
		}
		return strings.HasPrefix(args[0].S, args[1].S), nil
	case "contains":
		if !present[0] || !present[1] {
			return false, nil
		}
		return contains(args[0], args[1]), nil
	}
	return false, errorf("Invalid function name; function: %s", c.Name)
}

// contains is DynamoDB's contains(): a substring of a string (or binary), a
// member of a set of the operand's type, or an element of a list.
func contains(container, v attr.Value) bool {
	switch container.T {
	case attr.S:
		return v.T == attr.S && strings.Contains(container.S, v.S)
	case attr.B:
		return v.T == attr.B && bytes.Contains([]byte(container.S), []byte(v.S))
	case attr.SS:
		return v.T == attr.S && container.Has(v.S)
	case attr.NS:
		return v.T == attr.N && container.Has(v.S)
	case attr.BS:
		return v.T == attr.B && container.Has(v.S)
	case attr.L:
		for _, el := range container.L {
			if attr.Equal(el, v) {
				return true
			}
		}
	}
	return false
}

// Attributes lists the top-level attributes the condition reads, with
// placeholders resolved, in order of first appearance. Undefined names are
// skipped (Compile reports them).
func (c *Condition) Attributes(names Names) []string {
	var out []string
	seen := map[string]bool{}
	var operand func(o Operand)
	operand = func(o Operand) {
		switch o := o.(type) {
		case Path:
			if p, err := resolvePath(o, names); err == nil && !seen[p[0].Name] {
				seen[p[0].Name] = true
				out = append(out, p[0].Name)
			}
		case *Call:
			for _, a := range o.Args {
				operand(a)
			}
		case *Arith:
			operand(o.Left)
			operand(o.Right)
		}
	}
	var cond func(c Cond)
	cond = func(c Cond) {
		switch c := c.(type) {
		case *Call:
			operand(c)
		case *Compare:
			operand(c.Left)
			operand(c.Right)
		case *Between:
			operand(c.Operand)
			operand(c.Low)
			operand(c.High)
		case *In:
			operand(c.Operand)
			for _, o := range c.List {
				operand(o)
			}
		case *Not:
			cond(c.X)
		case *And:
			cond(c.Left)
			cond(c.Right)
		case *Or:
			cond(c.Left)
			cond(c.Right)
		}
	}
	cond(c.Root)
	return out
}
