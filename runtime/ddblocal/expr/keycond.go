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
//
// A global secondary index may have a multi-attribute key: up to four
// partition and four sort attributes. Partition and Sort then list them
// all, in key schema order, and the four single-key fields are ignored.
type KeySchema struct {
	PartitionKey  string
	PartitionType attr.Type
	SortKey       string
	SortType      attr.Type

	Partition []KeyAttribute
	Sort      []KeyAttribute
}

// KeyAttribute is one attribute of a key schema.
type KeyAttribute struct {
	Name string
	Type attr.Type
}

// attributes returns the partition and sort attributes as lists, those of
// a single-attribute key in buf (Resolve runs per Query: no allocation).
func (s KeySchema) attributes(buf *[2]KeyAttribute) (part, sort []KeyAttribute) {
	if len(s.Partition) > 0 {
		return s.Partition, s.Sort
	}
	buf[0], buf[1] = KeyAttribute{s.PartitionKey, s.PartitionType}, KeyAttribute{s.SortKey, s.SortType}
	if s.SortKey == "" {
		return buf[:1], nil
	}
	return buf[:1], buf[1:2]
}

// KeyQuery is a KeyConditionExpression resolved against a key schema.
type KeyQuery struct {
	PartitionValue attr.Value
	Sort           *SortCondition // nil when the sort key is unconstrained

	// PartitionValues holds the value of every partition attribute, in key
	// schema order (PartitionValue is the first). SortEqual holds the values
	// of the sort attributes that precede the one Sort constrains, which a
	// multi-attribute sort key compares for equality, left to right.
	PartitionValues []attr.Value
	SortEqual       []attr.Value

	values [1]attr.Value // room for a single PartitionValues, no allocation
}

// maxKeyParts is the number of partition, and of sort, attributes a key
// may have.
const maxKeyParts = 4

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
// ValidationException. With a multi-attribute key every partition attribute
// needs an equality, and the sort attributes are used left to right without
// a gap, only the last one used taking a range or begins_with (Amazon
// DynamoDB Developer Guide, "Multi-attribute key schema").
func (k *KeyCondition) Resolve(names Names, values Values, schema KeySchema) (*KeyQuery, error) {
	var terms []keyTerm
	if err := collectKeyTerms(k.Root, names, values, &terms); err != nil {
		return nil, err
	}
	var buf [2]KeyAttribute
	part, sort := schema.attributes(&buf)
	if len(part) == 1 && len(sort) <= 1 && len(terms) > 2 {
		return nil, invalid("Conditions can be of length 1 or 2 only")
	}
	if len(part) > maxKeyParts || len(sort) > maxKeyParts {
		return nil, invalid("Query key condition not supported")
	}
	var partBuf, sortBuf [maxKeyParts]*keyTerm
	partTerms, sortTerms := partBuf[:len(part)], sortBuf[:len(sort)]
	for i := range terms {
		t := &terms[i]
		if len(t.path) != 1 {
			return nil, invalid("KeyConditionExpressions cannot have conditions on nested attributes")
		}
		if j := keyIndex(part, t.path[0].Name); j >= 0 {
			if err := checkPartitionTerm(t, part[j], partTerms[j] != nil); err != nil {
				return nil, err
			}
			partTerms[j] = t
			continue
		}
		if j := keyIndex(sort, t.path[0].Name); j >= 0 {
			if err := checkSortTerm(t, sort[j], sortTerms[j] != nil); err != nil {
				return nil, err
			}
			sortTerms[j] = t
			continue
		}
		return nil, missedKey(terms, part, sort)
	}
	q := &KeyQuery{}
	q.PartitionValues = q.values[:0]
	for j, t := range partTerms {
		if t == nil {
			return nil, invalid("Query condition missed key schema element: " + part[j].Name)
		}
		q.PartitionValues = append(q.PartitionValues, t.vals[0])
	}
	q.PartitionValue = q.PartitionValues[0]
	return q, resolveSort(q, sort, sortTerms)
}

// keyIndex is the position of the attribute named name in attrs, or -1.
func keyIndex(attrs []KeyAttribute, name string) int {
	for i, a := range attrs {
		if a.Name == name {
			return i
		}
	}
	return -1
}

func checkPartitionTerm(t *keyTerm, a KeyAttribute, dup bool) error {
	if dup {
		return invalid("KeyConditionExpressions must only contain one condition per key")
	}
	if t.op != "=" {
		return invalid("Query key condition not supported")
	}
	if t.vals[0].T != a.Type {
		return invalid("One or more parameter values were invalid: Condition parameter type does not match schema type")
	}
	return nil
}

func checkSortTerm(t *keyTerm, a KeyAttribute, dup bool) error {
	if dup {
		return invalid("KeyConditionExpressions must only contain one condition per key")
	}
	for _, v := range t.vals {
		if t.op == "begins_with" && v.T == attr.N {
			return invalid("Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N")
		}
		if v.T != a.Type {
			return invalid("One or more parameter values were invalid: Condition parameter type does not match schema type")
		}
	}
	return nil
}

// missedKey is the error for a condition on an attribute that is not a
// key: DynamoDB names the first key attribute the condition lacks.
func missedKey(terms []keyTerm, part, sort []KeyAttribute) error {
	for _, a := range part {
		if !hasTermOn(terms, a.Name) {
			return invalid("Query condition missed key schema element: " + a.Name)
		}
	}
	for _, a := range sort {
		if !hasTermOn(terms, a.Name) {
			return invalid("Query condition missed key schema element: " + a.Name)
		}
	}
	if len(sort) > 0 {
		return invalid("Query condition missed key schema element: " + sort[0].Name)
	}
	return invalid("Query key condition not supported")
}

// resolveSort checks that the sort attributes used form a prefix of the
// key's, with only the last one taking an operator other than =.
func resolveSort(q *KeyQuery, sort []KeyAttribute, terms []*keyTerm) error {
	used := 0
	for used < len(terms) && terms[used] != nil {
		used++
	}
	for j := used; j < len(terms); j++ {
		if terms[j] != nil {
			return invalid("Query condition missed key schema element: " + sort[used].Name)
		}
	}
	for j := 0; j < used; j++ {
		t := terms[j]
		if j == used-1 {
			q.Sort = &SortCondition{Op: t.op, Values: t.vals}
			break
		}
		if t.op != "=" {
			return invalid("Query key condition not supported")
		}
		q.SortEqual = append(q.SortEqual, t.vals[0])
	}
	return nil
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
