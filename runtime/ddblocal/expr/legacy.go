package expr

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
)

// The legacy parameters (DynamoDB Developer Guide, "Legacy conditional
// parameters") are compiled into the same trees the expressions parse to,
// so one evaluator serves both: Expected becomes the Condition, QueryFilter
// and ScanFilter the Filter, KeyConditions the KeyCondition,
// AttributeUpdates the Update and AttributesToGet the Projection. Their
// values and names are held under placeholders no request can spell (a
// request's own must match [A-Za-z0-9_]+), so they sit beside the
// request's ExpressionAttributeValues when legacy and expression
// parameters are mixed where DynamoDB allows it.

// LegacyCondition is one attribute's entry of Expected, KeyConditions,
// QueryFilter or ScanFilter. Value and Exists belong to Expected only.
type LegacyCondition struct {
	ComparisonOperator *string
	AttributeValueList []attr.Value
	Value              *attr.Value
	Exists             *bool
}

// LegacyUpdate is one attribute's entry of AttributeUpdates.
type LegacyUpdate struct {
	Action *string
	Value  *attr.Value
}

// Legacy holds a request's legacy parameters; nil ones are absent.
type Legacy struct {
	Expected            map[string]LegacyCondition
	KeyConditions       map[string]LegacyCondition
	QueryFilter         map[string]LegacyCondition
	ScanFilter          map[string]LegacyCondition
	ConditionalOperator *string
	AttributeUpdates    map[string]LegacyUpdate
	AttributesToGet     []string
}

// comparisonOperators lists the legacy comparison operators in the order
// DynamoDB's enum constraint message gives them.
const comparisonOperators = "[IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS]"

// operatorArgs is the number of values each operator takes (-1: one or more).
var operatorArgs = map[string]int{
	"EQ": 1, "NE": 1, "LE": 1, "LT": 1, "GE": 1, "GT": 1,
	"NOT_NULL": 0, "NULL": 0, "CONTAINS": 1, "NOT_CONTAINS": 1,
	"BEGINS_WITH": 1, "IN": -1, "BETWEEN": 2,
}

// operatorTypes are the value types each operator accepts.
var operatorTypes = map[string][]attr.Type{
	"EQ": {attr.S, attr.N, attr.B, attr.SS, attr.NS, attr.BS},
	"NE": {attr.S, attr.N, attr.B, attr.SS, attr.NS, attr.BS},
	"LE": {attr.S, attr.N, attr.B}, "LT": {attr.S, attr.N, attr.B},
	"GE": {attr.S, attr.N, attr.B}, "GT": {attr.S, attr.N, attr.B},
	"CONTAINS": {attr.S, attr.N, attr.B}, "NOT_CONTAINS": {attr.S, attr.N, attr.B},
	"BEGINS_WITH": {attr.S, attr.B}, "IN": {attr.S, attr.N, attr.B}, "BETWEEN": {attr.S, attr.N, attr.B},
}

// legacyBuilder collects the placeholders of the compiled legacy trees.
type legacyBuilder struct {
	names  Names
	values Values
}

// path is the document path of a top-level attribute named name. Legacy
// names are never parsed: "a.b" is one attribute. A name that looks like a
// placeholder goes through one of its own.
func (b *legacyBuilder) path(name string) Path {
	if !strings.HasPrefix(name, "#") {
		return Path{{Name: name}}
	}
	if b.names == nil {
		b.names = Names{}
	}
	k := "#\x00" + strconv.Itoa(len(b.names))
	b.names[k] = name
	return Path{{Name: k}}
}

func (b *legacyBuilder) value(v attr.Value) ValueRef {
	if b.values == nil {
		b.values = Values{}
	}
	k := ":\x00" + strconv.Itoa(len(b.values))
	b.values[k] = v
	return ValueRef(k)
}

// AddLegacy compiles the legacy parameters into c, validating them with
// DynamoDB's messages. c must not already hold the trees they stand for
// (the engine refuses such mixes first, see MixedParameters); its Names
// and Values are replaced by copies that add the legacy placeholders.
func (c *Compiled) AddLegacy(l *Legacy) error {
	b := &legacyBuilder{}
	if err := checkConditionalOperator(l.ConditionalOperator); err != nil {
		return err
	}
	if err := conditionalOperatorNeedsTwo(l); err != nil {
		return err
	}
	if l.AttributesToGet != nil {
		p, err := b.projection(l.AttributesToGet)
		if err != nil {
			return err
		}
		c.Projection = p
	}
	for _, f := range []struct {
		param string
		conds map[string]LegacyCondition
	}{{"queryFilter", l.QueryFilter}, {"scanFilter", l.ScanFilter}} {
		if f.conds == nil {
			continue
		}
		root, err := b.conditions(f.param, f.conds, l.ConditionalOperator)
		if err != nil {
			return err
		}
		if root != nil {
			c.Filter = &Condition{Root: root}
		}
	}
	if l.AttributeUpdates != nil {
		u, err := b.update(l.AttributeUpdates)
		if err != nil {
			return err
		}
		c.Update = u
	}
	if l.Expected != nil {
		root, err := b.expected(l.Expected, l.ConditionalOperator)
		if err != nil {
			return err
		}
		if root != nil {
			c.Condition = &Condition{Root: root}
		}
	}
	if l.KeyConditions != nil {
		k, err := b.keyConditions(l.KeyConditions)
		if err != nil {
			return err
		}
		c.KeyCondition = k
	}
	c.Names = merged(c.Names, b.names)
	c.Values = merged(c.Values, b.values)
	return nil
}

func merged[V any](into, add map[string]V) map[string]V {
	if len(add) == 0 {
		return into
	}
	out := make(map[string]V, len(into)+len(add))
	for k, v := range into {
		out[k] = v
	}
	for k, v := range add {
		out[k] = v
	}
	return out
}

func checkConditionalOperator(op *string) error {
	if op == nil || *op == "AND" || *op == "OR" {
		return nil
	}
	return invalid("1 validation error detected: Value '" + *op + "' at 'conditionalOperator' failed to satisfy constraint: Member must satisfy enum value set: [OR, AND]")
}

// conditionalOperatorNeedsTwo refuses a ConditionalOperator that has
// fewer than two conditions to join: none (no Expected, QueryFilter or
// ScanFilter, or an empty one) or one, with DynamoDB's messages.
func conditionalOperatorNeedsTwo(l *Legacy) error {
	if l.ConditionalOperator == nil {
		return nil
	}
	switch len(l.Expected) + len(l.QueryFilter) + len(l.ScanFilter) {
	case 0:
		return invalid("ConditionalOperator cannot be used without Filter or Expected")
	case 1:
		return invalid("ConditionalOperator can only be used when Filter or Expected has two or more elements")
	}
	return nil
}

func (b *legacyBuilder) projection(names []string) (*Projection, error) {
	if len(names) == 0 {
		return nil, invalid("1 validation error detected: Value '[]' at 'attributesToGet' failed to satisfy constraint: Member must have length greater than or equal to 1")
	}
	p := &Projection{Paths: make([]Path, 0, len(names))}
	seen := make(map[string]bool, len(names))
	for _, n := range names {
		if seen[n] {
			return nil, invalid("One or more parameter values were invalid: Duplicate value in attribute name: " + n)
		}
		seen[n] = true
		p.Paths = append(p.Paths, b.path(n))
	}
	return p, nil
}

func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// join combines conditions with ConditionalOperator (AND by default).
func join(parts []Cond, op *string) Cond {
	var root Cond
	for _, p := range parts {
		switch {
		case root == nil:
			root = p
		case op != nil && *op == "OR":
			root = &Or{Left: root, Right: p}
		default:
			root = &And{Left: root, Right: p}
		}
	}
	return root
}

// conditions compiles a QueryFilter or ScanFilter (param names it in
// constraint messages).
func (b *legacyBuilder) conditions(param string, conds map[string]LegacyCondition, op *string) (Cond, error) {
	parts := make([]Cond, 0, len(conds))
	for _, name := range sortedNames(conds) {
		lc := conds[name]
		if lc.ComparisonOperator == nil {
			return nil, invalid("1 validation error detected: Value null at '" + param + "." + name + ".member.comparisonOperator' failed to satisfy constraint: Member must not be null")
		}
		cmp, err := b.comparison(param, name, *lc.ComparisonOperator, lc.AttributeValueList)
		if err != nil {
			return nil, err
		}
		parts = append(parts, cmp)
	}
	return join(parts, op), nil
}

// checkOperator validates an operator and its values as DynamoDB does:
// the enum, the number of values, one type for all, the types the operator
// takes where param uses it and, for BETWEEN, the order of the bounds.
func checkOperator(param, name, op string, vals []attr.Value) error {
	want, ok := operatorArgs[op]
	if !ok {
		return invalid("1 validation error detected: Value '" + op + "' at '" + param + "." + name + ".member.comparisonOperator' failed to satisfy constraint: Member must satisfy enum value set: " + comparisonOperators)
	}
	if (want >= 0 && len(vals) != want) || (want < 0 && len(vals) == 0) {
		return invalid("One or more parameter values were invalid: Invalid number of argument(s) for the " + op + " ComparisonOperator")
	}
	for _, v := range vals {
		if v.T != vals[0].T {
			return invalid("One or more parameter values were invalid: AttributeValues inside AttributeValueList must be of same type")
		}
	}
	// In QueryFilter and ScanFilter, EQ and NE take every type, lists,
	// maps, BOOL and NULL included (API Reference, Condition).
	anyType := (op == "EQ" || op == "NE") && (param == "queryFilter" || param == "scanFilter")
	for _, v := range vals {
		if !anyType && !slices.Contains(operatorTypes[op], v.T) {
			return invalid("One or more parameter values were invalid: ComparisonOperator " + op + " is not valid for " + v.T.String() + " AttributeValue type")
		}
	}
	if op == "BETWEEN" {
		if c, ok := attr.Compare(vals[0], vals[1]); ok && c > 0 {
			return invalid("The BETWEEN condition was provided a range where the lower bound is greater than the upper bound")
		}
	}
	return nil
}

// comparison is the condition tree of "name op vals", the same tree the
// equivalent expression parses to.
func (b *legacyBuilder) comparison(param, name, op string, vals []attr.Value) (Cond, error) {
	if err := checkOperator(param, name, op, vals); err != nil {
		return nil, err
	}
	p := b.path(name)
	refs := make([]Operand, len(vals))
	for i, v := range vals {
		refs[i] = b.value(v)
	}
	switch op {
	case "EQ", "NE", "LE", "LT", "GE", "GT":
		sym := map[string]string{"EQ": "=", "NE": "<>", "LE": "<=", "LT": "<", "GE": ">=", "GT": ">"}[op]
		return &Compare{Op: sym, Left: p, Right: refs[0]}, nil
	case "NOT_NULL":
		return &Call{Name: "attribute_exists", Args: []Operand{p}}, nil
	case "NULL":
		return &Call{Name: "attribute_not_exists", Args: []Operand{p}}, nil
	case "CONTAINS":
		return &Call{Name: "contains", Args: []Operand{p, refs[0]}}, nil
	case "NOT_CONTAINS":
		return &Not{X: &Call{Name: "contains", Args: []Operand{p, refs[0]}}}, nil
	case "BEGINS_WITH":
		return &Call{Name: "begins_with", Args: []Operand{p, refs[0]}}, nil
	case "IN":
		return &In{Operand: p, List: refs}, nil
	}
	return &Between{Operand: p, Low: refs[0], High: refs[1]}, nil
}

func legacyInvalid(msg, name string) error {
	return invalid("One or more parameter values were invalid: " + msg + " for Attribute: " + name)
}

// expected compiles Expected: each entry is either a ComparisonOperator
// with its values, or the older Exists/Value form (Value alone means
// equality; Exists false means the attribute is absent).
func (b *legacyBuilder) expected(conds map[string]LegacyCondition, op *string) (Cond, error) {
	parts := make([]Cond, 0, len(conds))
	for _, name := range sortedNames(conds) {
		lc := conds[name]
		cond, err := b.expectedOne(name, lc)
		if err != nil {
			return nil, err
		}
		parts = append(parts, cond)
	}
	return join(parts, op), nil
}

func (b *legacyBuilder) expectedOne(name string, lc LegacyCondition) (Cond, error) {
	if lc.AttributeValueList != nil && lc.Value != nil {
		return nil, legacyInvalid("Value and AttributeValueList cannot be used together", name)
	}
	if lc.ComparisonOperator != nil {
		op := *lc.ComparisonOperator
		if lc.Exists != nil {
			return nil, legacyInvalid("Exists and ComparisonOperator cannot be used together", name)
		}
		if _, known := operatorArgs[op]; known && op != "NULL" && op != "NOT_NULL" && lc.AttributeValueList == nil && lc.Value == nil {
			return nil, legacyInvalid("Value or AttributeValueList must be used with ComparisonOperator: "+op, name)
		}
		vals := lc.AttributeValueList
		if lc.Value != nil {
			vals = []attr.Value{*lc.Value}
		}
		return b.comparison("expected", name, op, vals)
	}
	if lc.AttributeValueList != nil {
		return nil, legacyInvalid("AttributeValueList can only be used with a ComparisonOperator", name)
	}
	exists := lc.Exists == nil || *lc.Exists
	switch {
	case exists && lc.Value == nil:
		state := "null"
		if lc.Exists != nil {
			state = "true"
		}
		return nil, legacyInvalid("Value must be provided when Exists is "+state, name)
	case !exists && lc.Value != nil:
		return nil, legacyInvalid("Value cannot be used when Exists is false", name)
	case !exists:
		return &Call{Name: "attribute_not_exists", Args: []Operand{b.path(name)}}, nil
	}
	return &Compare{Op: "=", Left: b.path(name), Right: b.value(*lc.Value)}, nil
}

// keyOperators are the operators a key condition may use.
var keyOperators = map[string]bool{"EQ": true, "LE": true, "LT": true, "GE": true, "GT": true, "BEGINS_WITH": true, "BETWEEN": true}

// keyConditions compiles KeyConditions into a KeyCondition, which
// (*KeyCondition).Resolve then matches to the key schema as it does a
// KeyConditionExpression.
func (b *legacyBuilder) keyConditions(conds map[string]LegacyCondition) (*KeyCondition, error) {
	parts := make([]Cond, 0, len(conds))
	for _, name := range sortedNames(conds) {
		lc := conds[name]
		if lc.ComparisonOperator == nil {
			return nil, invalid("1 validation error detected: Value null at 'keyConditions." + name + ".member.comparisonOperator' failed to satisfy constraint: Member must not be null")
		}
		op := *lc.ComparisonOperator
		if err := checkOperator("keyConditions", name, op, lc.AttributeValueList); err != nil {
			return nil, err
		}
		if !keyOperators[op] { // checked after the values, as DynamoDB does
			return nil, invalid("Attempted conditional constraint is not an indexable operation")
		}
		cmp, err := b.comparison("keyConditions", name, op, lc.AttributeValueList)
		if err != nil {
			return nil, err
		}
		parts = append(parts, cmp)
	}
	if len(parts) == 0 {
		return nil, invalid("Conditions can be of length 1 or 2 only")
	}
	return &KeyCondition{Root: join(parts, nil)}, nil
}

// update compiles AttributeUpdates: PUT is SET, DELETE without a value is
// REMOVE, DELETE with a set is DELETE, ADD of a number or set is ADD, and
// ADD of a list appends to the list (creating it when absent).
func (b *legacyBuilder) update(updates map[string]LegacyUpdate) (*Update, error) {
	u := &Update{}
	for _, name := range sortedNames(updates) {
		lu := updates[name]
		action := "PUT"
		if lu.Action != nil {
			action = *lu.Action
		}
		if action != "PUT" && action != "ADD" && action != "DELETE" {
			return nil, invalid("1 validation error detected: Value '" + action + "' at 'attributeUpdates." + name + ".member.action' failed to satisfy constraint: Member must satisfy enum value set: [ADD, PUT, DELETE]")
		}
		if lu.Value == nil {
			if action != "DELETE" {
				return nil, invalid("One or more parameter values were invalid: Only DELETE action is allowed when no attribute value is specified")
			}
			u.Remove = append(u.Remove, b.path(name))
			continue
		}
		v := *lu.Value
		switch action {
		case "PUT":
			u.Set = append(u.Set, SetAction{Path: b.path(name), Value: b.value(v)})
		case "DELETE":
			if !v.T.IsSet() {
				return nil, invalid("One or more parameter values were invalid: DELETE action with value is not supported for the type " + v.T.String())
			}
			u.Delete = append(u.Delete, ValueAction{Path: b.path(name), Value: b.value(v)})
		default:
			if err := b.add(u, name, v); err != nil {
				return nil, err
			}
		}
	}
	return u, nil
}

func (b *legacyBuilder) add(u *Update, name string, v attr.Value) error {
	switch {
	case v.T == attr.N || v.T.IsSet():
		u.Add = append(u.Add, ValueAction{Path: b.path(name), Value: b.value(v)})
	case v.T == attr.L:
		p := b.path(name)
		base := &Call{Name: "if_not_exists", Args: []Operand{p, b.value(attr.List())}}
		u.Set = append(u.Set, SetAction{Path: p, Value: &Call{Name: "list_append", Args: []Operand{base, b.value(v)}}})
	default:
		return invalid("One or more parameter values were invalid: ADD action is not supported for the type " + v.T.String())
	}
	return nil
}

// MixedParameters returns DynamoDB's refusal of a request that uses both
// legacy and expression parameters, or nil. legacy and expressions name
// the parameters present, in DynamoDB's order. KeyConditions may go with
// FilterExpression and ProjectionExpression (guregu/dynamo sends them so),
// but not with KeyConditionExpression.
func MixedParameters(legacy, expressions []string) error {
	if len(expressions) == 0 || len(legacy) == 0 {
		return nil
	}
	if !slices.Contains(expressions, "KeyConditionExpression") {
		kept := legacy[:0:0]
		for _, l := range legacy {
			if l != "KeyConditions" {
				kept = append(kept, l)
			}
		}
		if legacy = kept; len(legacy) == 0 {
			return nil
		}
	}
	return invalid("Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {" +
		strings.Join(legacy, ", ") + "} Expression parameters: {" + strings.Join(expressions, ", ") + "}")
}
