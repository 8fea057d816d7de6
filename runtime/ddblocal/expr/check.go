package expr

// Operand counts of the functions DynamoDB knows.
var (
	conditionFuncs = map[string]int{
		"attribute_exists": 1, "attribute_not_exists": 1, "attribute_type": 2,
		"begins_with": 2, "contains": 2, "size": 1,
	}
	updateFuncs = map[string]int{"if_not_exists": 2, "list_append": 2}
)

// pathFirst lists the functions whose first operand must be a document path.
// size, attribute_type and begins_with also take :values.
var pathFirst = map[string]bool{
	"attribute_exists": true, "attribute_not_exists": true, "if_not_exists": true,
}

// checkCall validates a function call's name, context and operands. asCond is
// true where the call stands as a condition, false where it is an operand.
func checkCall(p *parser, c *Call, update, asCond bool) {
	n, ok := conditionFuncs[c.Name]
	nu, okUpdate := updateFuncs[c.Name]
	switch {
	case !ok && !okUpdate:
		p.stop(errorf("Invalid function name; function: %s", c.Name))
	case update && !okUpdate:
		p.stop(errorf("The function is not allowed in an update expression; function: %s", c.Name))
	case !update && !ok:
		p.stop(errorf("The function is not allowed in a condition expression; function: %s", c.Name))
	}
	if update {
		n = nu
	} else if asCond == (c.Name == "size") {
		// size yields a number, the others a truth value.
		p.stop(errorf("The function is not allowed to be used this way in an expression; function: %s", c.Name))
	}
	if len(c.Args) != n {
		p.stop(errorf("Incorrect number of operands for operator or function; operator or function: %s, number of operands: %d", c.Name, len(c.Args)))
	}
	if _, isPath := c.Args[0].(Path); pathFirst[c.Name] && !isPath {
		p.stop(errorf("Operator or function requires a document path; operator or function: %s", c.Name))
	}
	for _, a := range c.Args {
		checkOperand(p, a, update)
		// DynamoDB refuses list_append(list_append(...), ...) and the like.
		if inner, ok := a.(*Call); ok && inner.Name == "list_append" {
			p.stop(errorf("The function is not allowed to be used this way in an expression; function: %s", inner.Name))
		}
	}
}

func checkOperand(p *parser, o Operand, update bool) {
	switch o := o.(type) {
	case *Call:
		checkCall(p, o, update, false)
	case *Arith:
		checkOperand(p, o.Left, update)
		checkOperand(p, o.Right, update)
	}
}

func checkCond(p *parser, c Cond) {
	switch c := c.(type) {
	case *Call:
		checkCall(p, c, false, true)
	case *Compare:
		checkOperand(p, c.Left, false)
		checkOperand(p, c.Right, false)
	case *Between:
		checkOperand(p, c.Operand, false)
		checkOperand(p, c.Low, false)
		checkOperand(p, c.High, false)
	case *In:
		checkOperand(p, c.Operand, false)
		for _, o := range c.List {
			checkOperand(p, o, false)
		}
		// The limit counts the left operand too.
		if n := len(c.List) + 1; n > MaxInOperands {
			p.stop(errorf("The IN operator is provided with too many operands; number of operands: %d", n))
		}
	case *Not:
		checkCond(p, c.X)
	case *And:
		checkCond(p, c.Left)
		checkCond(p, c.Right)
	case *Or:
		checkCond(p, c.Left)
		checkCond(p, c.Right)
	}
}

func checkUpdate(p *parser, u *Update) {
	n := 0
	for _, a := range u.Set {
		checkOperand(p, a.Value, true)
		n += countOperand(a.Value)
	}
	checkOperatorCount(p, n)
}

// MaxOperators is the most operators and functions one expression may hold.
const MaxOperators = 300

// countOperand and countCond count operators (comparisons, AND, OR, NOT,
// BETWEEN, IN, + and -). DynamoDB does not count function calls.
func countOperand(o Operand) int {
	switch o := o.(type) {
	case *Call:
		n := 0
		for _, a := range o.Args {
			n += countOperand(a)
		}
		return n
	case *Arith:
		return 1 + countOperand(o.Left) + countOperand(o.Right)
	}
	return 0
}

func countCond(c Cond) int {
	switch c := c.(type) {
	case *Call:
		return countOperand(c)
	case *Compare:
		return 1 + countOperand(c.Left) + countOperand(c.Right)
	case *Between:
		return 1 + countOperand(c.Operand) + countOperand(c.Low) + countOperand(c.High)
	case *In:
		n := 1 + countOperand(c.Operand)
		for _, o := range c.List {
			n += countOperand(o)
		}
		return n
	case *Not:
		return 1 + countCond(c.X)
	case *And:
		return 1 + countCond(c.Left) + countCond(c.Right)
	case *Or:
		return 1 + countCond(c.Left) + countCond(c.Right)
	}
	return 0
}

// checkOperatorCount reports the count at which DynamoDB stops counting.
func checkOperatorCount(p *parser, n int) {
	if n > MaxOperators {
		p.stop(errorf("The expression contains too many operators; operator count: %d", MaxOperators+1))
	}
}
