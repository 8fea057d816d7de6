package expr

import (
	"slices"
	"sort"
	"strings"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
)

// Names is a request's ExpressionAttributeNames: "#n" to an attribute name.
type Names map[string]string

// Values is a request's ExpressionAttributeValues: ":v" to a value.
type Values map[string]attr.Value

// Input is the expression part of one request. A nil string pointer means the
// parameter is absent; a pointer to "" is an (invalid) empty expression. A nil
// map means the parameter is absent; a non-nil empty map is DynamoDB's "must
// not be empty" error, which is what encoding/json produces for {}.
type Input struct {
	Names        Names
	Values       Values
	Condition    *string // ConditionExpression
	Filter       *string // FilterExpression
	KeyCondition *string // KeyConditionExpression
	Update       *string // UpdateExpression
	Projection   *string // ProjectionExpression
}

// Compiled holds a request's parsed and validated expressions; absent ones
// are nil.
type Compiled struct {
	Names        Names
	Values       Values
	Condition    *Condition
	Filter       *Condition
	KeyCondition *KeyCondition
	Update       *Update
	Projection   *Projection
}

// Compile parses every expression of a request and validates them together,
// as DynamoDB does: placeholders must be defined, and every defined
// placeholder must be used by one of the expressions. Every error is a
// *attr.ValidationError carrying DynamoDB's message.
func Compile(in Input) (*Compiled, error) {
	if in.Names != nil && len(in.Names) == 0 {
		return nil, invalid("ExpressionAttributeNames must not be empty")
	}
	if in.Values != nil && len(in.Values) == 0 {
		return nil, invalid("ExpressionAttributeValues must not be empty")
	}
	// DynamoDB reports the first bad key in sorted order; keys are sorted
	// only when one is bad.
	if !placeholdersValid(in.Names, '#') || hasEmptyName(in.Names) {
		for _, k := range sortedKeys(in.Names) {
			if !validPlaceholder(k, '#') {
				return nil, invalid(`ExpressionAttributeNames contains invalid key: Syntax error; key: "` + k + `"`)
			}
			if in.Names[k] == "" {
				return nil, invalid("ExpressionAttributeNames contains invalid value: Empty attribute name for key " + k)
			}
		}
	}
	if !placeholdersValid(in.Values, ':') {
		for _, k := range sortedKeys(in.Values) {
			if !validPlaceholder(k, ':') {
				return nil, invalid(`ExpressionAttributeValues contains invalid key: Syntax error; key: "` + k + `"`)
			}
		}
	}
	none := in.Condition == nil && in.Filter == nil && in.KeyCondition == nil && in.Update == nil && in.Projection == nil
	if none && in.Names != nil {
		return nil, invalid("ExpressionAttributeNames can only be specified when using expressions")
	}
	if none && in.Values != nil {
		return nil, invalid("ExpressionAttributeValues can only be specified when using expressions")
	}

	c := &Compiled{Names: in.Names, Values: in.Values}
	r := &resolver{names: in.Names, values: in.Values}
	var err error
	// DynamoDB reports the first invalid expression in this order.
	if in.Update != nil {
		r.kind = "UpdateExpression"
		if c.Update, err = cachedParse('U', *in.Update, ParseUpdate); err != nil {
			return nil, asValidation(err, r.kind)
		}
		if err := r.update(c.Update); err != nil {
			return nil, err.Validation(r.kind)
		}
	}
	if in.KeyCondition != nil {
		r.kind = "KeyConditionExpression"
		if c.KeyCondition, err = cachedParse('K', *in.KeyCondition, ParseKeyCondition); err != nil {
			return nil, asValidation(err, r.kind)
		}
		if err := r.cond(c.KeyCondition.Root); err != nil {
			return nil, err.Validation(r.kind)
		}
	}
	for _, e := range []struct {
		src  *string
		dst  **Condition
		kind string
	}{{in.Condition, &c.Condition, "ConditionExpression"}, {in.Filter, &c.Filter, "FilterExpression"}} {
		if e.src == nil {
			continue
		}
		r.kind = e.kind
		if *e.dst, err = cachedParse('C', *e.src, ParseCondition); err != nil {
			return nil, asValidation(err, e.kind)
		}
		if err := r.cond((*e.dst).Root); err != nil {
			return nil, err.Validation(e.kind)
		}
	}
	if in.Projection != nil {
		r.kind = "ProjectionExpression"
		if c.Projection, err = cachedParse('P', *in.Projection, ParseProjection); err != nil {
			return nil, asValidation(err, r.kind)
		}
		if err := r.projection(c.Projection); err != nil {
			return nil, err.Validation(r.kind)
		}
	}
	if unused := unusedKeys(in.Names, &r.usedNames); unused != "" {
		return nil, invalid("Value provided in ExpressionAttributeNames unused in expressions: keys: {" + unused + "}")
	}
	if unused := unusedKeys(in.Values, &r.usedValues); unused != "" {
		return nil, invalid("Value provided in ExpressionAttributeValues unused in expressions: keys: {" + unused + "}")
	}
	return c, nil
}

func asValidation(err error, kind string) error {
	if e, ok := err.(*Error); ok {
		return e.Validation(kind)
	}
	return err
}

func validPlaceholder(k string, prefix byte) bool {
	if len(k) < 2 || k[0] != prefix {
		return false
	}
	for i := 1; i < len(k); i++ {
		if !isNamePart(k[i]) {
			return false
		}
	}
	return true
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// unusedKeys lists, sorted, the keys of m not in used. used holds only
// keys of m (an undefined placeholder fails compilation first), so when
// the sizes match nothing is unused.
func unusedKeys[V any](m map[string]V, used *usedSet) string {
	if used.len() == len(m) {
		return ""
	}
	var out []string
	for _, k := range sortedKeys(m) {
		if !used.has(k) {
			out = append(out, k)
		}
	}
	return strings.Join(out, ", ")
}

func placeholdersValid[V any](m map[string]V, prefix byte) bool {
	for k := range m {
		if !validPlaceholder(k, prefix) {
			return false
		}
	}
	return true
}

func hasEmptyName(m Names) bool {
	for _, v := range m {
		if v == "" {
			return true
		}
	}
	return false
}

// usedSet records the placeholders expressions use: a slice while there
// are few (no map per request), a map beyond that (long IN lists).
type usedSet struct {
	list []string
	m    map[string]bool
	buf  [4]string
}

func (u *usedSet) add(k string) {
	if u.m != nil {
		u.m[k] = true
		return
	}
	if slices.Contains(u.list, k) {
		return
	}
	if u.list == nil {
		u.list = u.buf[:0]
	}
	u.list = append(u.list, k)
	if len(u.list) > 16 {
		u.m = make(map[string]bool, 2*len(u.list))
		for _, e := range u.list {
			u.m[e] = true
		}
	}
}

func (u *usedSet) has(k string) bool {
	if u.m != nil {
		return u.m[k]
	}
	return slices.Contains(u.list, k)
}

func (u *usedSet) len() int {
	if u.m != nil {
		return len(u.m)
	}
	return len(u.list)
}

// resolver validates parsed expressions against a request's placeholders and
// records which placeholders they use.
type resolver struct {
	names                 Names
	values                Values
	usedNames, usedValues usedSet
	kind                  string
}

// resolvePath replaces #placeholders in p by the names they stand for.
func resolvePath(p Path, names Names) (Path, *Error) {
	out := p
	for i, e := range p {
		if e.IsIndex || !strings.HasPrefix(e.Name, "#") {
			continue
		}
		n, ok := names[e.Name]
		if !ok {
			return nil, errorf("An expression attribute name used in the document path is not defined; attribute name: %s", e.Name)
		}
		if &out[0] == &p[0] {
			out = append(Path(nil), p...)
		}
		out[i].Name = n
	}
	return out, nil
}

func resolveValue(v ValueRef, values Values) (attr.Value, *Error) {
	val, ok := values[string(v)]
	if !ok {
		return attr.Value{}, errorf("An expression attribute value used in expression is not defined; attribute value: %s", v)
	}
	return val, nil
}

func (r *resolver) path(p Path) (Path, *Error) {
	for _, e := range p {
		if !e.IsIndex && strings.HasPrefix(e.Name, "#") {
			r.usedNames.add(e.Name)
		}
	}
	return resolvePath(p, r.names)
}

// operand resolves o's placeholders. For a ValueRef it returns the value.
func (r *resolver) operand(o Operand) (attr.Value, *Error) {
	switch o := o.(type) {
	case Path:
		_, err := r.path(o)
		return attr.Value{}, err
	case ValueRef:
		r.usedValues.add(string(o))
		return resolveValue(o, r.values)
	case *Call:
		for _, a := range o.Args {
			if _, err := r.operand(a); err != nil {
				return attr.Value{}, err
			}
		}
		return attr.Value{}, r.call(o)
	case *Arith:
		for _, side := range []Operand{o.Left, o.Right} {
			v, err := r.operand(side)
			if err != nil {
				return attr.Value{}, err
			}
			if v.T != 0 && v.T != attr.N {
				return attr.Value{}, operandType(string(o.Op), v.T)
			}
		}
	}
	return attr.Value{}, nil
}

func operandType(op string, t attr.Type) *Error {
	return errorf("Incorrect operand type for operator or function; operator or function: %s, operand type: %s", op, t)
}

// attributeTypeNames is DynamoDB's own listing, in its order.
const attributeTypeNames = "{B,NULL,SS,BOOL,L,BS,N,NS,S,M}"

// call checks a function's value operands once its placeholders resolved.
func (r *resolver) call(c *Call) *Error {
	vals := make([]attr.Value, len(c.Args))
	for i, a := range c.Args {
		switch a := a.(type) {
		case ValueRef:
			vals[i] = r.values[string(a)]
		case *Call:
			if a.Name == "size" {
				// size yields a number: size(size(a)) is refused like size(:n).
				vals[i] = attr.Value{T: attr.N}
			}
		}
	}
	switch c.Name {
	case "attribute_type":
		if vals[1].T != attr.S {
			if vals[1].T == 0 {
				// A path may hold any type; DynamoDB lists them all.
				return errorf("Incorrect operand type for operator or function; operator or function: %s, operand type: {NS,SS,L,BS,N,M,B,BOOL,NULL,S}", c.Name)
			}
			return operandType(c.Name, vals[1].T)
		}
		if _, ok := attr.ParseType(vals[1].S); !ok {
			return errorf("Invalid attribute type name found; type: %s, valid types: %s", vals[1].S, attributeTypeNames)
		}
	case "size":
		if t := vals[0].T; t == attr.N || t == attr.BOOL || t == attr.NULL {
			return operandType(c.Name, t)
		}
	case "begins_with":
		for _, v := range vals {
			if v.T != 0 && v.T != attr.S && v.T != attr.B {
				return operandType(c.Name, v.T)
			}
		}
	case "list_append":
		for _, v := range vals {
			if v.T != 0 && v.T != attr.L {
				return operandType(c.Name, v.T)
			}
		}
	}
	if len(c.Args) == 2 {
		return r.distinct(c.Name, c.Args[0], c.Args[1])
	}
	return nil
}

// distinct rejects an operator whose two operands are the same path.
func (r *resolver) distinct(op string, a, b Operand) *Error {
	pa, ok1 := a.(Path)
	pb, ok2 := b.(Path)
	if !ok1 || !ok2 {
		return nil
	}
	ra, _ := resolvePath(pa, r.names)
	rb, _ := resolvePath(pb, r.names)
	if ra.equal(rb) {
		return errorf("The first operand must be distinct from the remaining operands for this operator or function; operator: %s, first operand: %s", op, ra.Brackets())
	}
	return nil
}

func (p Path) equal(q Path) bool {
	if len(p) != len(q) {
		return false
	}
	for i := range p {
		if p[i] != q[i] {
			return false
		}
	}
	return true
}

func (r *resolver) cond(c Cond) *Error {
	switch c := c.(type) {
	case *Call:
		_, err := r.operand(c)
		return err
	case *Compare:
		for _, o := range []Operand{c.Left, c.Right} {
			v, err := r.operand(o)
			if err != nil {
				return err
			}
			if c.Op != "=" && c.Op != "<>" && !orderable(v.T) {
				return operandType(c.Op, v.T)
			}
		}
		return r.distinct(c.Op, c.Left, c.Right)
	case *Between:
		var vals [3]attr.Value
		for i, o := range []Operand{c.Operand, c.Low, c.High} {
			v, err := r.operand(o)
			if err != nil {
				return err
			}
			if !orderable(v.T) {
				return operandType("BETWEEN", v.T)
			}
			vals[i] = v
		}
		lo, hi := vals[1], vals[2]
		if lo.T != 0 && hi.T != 0 {
			bounds := "lower bound operand: AttributeValue: " + avString(lo) + ", upper bound operand: AttributeValue: " + avString(hi)
			if lo.T != hi.T {
				return errorf("The BETWEEN operator requires same data type for lower and upper bounds; %s", bounds)
			}
			if cmp, ok := attr.Compare(lo, hi); ok && cmp > 0 {
				return errorf("The BETWEEN operator requires upper bound to be greater than or equal to lower bound; %s", bounds)
			}
		}
	case *In:
		for _, o := range append([]Operand{c.Operand}, c.List...) {
			if _, err := r.operand(o); err != nil {
				return err
			}
		}
	case *Not:
		return r.cond(c.X)
	case *And:
		if err := r.cond(c.Left); err != nil {
			return err
		}
		return r.cond(c.Right)
	case *Or:
		if err := r.cond(c.Left); err != nil {
			return err
		}
		return r.cond(c.Right)
	}
	return nil
}

// orderable reports whether a literal of type t may appear in an ordering
// comparison. A path (t == 0) may hold anything: a wrong type found in the
// item only makes the comparison false.
func orderable(t attr.Type) bool {
	return t == 0 || t == attr.S || t == attr.N || t == attr.B
}

// avString writes a scalar value as DynamoDB's messages do: {N:10}.
func avString(v attr.Value) string {
	switch v.T {
	case attr.S, attr.N:
		return "{" + v.T.String() + ":" + v.S + "}"
	}
	return "{" + v.T.String() + "}"
}

// typeWord is the upper-case type name used by ADD and DELETE errors.
func typeWord(t attr.Type) string {
	switch t {
	case attr.S:
		return "STRING"
	case attr.N:
		return "NUMBER"
	case attr.B:
		return "BINARY"
	case attr.BOOL:
		return "BOOLEAN"
	case attr.NULL:
		return "NULL"
	case attr.L:
		return "LIST"
	case attr.M:
		return "MAP"
	}
	return t.String()
}

func (r *resolver) update(u *Update) *Error {
	var targets []Path
	for _, a := range u.Set {
		p, err := r.path(a.Path)
		if err != nil {
			return err
		}
		targets = append(targets, p)
		if _, err := r.operand(a.Value); err != nil {
			return err
		}
	}
	for _, rp := range u.Remove {
		p, err := r.path(rp)
		if err != nil {
			return err
		}
		targets = append(targets, p)
	}
	for _, c := range []struct {
		op      string
		actions []ValueAction
	}{{"ADD", u.Add}, {"DELETE", u.Delete}} {
		for _, a := range c.actions {
			p, err := r.path(a.Path)
			if err != nil {
				return err
			}
			targets = append(targets, p)
			v, err := r.operand(a.Value)
			if err != nil {
				return err
			}
			ok := v.T.IsSet() || c.op == "ADD" && v.T == attr.N
			if !ok {
				return errorf("Incorrect operand type for operator or function; operator: %s, operand type: %s, typeSet: ALLOWED_FOR_%s_OPERAND", c.op, typeWord(v.T), c.op)
			}
		}
	}
	return checkOverlaps(targets)
}

func (r *resolver) projection(p *Projection) *Error {
	var paths []Path
	for _, pp := range p.Paths {
		rp, err := r.path(pp)
		if err != nil {
			return err
		}
		paths = append(paths, rp)
	}
	return checkOverlaps(paths)
}

// checkOverlaps rejects two paths where one is a prefix of the other
// (overlap), then two paths that treat the same element as both a map and a
// list (conflict), the order in which DynamoDB reports them.
func checkOverlaps(paths []Path) *Error {
	for i := range paths {
		for j := i + 1; j < len(paths); j++ {
			if rel := relate(paths[i], paths[j]); rel == overlap {
				return errorf("Two document paths overlap with each other; must remove or rewrite one of these paths; path one: %s, path two: %s", paths[i].Brackets(), paths[j].Brackets())
			}
		}
	}
	for i := range paths {
		for j := i + 1; j < len(paths); j++ {
			if rel := relate(paths[i], paths[j]); rel == conflict {
				return errorf("Two document paths conflict with each other; must remove or rewrite one of these paths; path one: %s, path two: %s", paths[i].Brackets(), paths[j].Brackets())
			}
		}
	}
	return nil
}

const (
	disjoint = iota
	overlap
	conflict
)

func relate(a, b Path) int {
	for k := 0; k < len(a) && k < len(b); k++ {
		if a[k].IsIndex != b[k].IsIndex {
			return conflict
		}
		if a[k] != b[k] {
			return disjoint
		}
	}
	return overlap
}

// Attributes lists the top-level attributes the update writes or removes,
// with placeholders resolved, so the engine can refuse updates to key
// attributes. It fails only on an undefined name.
func (u *Update) Attributes(names Names) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, p := range u.targets() {
		rp, err := resolvePath(p, names)
		if err != nil {
			return nil, err.Validation("UpdateExpression")
		}
		if !seen[rp[0].Name] {
			seen[rp[0].Name] = true
			out = append(out, rp[0].Name)
		}
	}
	return out, nil
}

func (u *Update) targets() []Path {
	ps := make([]Path, 0, len(u.Set)+len(u.Remove)+len(u.Add)+len(u.Delete))
	for _, a := range u.Set {
		ps = append(ps, a.Path)
	}
	ps = append(ps, u.Remove...)
	for _, a := range u.Add {
		ps = append(ps, a.Path)
	}
	for _, a := range u.Delete {
		ps = append(ps, a.Path)
	}
	return ps
}
