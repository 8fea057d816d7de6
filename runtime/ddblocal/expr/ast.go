package expr

import (
	"strconv"
	"strings"
)

// PathElem is one step of a document path: an attribute or map key name, or
// a list index. In a parsed expression Name may be a #placeholder; in a
// resolved path it is always the real name.
type PathElem struct {
	Name    string
	Index   int
	IsIndex bool
}

// Path is a document path such as a.b[2].c.
type Path []PathElem

// String writes the path in expression syntax.
func (p Path) String() string {
	var b strings.Builder
	for i, e := range p {
		switch {
		case e.IsIndex:
			b.WriteString("[" + strconv.Itoa(e.Index) + "]")
		case i > 0:
			b.WriteString("." + e.Name)
		default:
			b.WriteString(e.Name)
		}
	}
	return b.String()
}

// Brackets writes the path the way DynamoDB's error messages do: [a, b, [2]].
func (p Path) Brackets() string {
	parts := make([]string, len(p))
	for i, e := range p {
		if e.IsIndex {
			parts[i] = "[" + strconv.Itoa(e.Index) + "]"
		} else {
			parts[i] = e.Name
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// Operand is a value in an expression: a Path, a ValueRef (:placeholder), a
// Call such as size(a) or if_not_exists(a, :v), or, in update expressions
// only, an Arith (a + b, a - b).
type Operand interface {
	String() string
	isOperand()
}

// ValueRef names an entry of ExpressionAttributeValues, such as ":v".
type ValueRef string

// Call is a function applied to operands.
type Call struct {
	Name string
	Args []Operand
}

// Arith is SET's addition or subtraction; Op is '+' or '-'.
type Arith struct {
	Op          byte
	Left, Right Operand
}

func (Path) isOperand()     {}
func (ValueRef) isOperand() {}
func (*Call) isOperand()    {}
func (*Arith) isOperand()   {}

func (v ValueRef) String() string { return string(v) }

func (c *Call) String() string {
	args := make([]string, len(c.Args))
	for i, a := range c.Args {
		args[i] = a.String()
	}
	return c.Name + "(" + strings.Join(args, ", ") + ")"
}

func (a *Arith) String() string {
	return operandInArith(a.Left) + " " + string(a.Op) + " " + operandInArith(a.Right)
}

func operandInArith(o Operand) string {
	if _, ok := o.(*Arith); ok {
		return "(" + o.String() + ")"
	}
	return o.String()
}

// Cond is a node of a condition (ConditionExpression, FilterExpression or
// KeyConditionExpression): *Compare, *Between, *In, *Call (a boolean
// function), *Not, *And or *Or.
type Cond interface {
	String() string
	isCond()
}

// Compare is a comparison; Op is one of = <> < <= > >=.
type Compare struct {
	Op          string
	Left, Right Operand
}

// Between is "Operand BETWEEN Low AND High".
type Between struct {
	Operand, Low, High Operand
}

// In is "Operand IN (List...)".
type In struct {
	Operand Operand
	List    []Operand
}

// Not negates X.
type Not struct{ X Cond }

// And is true when both sides are.
type And struct{ Left, Right Cond }

// Or is true when either side is.
type Or struct{ Left, Right Cond }

func (*Compare) isCond() {}
func (*Between) isCond() {}
func (*In) isCond()      {}
func (*Call) isCond()    {}
func (*Not) isCond()     {}
func (*And) isCond()     {}
func (*Or) isCond()      {}

func (c *Compare) String() string {
	return c.Left.String() + " " + c.Op + " " + c.Right.String()
}

func (b *Between) String() string {
	return b.Operand.String() + " BETWEEN " + b.Low.String() + " AND " + b.High.String()
}

func (in *In) String() string {
	list := make([]string, len(in.List))
	for i, o := range in.List {
		list[i] = o.String()
	}
	return in.Operand.String() + " IN (" + strings.Join(list, ", ") + ")"
}

// The String methods print the fewest parentheses that keep the tree's shape
// under DynamoDB's precedence (NOT, then AND, then OR; both left-associative).
func (n *Not) String() string {
	switch n.X.(type) {
	case *And, *Or:
		return "NOT (" + n.X.String() + ")"
	}
	return "NOT " + n.X.String()
}

func (a *And) String() string {
	l, r := a.Left.String(), a.Right.String()
	if _, ok := a.Left.(*Or); ok {
		l = "(" + l + ")"
	}
	switch a.Right.(type) {
	case *And, *Or:
		r = "(" + r + ")"
	}
	return l + " AND " + r
}

func (o *Or) String() string {
	r := o.Right.String()
	if _, ok := o.Right.(*Or); ok {
		r = "(" + r + ")"
	}
	return o.Left.String() + " OR " + r
}

// Condition is a parsed ConditionExpression or FilterExpression.
type Condition struct{ Root Cond }

func (c *Condition) String() string { return c.Root.String() }

// KeyCondition is a parsed KeyConditionExpression.
type KeyCondition struct{ Root Cond }

func (k *KeyCondition) String() string { return k.Root.String() }

// Projection is a parsed ProjectionExpression.
type Projection struct{ Paths []Path }

func (p *Projection) String() string {
	parts := make([]string, len(p.Paths))
	for i, path := range p.Paths {
		parts[i] = path.String()
	}
	return strings.Join(parts, ", ")
}

// SetAction is "Path = Value" in a SET clause.
type SetAction struct {
	Path  Path
	Value Operand
}

// ValueAction is "Path :value" in an ADD or DELETE clause.
type ValueAction struct {
	Path  Path
	Value ValueRef
}

// Update is a parsed UpdateExpression. A nil slice means the clause is
// absent; clauses print in the order SET, REMOVE, ADD, DELETE.
type Update struct {
	Set    []SetAction
	Remove []Path
	Add    []ValueAction
	Delete []ValueAction
}

func (u *Update) String() string {
	var clauses []string
	if u.Set != nil {
		parts := make([]string, len(u.Set))
		for i, a := range u.Set {
			parts[i] = a.Path.String() + " = " + a.Value.String()
		}
		clauses = append(clauses, "SET "+strings.Join(parts, ", "))
	}
	if u.Remove != nil {
		parts := make([]string, len(u.Remove))
		for i, p := range u.Remove {
			parts[i] = p.String()
		}
		clauses = append(clauses, "REMOVE "+strings.Join(parts, ", "))
	}
	for _, c := range []struct {
		kw      string
		actions []ValueAction
	}{{"ADD", u.Add}, {"DELETE", u.Delete}} {
		if c.actions == nil {
			continue
		}
		parts := make([]string, len(c.actions))
		for i, a := range c.actions {
			parts[i] = a.Path.String() + " " + string(a.Value)
		}
		clauses = append(clauses, c.kw+" "+strings.Join(parts, ", "))
	}
	return strings.Join(clauses, " ")
}
