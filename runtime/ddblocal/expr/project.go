package expr

import (
	"sort"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
)

// Apply returns the attributes of item that the projection names. Nested
// paths keep their enclosing maps and lists; list elements keep their order
// and close up, as in DynamoDB. Names must be defined (Compile checks that);
// a path with an undefined name selects nothing.
func (p *Projection) Apply(item attr.Item, names Names) attr.Item {
	paths := make([]Path, 0, len(p.Paths))
	for _, pp := range p.Paths {
		if rp, err := resolvePath(pp, names); err == nil {
			paths = append(paths, rp)
		}
	}
	return Project(item, paths)
}

// Project returns the parts of item at the given resolved paths, such as the
// paths (*Update).Apply reports.
func Project(item attr.Item, paths []Path) attr.Item {
	root := &projNode{}
	for _, p := range paths {
		root.add(p)
	}
	out := attr.Item{}
	for name, child := range root.names {
		if v, ok := item[name]; ok {
			if pv, ok := child.pick(v); ok {
				out[name] = pv
			}
		}
	}
	return out
}

// projNode is a tree of requested paths; a leaf takes the whole value.
type projNode struct {
	leaf    bool
	names   map[string]*projNode
	indexes map[int]*projNode
}

func (n *projNode) add(p Path) {
	for _, e := range p {
		if n.leaf {
			return
		}
		var next *projNode
		if e.IsIndex {
			if n.indexes == nil {
				n.indexes = map[int]*projNode{}
			}
			if next = n.indexes[e.Index]; next == nil {
				next = &projNode{}
				n.indexes[e.Index] = next
			}
		} else {
			if n.names == nil {
				n.names = map[string]*projNode{}
			}
			if next = n.names[e.Name]; next == nil {
				next = &projNode{}
				n.names[e.Name] = next
			}
		}
		n = next
	}
	n.leaf, n.names, n.indexes = true, nil, nil
}

func (n *projNode) pick(v attr.Value) (attr.Value, bool) {
	if n.leaf {
		return v.Clone(), true
	}
	switch {
	case v.T == attr.M && n.names != nil:
		m := map[string]attr.Value{}
		for name, child := range n.names {
			if cv, ok := v.M[name]; ok {
				if pv, ok := child.pick(cv); ok {
					m[name] = pv
				}
			}
		}
		if len(m) == 0 {
			return attr.Value{}, false
		}
		return attr.Map(m), true
	case v.T == attr.L && n.indexes != nil:
		idx := make([]int, 0, len(n.indexes))
		for i := range n.indexes {
			idx = append(idx, i)
		}
		sort.Ints(idx)
		var l []attr.Value
		for _, i := range idx {
			if i < len(v.L) {
				if pv, ok := n.indexes[i].pick(v.L[i]); ok {
					l = append(l, pv)
				}
			}
		}
		if len(l) == 0 {
			return attr.Value{}, false
		}
		return attr.List(l...), true
	}
	return attr.Value{}, false
}
