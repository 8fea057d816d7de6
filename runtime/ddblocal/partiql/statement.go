package partiql

import (
	"strconv"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
	"github.com/oncetable/oncetable/runtime/ddblocal/expr"
)

// Kind is what a statement does.
type Kind uint8

// The statements DynamoDB runs.
const (
	Select Kind = iota + 1
	Insert
	Update
	Delete
	// Exists is EXISTS(SELECT ...), a condition check inside ExecuteTransaction.
	Exists
)

func (k Kind) String() string {
	switch k {
	case Select:
		return "SELECT"
	case Insert:
		return "INSERT"
	case Update:
		return "UPDATE"
	case Delete:
		return "DELETE"
	case Exists:
		return "EXISTS"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// IsRead reports whether the statement only reads.
func (k Kind) IsRead() bool { return k == Select }

// Statement is a parsed PartiQL statement, in the expression language's
// trees. Every attribute name in a tree is a #placeholder of Names and every
// value a :placeholder whose Literal is in Values, so a tree prints (with
// String) as an expression DynamoDB's expression parser accepts, whatever
// the names are (reserved words included).
type Statement struct {
	Kind  Kind
	Table string
	// Index is the index of a SELECT FROM "table"."index", or "".
	Index string
	// Projection is the SELECT list; nil means *.
	Projection []expr.Path
	// Where is the WHERE clause, nil when there is none.
	Where expr.Cond
	// Item is INSERT's VALUE, a map.
	Item *Literal
	// Update holds UPDATE's SET and REMOVE clauses, with set_add and
	// set_delete as ADD and DELETE actions.
	Update *expr.Update
	// Returning is UPDATE's or DELETE's RETURNING clause in the ReturnValues
	// spelling (ALL_OLD, UPDATED_OLD, ALL_NEW, UPDATED_NEW), or "".
	Returning string
	// OrderBy is the ORDER BY path of a SELECT, nil when absent.
	OrderBy    expr.Path
	Descending bool

	Names  expr.Names
	Values map[string]*Literal
	// Params is the number of ? parameters.
	Params int
}

// LitKind says what a Literal is.
type LitKind uint8

// The kinds of Literal.
const (
	LitConst LitKind = iota // a value known when parsing
	LitParam                // a ? parameter
	LitMap                  // {...} holding a parameter
	LitList                 // [...] holding a parameter
	LitSet                  // <<...>> holding a parameter
)

// Literal is a value written in a statement. Values without parameters are
// folded to constants when parsed.
type Literal struct {
	Kind   LitKind
	Value  attr.Value // LitConst
	Param  int        // LitParam: the parameter's position, from 0
	Fields map[string]*Literal
	Elems  []*Literal
}

// Bind returns the statement's values with the parameters given. Their
// number must match the statement's ? parameters.
func (s *Statement) Bind(params []attr.Value) (expr.Values, error) {
	if len(params) != s.Params {
		return nil, validation("Number of parameters in request and statement don't match.")
	}
	out := make(expr.Values, len(s.Values))
	for ref, lit := range s.Values {
		v, err := lit.bind(params)
		if err != nil {
			return nil, err
		}
		out[ref] = v
	}
	return out, nil
}

func (l *Literal) bind(params []attr.Value) (attr.Value, error) {
	switch l.Kind {
	case LitConst:
		return l.Value, nil
	case LitParam:
		return params[l.Param], nil
	case LitMap:
		m := make(map[string]attr.Value, len(l.Fields))
		for k, f := range l.Fields {
			v, err := f.bind(params)
			if err != nil {
				return attr.Value{}, err
			}
			m[k] = v
		}
		return attr.Map(m), nil
	}
	vals := make([]attr.Value, len(l.Elems))
	for i, e := range l.Elems {
		v, err := e.bind(params)
		if err != nil {
			return attr.Value{}, err
		}
		vals[i] = v
	}
	if l.Kind == LitList {
		return attr.List(vals...), nil
	}
	return makeSet(vals)
}

// makeSet builds the set a bag <<...>> stands for: numbers, strings or
// binaries, all of one type.
func makeSet(vals []attr.Value) (attr.Value, error) {
	if len(vals) == 0 {
		return attr.Value{}, validation("Empty bags are not supported")
	}
	var t attr.Type
	switch vals[0].T {
	case attr.N:
		t = attr.NS
	case attr.S:
		t = attr.SS
	case attr.B:
		t = attr.BS
	default:
		return attr.Value{}, validation("Unsupported data type in Bag. DynamoDB only supports either numbers or strings in bags")
	}
	members := make([]string, 0, len(vals))
	seen := make(map[string]bool, len(vals))
	for _, v := range vals {
		if v.T != vals[0].T {
			return attr.Value{}, validation("Unsupported data type in Bag. DynamoDB only supports either numbers or strings in bags")
		}
		if !seen[v.S] {
			seen[v.S] = true
			members = append(members, v.S)
		}
	}
	return attr.Value{T: t, Set: members}, nil
}

// Name returns the attribute name a path element stands for.
func (s *Statement) Name(e expr.PathElem) string {
	if n, ok := s.Names[e.Name]; ok {
		return n
	}
	return e.Name
}

// ResolvePath replaces a path's placeholders by the names they stand for.
func (s *Statement) ResolvePath(p expr.Path) expr.Path {
	out := make(expr.Path, len(p))
	for i, e := range p {
		out[i] = e
		if !e.IsIndex {
			out[i].Name = s.Name(e)
		}
	}
	return out
}

// BoundItem returns INSERT's item with the parameters given (Bind checks
// their number).
func (s *Statement) BoundItem(params []attr.Value) (attr.Item, error) {
	if s.Item == nil {
		return nil, validation("Unsupported format in item expression. Please use struct format {...} to express item values for insert statement.")
	}
	v, err := s.Item.bind(params)
	if err != nil {
		return nil, err
	}
	if v.T != attr.M {
		return nil, validation("Unsupported format in item expression. Please use struct format {...} to express item values for insert statement.")
	}
	// A constant item is shared by the parsed statement: the engine may
	// keep the map it is given.
	return attr.Item(attr.Map(v.M).Clone().M), nil
}
