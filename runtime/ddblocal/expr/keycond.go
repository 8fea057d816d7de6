package expr

import (
	"strings"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
)

// ParseKeyCondition parses a KeyConditionExpression: a condition on the
// partition key (=) optionally joined by AND to one condition on the sort key
// (=, <, <=, >, >=, BETWEEN or begins_with). Which attributes are keys is
// checked later, by (*KeyCondition).Resolve.
func ParseKeyCondition(s string) (*KeyCondition, error) {
	root, err := parseCond(s)
	if err != nil {
		return nil, err
	}
	if err := checkKeyCond(root); err != nil {
		return nil, err
	}
	return &KeyCondition{Root: root}, nil
}

func checkKeyCond(c Cond) *Error {
	switch c := c.(type) {
	case *And:
		if err := checkKeyCond(c.Left); err != nil {
			return err
		}
		return checkKeyCond(c.Right)
	case *Or:
		return bareErrorf("Invalid operator used in KeyConditionExpression: OR")
	case *Not:
		return bareErrorf("Invalid operator used in KeyConditionExpression: NOT")
	case *In:
		return bareErrorf("Invalid operator used in KeyConditionExpression: IN")
	case *Compare:
		if c.Op == "<>" {
			return bareErrorf("Invalid operator used in KeyConditionExpression: <>")
		}
		for _, o := range []Operand{c.Left, c.Right} {
			if f, ok := o.(*Call); ok {
				return bareErrorf("Invalid operator used in KeyConditionExpression: %s", f.Name)
			}
		}
	case *Between:
		for _, o := range []Operand{c.Operand, c.Low, c.High} {
			if f, ok := o.(*Call); ok {
				return bareErrorf("Invalid operator used in KeyConditionExpression: %s", f.Name)
			}
		}
	case *Call:
		if c.Name != "begins_with" {
			return bareErrorf("Invalid operator used in KeyConditionExpression: %s", c.Name)
		}
	}
	return nil
}

// KeySchema names a table's or index's key attributes and their types.
// SortKey is empty when there is no sort key.
type KeySchema struct {
	PartitionKey  string
	PartitionType attr.Type
	SortKey       string
	SortType      attr.Type
}

// KeyQuery is a KeyConditionExpression resolved against a key schema.
type KeyQuery struct {
	PartitionValue attr.Value
	Sort           *SortCondition // nil when the sort key is unconstrained
}

// SortCondition constrains the sort key. Op is one of = < <= > >= BETWEEN
// begins_with; Values holds one operand, or two for BETWEEN.
type SortCondition struct {
	Op     string
	Values []attr.Value
}

// Match reports whether a sort key value satisfies the condition.
func (s *SortCondition) Match(v attr.Value) bool {
	cmp, ok := attr.Compare(v, s.Values[0])
	if !ok {
		return false
	}
	switch s.Op {
	case "=":
		return cmp == 0
	case "<":
		return cmp < 0
	case "<=":
		return cmp <= 0
	case ">":
		return cmp > 0
	case ">=":
		return cmp >= 0
	case "BETWEEN":
		hi, _ := attr.Compare(v, s.Values[1])
		return cmp >= 0 && hi <= 0
	case "begins_with":
		return strings.HasPrefix(v.S, s.Values[0].S)
	}
	return false
}

// keyTerm is one leaf of a key condition: path op values.
type keyTerm struct {
	path Path
	op   string
	vals []attr.Value
}

// flip mirrors a comparison written value-first (":v < k" is "k > :v").
var flip = map[string]string{"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

// Resolve matches the condition to the key schema and returns the partition
// key value and the optional sort key condition, or DynamoDB's
// ValidationException.
func (k *KeyCondition) Resolve(names Names, values Values, schema KeySchema) (*KeyQuery, error) {
	var terms []keyTerm
	if err := collectKeyTerms(k.Root, names, values, &terms); err != nil {
		return nil, err
	}
	if len(terms) > 2 {
		return nil, invalid("Conditions can be of length 1 or 2 only")
	}
	q := &KeyQuery{}
	var havePK bool
	for _, t := range terms {
		if len(t.path) != 1 {
			return nil, invalid("KeyConditionExpressions cannot have conditions on nested attributes")
		}
		name := t.path[0].Name
		switch name {
		case schema.PartitionKey:
			if havePK {
				return nil, invalid("KeyConditionExpressions must only contain one condition per key")
			}
			havePK = true
			if t.op != "=" {
				return nil, invalid("Query key condition not supported")
			}
			if t.vals[0].T != schema.PartitionType {
				return nil, invalid("One or more parameter values were invalid: Condition parameter type does not match schema type")
			}
			q.PartitionValue = t.vals[0]
		case schema.SortKey:
			if q.Sort != nil {
				return nil, invalid("KeyConditionExpressions must only contain one condition per key")
			}
			for _, v := range t.vals {
				if t.op == "begins_with" && v.T == attr.N {
					return nil, invalid("Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N")
				}
				if v.T != schema.SortType {
					return nil, invalid("One or more parameter values were invalid: Condition parameter type does not match schema type")
				}
			}
			q.Sort = &SortCondition{Op: t.op, Values: t.vals}
		default:
			if !havePK && !hasTermOn(terms, schema.PartitionKey) {
				return nil, invalid("Query condition missed key schema element: " + schema.PartitionKey)
			}
			if schema.SortKey != "" {
				return nil, invalid("Query condition missed key schema element: " + schema.SortKey)
			}
			return nil, invalid("Query key condition not supported")
		}
	}
	if !havePK {
		return nil, invalid("Query condition missed key schema element: " + schema.PartitionKey)
	}
	return q, nil
}

func hasTermOn(terms []keyTerm, name string) bool {
	for _, t := range terms {
		if len(t.path) == 1 && t.path[0].Name == name {
			return true
		}
	}
	return false
}

func collectKeyTerms(c Cond, names Names, values Values, out *[]keyTerm) error {
	bad := func(e *Error) error { return e.Validation("KeyConditionExpression") }
	var path Path
	var op string
	var ops []Operand
	switch c := c.(type) {
	case *And:
		if err := collectKeyTerms(c.Left, names, values, out); err != nil {
			return err
		}
		return collectKeyTerms(c.Right, names, values, out)
	case *Compare:
		op, ops = c.Op, []Operand{c.Left, c.Right}
		if _, ok := c.Left.(ValueRef); ok {
			op, ops = flip[c.Op], []Operand{c.Right, c.Left}
		}
	case *Between:
		op, ops = "BETWEEN", []Operand{c.Operand, c.Low, c.High}
	case *Call:
		op, ops = c.Name, c.Args
	default:
		if err := checkKeyCond(c); err != nil {
			return err.Validation("KeyConditionExpression")
		}
		return invalid("Query key condition not supported")
	}
	p, ok := ops[0].(Path)
	if !ok {
		return invalid("Query key condition not supported")
	}
	path, err := resolvePath(p, names)
	if err != nil {
		return bad(err)
	}
	t := keyTerm{path: path, op: op}
	for _, o := range ops[1:] {
		v, ok := o.(ValueRef)
		if !ok {
			return invalid("Query key condition not supported")
		}
		val, err := resolveValue(v, values)
		if err != nil {
			return bad(err)
		}
		t.vals = append(t.vals, val)
	}
	*out = append(*out, t)
	return nil
}
