package partiql

import (
	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
	"github.com/oncetable/oncetable/runtime/ddblocal/expr"
)

// Conjuncts lists the conditions joined by the top-level ANDs of c, left to
// right; nil for a nil c.
func Conjuncts(c expr.Cond) []expr.Cond {
	if c == nil {
		return nil
	}
	if a, ok := c.(*expr.And); ok {
		return append(Conjuncts(a.Left), Conjuncts(a.Right)...)
	}
	return []expr.Cond{c}
}

// Join joins conditions with AND; nil for none.
func Join(cs []expr.Cond) expr.Cond {
	var out expr.Cond
	for _, c := range cs {
		if out == nil {
			out = c
		} else {
			out = &expr.And{Left: out, Right: c}
		}
	}
	return out
}

// Equality returns the attribute and value of a top-level "attr = value"
// (either way round), the shape that names a key.
func (s *Statement) Equality(c expr.Cond) (name string, v expr.ValueRef, ok bool) {
	cmp, isCmp := c.(*expr.Compare)
	if !isCmp || cmp.Op != "=" {
		return "", "", false
	}
	path, isPath := cmp.Left.(expr.Path)
	ref, isRef := cmp.Right.(expr.ValueRef)
	if !isPath || !isRef {
		path, isPath = cmp.Right.(expr.Path)
		ref, isRef = cmp.Left.(expr.ValueRef)
	}
	if !isPath || !isRef || len(path) != 1 || path[0].IsIndex {
		return "", "", false
	}
	return s.Name(path[0]), ref, true
}

// Placeholders returns the names and values that the given trees (each an
// expr.Cond, expr.Operand or *expr.Update; nil ones are skipped) use, out
// of all the statement's: the expression language refuses unused ones.
func Placeholders(names expr.Names, values expr.Values, trees ...any) (expr.Names, expr.Values) {
	w := &walker{all: names, vals: values}
	for _, t := range trees {
		switch t := t.(type) {
		case expr.Cond:
			if t != nil {
				w.cond(t)
			}
		case expr.Operand:
			if t != nil {
				w.operand(t)
			}
		case *expr.Update:
			if t != nil {
				w.update(t)
			}
		}
	}
	return w.names, w.values
}

type walker struct {
	all    expr.Names
	vals   expr.Values
	names  expr.Names
	values expr.Values
}

func (w *walker) path(p expr.Path) {
	for _, e := range p {
		if n, ok := w.all[e.Name]; ok && !e.IsIndex {
			if w.names == nil {
				w.names = expr.Names{}
			}
			w.names[e.Name] = n
		}
	}
}

func (w *walker) ref(r expr.ValueRef) {
	if v, ok := w.vals[string(r)]; ok {
		if w.values == nil {
			w.values = expr.Values{}
		}
		w.values[string(r)] = v
	}
}

func (w *walker) operand(o expr.Operand) {
	switch o := o.(type) {
	case expr.Path:
		w.path(o)
	case expr.ValueRef:
		w.ref(o)
	case *expr.Call:
		for _, a := range o.Args {
			w.operand(a)
		}
	case *expr.Arith:
		w.operand(o.Left)
		w.operand(o.Right)
	}
}

func (w *walker) cond(c expr.Cond) {
	switch c := c.(type) {
	case *expr.Compare:
		w.operand(c.Left)
		w.operand(c.Right)
	case *expr.Between:
		w.operand(c.Operand)
		w.operand(c.Low)
		w.operand(c.High)
	case *expr.In:
		w.operand(c.Operand)
		for _, o := range c.List {
			w.operand(o)
		}
	case *expr.Call:
		w.operand(c)
	case *expr.Not:
		w.cond(c.X)
	case *expr.And:
		w.cond(c.Left)
		w.cond(c.Right)
	case *expr.Or:
		w.cond(c.Left)
		w.cond(c.Right)
	}
}

func (w *walker) update(u *expr.Update) {
	for _, a := range u.Set {
		w.path(a.Path)
		w.operand(a.Value)
	}
	for _, p := range u.Remove {
		w.path(p)
	}
	for _, a := range append(append([]expr.ValueAction(nil), u.Add...), u.Delete...) {
		w.path(a.Path)
		w.ref(a.Value)
	}
}

// Alias is the attribute name under which a SELECT returns a path: its last
// name, or "_N" (N from 1) for a path ending in a list index, as PartiQL
// names an unnamed projection.
func (s *Statement) Alias(p expr.Path, position int) string {
	last := p[len(p)-1]
	if last.IsIndex {
		return "_" + itoa(position+1)
	}
	return s.Name(last)
}

// Lookup returns the value at a SELECT path in an item, the expression
// language's document path lookup.
func (s *Statement) Lookup(it attr.Item, p expr.Path) (attr.Value, bool) {
	return expr.Lookup(it, s.ResolvePath(p))
}
