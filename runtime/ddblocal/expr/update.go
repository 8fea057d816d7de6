package expr

import (
	"slices"

	"github.com/cockroachdb/apd/v3"
	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
)

// Apply returns the item as the update leaves it, and the resolved paths the
// update wrote or removed (for ReturnValues UPDATED_OLD and UPDATED_NEW, see
// Project). item is not modified. A nil item is one that does not exist:
// the result starts empty and, as in DynamoDB, REMOVE does nothing.
//
// As in DynamoDB, every SET right-hand side is computed from the item as it
// was before the update; then SET, REMOVE, ADD and DELETE are applied in that
// order. Several list elements removed in one REMOVE are named by their
// positions before any of them is removed.
func (u *Update) Apply(item attr.Item, names Names, values Values) (attr.Item, []Path, error) {
	return u.apply(item, names, values, applyOpts{wantChanged: true})
}

// applyOpts are the variants of apply.
type applyOpts struct {
	// wantChanged collects the changed paths.
	wantChanged bool
	// owned updates item in place (every SET value is computed, and
	// cloned, before the item changes); the caller does not use it again.
	owned bool
	// key is what the update reads of an item that does not exist yet
	// (item nil): its key attributes.
	key attr.Item
}

// apply is Apply with the variants of o.
func (u *Update) apply(item attr.Item, names Names, values Values, o applyOpts) (attr.Item, []Path, error) {
	wantChanged, owned := o.wantChanged, o.owned
	e := &env{item: item, names: names, values: values}
	if item == nil {
		e.item = o.key
	}
	resolve := func(p Path) (Path, error) {
		rp, err := resolvePath(p, names)
		if err != nil {
			return nil, err.Validation("UpdateExpression")
		}
		return rp, nil
	}
	var changed []Path
	setPaths := make([]Path, len(u.Set))
	// Most updates SET a few attributes: their values stay on the stack.
	var valBuf [4]attr.Value
	var setVals []attr.Value
	if len(u.Set) <= len(valBuf) {
		setVals = valBuf[:len(u.Set)]
	} else {
		setVals = make([]attr.Value, len(u.Set))
	}
	for i, a := range u.Set {
		p, err := resolve(a.Path)
		if err != nil {
			return nil, nil, err
		}
		v, err := e.setValue(a.Value)
		if err != nil {
			return nil, nil, err
		}
		setPaths[i], setVals[i] = p, v.Clone()
		if wantChanged {
			changed = append(changed, p)
		}
	}
	out := item
	if !owned {
		out = item.Clone()
	}
	if out == nil {
		out = attr.Item{}
	}
	// Elements SET past the end of a list are appended in index order,
	// whatever the order of the actions.
	order := make([]int, len(setPaths))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return compareIndexes(setPaths[a], setPaths[b], 1) })
	for _, i := range order {
		if err := put(out, setPaths[i], setVals[i]); err != nil {
			return nil, nil, err
		}
	}

	removes := make([]Path, 0, len(u.Remove))
	for _, rp := range u.Remove {
		p, err := resolve(rp)
		if err != nil {
			return nil, nil, err
		}
		removes = append(removes, p)
		if wantChanged {
			changed = append(changed, p)
		}
	}
	// Later list positions go first so earlier removals do not shift them.
	slices.SortStableFunc(removes, func(a, b Path) int { return compareIndexes(a, b, -1) })
	for _, p := range removes {
		if item == nil {
			// DynamoDB ignores REMOVE of any path on an item that does not exist.
			continue
		}
		if err := remove(out, p); err != nil {
			return nil, nil, err
		}
	}

	for _, a := range u.Add {
		p, err := resolve(a.Path)
		if err != nil {
			return nil, nil, err
		}
		if wantChanged {
			changed = append(changed, p)
		}
		v, verr := resolveValue(a.Value, values)
		if verr != nil {
			return nil, nil, verr.Validation("UpdateExpression")
		}
		v = v.Clone()
		cur, ok := Lookup(out, p)
		if ok {
			if v, err = add(cur, v); err != nil {
				return nil, nil, err
			}
		}
		if err := put(out, p, v); err != nil {
			return nil, nil, err
		}
	}

	for _, a := range u.Delete {
		p, err := resolve(a.Path)
		if err != nil {
			return nil, nil, err
		}
		if wantChanged {
			changed = append(changed, p)
		}
		v, verr := resolveValue(a.Value, values)
		if verr != nil {
			return nil, nil, verr.Validation("UpdateExpression")
		}
		if len(p) > 1 {
			if parent, ok := Lookup(out, p[:len(p)-1]); !ok || !holds(parent, p[len(p)-1]) {
				return nil, nil, invalid(msgInvalidPath)
			}
		}
		cur, ok := Lookup(out, p)
		if !ok {
			continue
		}
		if cur.T != v.T || !v.T.IsSet() {
			return nil, nil, invalid(msgWrongDataType)
		}
		var left []string
		for _, m := range cur.Set {
			if !v.Has(m) {
				left = append(left, m)
			}
		}
		if len(left) == 0 {
			// DynamoDB has no empty sets: the attribute goes.
			if err := remove(out, p); err != nil {
				return nil, nil, err
			}
			continue
		}
		cur.Set = left
		if err := put(out, p, cur); err != nil {
			return nil, nil, err
		}
	}
	return out, changed, nil
}

// compareIndexes orders two paths by the first list index where they part
// (dir 1 ascending, -1 descending); paths that part elsewhere are equal.
func compareIndexes(a, b Path, dir int) int {
	for k := 0; k < len(a) && k < len(b); k++ {
		if a[k].IsIndex && b[k].IsIndex && a[k].Index != b[k].Index {
			return dir * (a[k].Index - b[k].Index)
		}
		if a[k] != b[k] {
			return 0
		}
	}
	return 0
}

// Range limits of DynamoDB numbers: magnitudes in [1E-130, 1E+126).
const (
	maxMagnitude = 126
	minExponent  = -130
)

// arith adds or subtracts two numbers exactly. attr checks a result's digit
// count before its range; DynamoDB reports an out-of-range result as an
// overflow or underflow, so the range is checked here first.
func arith(l, r attr.Value, sub bool) (attr.Value, error) {
	var v attr.Value
	var err error
	if sub {
		v, err = attr.SubNumbers(l, r)
	} else {
		v, err = attr.AddNumbers(l, r)
	}
	if err == nil {
		return v, nil
	}
	var d apd.Decimal
	ctx := apd.BaseContext.WithPrecision(400)
	if sub {
		_, _ = ctx.Sub(&d, attr.Decimal(l.S), attr.Decimal(r.S))
	} else {
		_, _ = ctx.Add(&d, attr.Decimal(l.S), attr.Decimal(r.S))
	}
	if !d.IsZero() {
		top := int64(d.Exponent) + d.NumDigits()
		if top > maxMagnitude {
			return attr.Value{}, invalid("Number overflow. Attempting to store a number with magnitude larger than supported range")
		}
		if top-1 < minExponent {
			return attr.Value{}, invalid("Number underflow. Attempting to store a number with magnitude smaller than supported range")
		}
	}
	return attr.Value{}, err
}

// holds reports whether container can have the element e (a map for a
// name, a list for an index).
func holds(container attr.Value, e PathElem) bool {
	if e.IsIndex {
		return container.T == attr.L
	}
	return container.T == attr.M
}

// add is ADD's arithmetic: number plus number, or set union.
func add(cur, v attr.Value) (attr.Value, error) {
	switch {
	case cur.T == attr.N && v.T == attr.N:
		return arith(cur, v, false)
	case cur.T.IsSet() && cur.T == v.T:
		out := cur.Clone()
		for _, m := range v.Set {
			if !out.Has(m) {
				out.Set = append(out.Set, m)
			}
		}
		return out, nil
	}
	return attr.Value{}, invalid(msgWrongDataType)
}

// setValue evaluates a SET right-hand side against the original item.
func (e *env) setValue(o Operand) (attr.Value, error) {
	switch o := o.(type) {
	case Path, ValueRef:
		v, ok, err := e.value(o)
		if err != nil {
			return attr.Value{}, asValidation(err, "UpdateExpression")
		}
		if !ok {
			return attr.Value{}, invalid(msgMissingOperand)
		}
		return v, nil
	case *Arith:
		l, err := e.setValue(o.Left)
		if err != nil {
			return attr.Value{}, err
		}
		r, err := e.setValue(o.Right)
		if err != nil {
			return attr.Value{}, err
		}
		if l.T != attr.N || r.T != attr.N {
			return attr.Value{}, invalid(msgWrongDataType)
		}
		return arith(l, r, o.Op == '-')
	case *Call:
		switch o.Name {
		case "if_not_exists":
			v, ok, err := e.value(o.Args[0])
			if err != nil {
				return attr.Value{}, asValidation(err, "UpdateExpression")
			}
			if ok {
				return v, nil
			}
			return e.setValue(o.Args[1])
		case "list_append":
			l, err := e.setValue(o.Args[0])
			if err != nil {
				return attr.Value{}, err
			}
			r, err := e.setValue(o.Args[1])
			if err != nil {
				return attr.Value{}, err
			}
			if l.T != attr.L || r.T != attr.L {
				return attr.Value{}, invalid(msgWrongDataType)
			}
			joined := make([]attr.Value, 0, len(l.L)+len(r.L))
			for _, v := range append(slices.Clip(l.L), r.L...) {
				joined = append(joined, v.Clone())
			}
			return attr.List(joined...), nil
		}
		return attr.Value{}, errorf("The function is not allowed in an update expression; function: %s", o.Name).Validation("UpdateExpression")
	}
	return attr.Value{}, invalid(msgInvalidPath)
}

// put stores v at p in item. Every element of p but the last must exist and
// have the right type; an index past the end of a list appends.
func put(item attr.Item, p Path, v attr.Value) error {
	name := p[0].Name
	if len(p) == 1 {
		item[name] = v
		return nil
	}
	cur, ok := item[name]
	if !ok {
		return invalid(msgInvalidPath)
	}
	nv, err := putIn(cur, p[1:], v)
	if err != nil {
		return err
	}
	item[name] = nv
	return nil
}

func putIn(cur attr.Value, p Path, v attr.Value) (attr.Value, error) {
	e := p[0]
	if !holds(cur, e) {
		return attr.Value{}, invalid(msgInvalidPath)
	}
	if e.IsIndex {
		if len(p) == 1 {
			if e.Index < len(cur.L) {
				cur.L[e.Index] = v
			} else {
				cur.L = append(cur.L, v)
			}
			return cur, nil
		}
		if e.Index >= len(cur.L) {
			return attr.Value{}, invalid(msgInvalidPath)
		}
		nv, err := putIn(cur.L[e.Index], p[1:], v)
		if err != nil {
			return attr.Value{}, err
		}
		cur.L[e.Index] = nv
		return cur, nil
	}
	if len(p) == 1 {
		cur.M[e.Name] = v
		return cur, nil
	}
	child, ok := cur.M[e.Name]
	if !ok {
		return attr.Value{}, invalid(msgInvalidPath)
	}
	nv, err := putIn(child, p[1:], v)
	if err != nil {
		return attr.Value{}, err
	}
	cur.M[e.Name] = nv
	return cur, nil
}

// remove deletes the element at p. A missing last element is not an error;
// a missing or mistyped parent is.
func remove(item attr.Item, p Path) error {
	name := p[0].Name
	if len(p) == 1 {
		delete(item, name)
		return nil
	}
	cur, ok := item[name]
	if !ok {
		return invalid(msgInvalidPath)
	}
	nv, err := removeIn(cur, p[1:])
	if err != nil {
		return err
	}
	item[name] = nv
	return nil
}

func removeIn(cur attr.Value, p Path) (attr.Value, error) {
	e := p[0]
	if !holds(cur, e) {
		return attr.Value{}, invalid(msgInvalidPath)
	}
	if e.IsIndex {
		if len(p) == 1 {
			if e.Index < len(cur.L) {
				cur.L = slices.Delete(cur.L, e.Index, e.Index+1)
			}
			return cur, nil
		}
		if e.Index >= len(cur.L) {
			return attr.Value{}, invalid(msgInvalidPath)
		}
		nv, err := removeIn(cur.L[e.Index], p[1:])
		if err != nil {
			return attr.Value{}, err
		}
		cur.L[e.Index] = nv
		return cur, nil
	}
	if len(p) == 1 {
		delete(cur.M, e.Name)
		return cur, nil
	}
	child, ok := cur.M[e.Name]
	if !ok {
		return attr.Value{}, invalid(msgInvalidPath)
	}
	nv, err := removeIn(child, p[1:])
	if err != nil {
		return attr.Value{}, err
	}
	cur.M[e.Name] = nv
	return cur, nil
}
