package conformance_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

const (
	pageConditions = "Condition and filter expressions, operators, and functions in DynamoDB (Developer Guide)"
	pageUpdateExpr = "Using update expressions in DynamoDB (Developer Guide)"
	pageProjection = "Using projection expressions in DynamoDB (Developer Guide)"
	pageDocPaths   = "Referring to item attributes when using expressions in DynamoDB (Developer Guide)"
	pageNames      = "Expression attribute names (aliases) in DynamoDB (Developer Guide)"
	pageValues     = "Using expression attribute values in DynamoDB (Developer Guide)"
	pageReserved   = "Reserved words in DynamoDB (Developer Guide)"
	pagePrecedence = "Condition and filter expressions — Precedence in conditions (Developer Guide)"
)

// richItem has one attribute of every type and nested documents.
func richItem() item {
	return item{
		"pk":        s("rich"),
		"s":         s("hello world"),
		"n":         n("10"),
		"neg":       n("-5"),
		"b":         b([]byte{1, 2, 3}),
		"t":         boolv(true),
		"f":         boolv(false),
		"nul":       null(),
		"l":         l(s("a"), n("2"), m(item{"c": s("deep")}), l(s("x"), s("y"))),
		"m":         m(item{"a": m(item{"b": l(n("0"), n("1"), m(item{"c": s("found")}))}), "k": s("v")}),
		"ss":        ss("red", "green"),
		"ns":        ns("1", "2", "3"),
		"bs":        bs([]byte{1}, []byte{2}),
		"blank":     s(""),
		"dash-name": s("d"),
		"status":    s("ACTIVE"),
	}
}

// condCase is one condition expression and whether it holds on richItem.
type condCase struct {
	name  string
	expr  string
	names map[string]string
	vals  item
	want  bool
	doc   string
}

func condCases() []condCase {
	const cmp = `Comparison operators: a = b (true if a is equal to b), a <> b, a < b, a <= b, a > b, a >= b. Numbers compare by value, strings by their UTF-8 binary encoding, binary values bytewise as unsigned; values of different types are never equal.`
	return []condCase{
		{name: "N =", expr: "n = :v", vals: item{":v": n("10")}, want: true, doc: cmp},
		{name: "N = false", expr: "n = :v", vals: item{":v": n("10.5")}, want: false, doc: cmp},
		{name: "N = after normalization", expr: "n = :v", vals: item{":v": n("10.00")}, want: true, doc: cmp},
		{name: "N <>", expr: "n <> :v", vals: item{":v": n("10")}, want: false, doc: cmp},
		{name: "N <", expr: "n < :v", vals: item{":v": n("11")}, want: true, doc: cmp},
		{name: "N <=", expr: "n <= :v", vals: item{":v": n("10")}, want: true, doc: cmp},
		{name: "N >", expr: "n > :v", vals: item{":v": n("9")}, want: true, doc: cmp + " (numeric, not lexicographic: 10 > 9)"},
		{name: "N >=", expr: "n >= :v", vals: item{":v": n("11")}, want: false, doc: cmp},
		{name: "N negative", expr: "neg < :v", vals: item{":v": n("-4.99")}, want: true, doc: cmp},
		{name: "S <", expr: "s < :v", vals: item{":v": s("hello x")}, want: true, doc: cmp},
		{name: "S > bytewise", expr: "s > :v", vals: item{":v": s("Zebra")}, want: true, doc: cmp + " ('h' 0x68 > 'Z' 0x5A)"},
		{name: "B < unsigned", expr: "b < :v", vals: item{":v": b([]byte{0xff})}, want: true, doc: cmp},
		{name: "B = ", expr: "b = :v", vals: item{":v": b([]byte{1, 2, 3})}, want: true, doc: cmp},
		{name: "different types =", expr: "n = :v", vals: item{":v": s("10")}, want: false, doc: cmp},
		{name: "different types <>", expr: "n <> :v", vals: item{":v": s("10")}, want: true, doc: cmp},
		{name: "different types <", expr: "n < :v", vals: item{":v": s("99")}, want: false, doc: cmp},
		{name: "BOOL =", expr: "t = :v", vals: item{":v": boolv(true)}, want: true, doc: cmp},
		{name: "L =", expr: "l[3] = :v", vals: item{":v": l(s("x"), s("y"))}, want: true, doc: `a = b: true if a is equal to b. The comparators = and <> apply to values of every type, lists and maps included (element by element); the other comparators to numbers, strings and binaries.`},
		{name: "M =", expr: "m.a.b[2] = :v", vals: item{":v": m(item{"c": s("found")})}, want: true, doc: `a = b: true if a is equal to b, for maps too.`},
		{name: "SS = ignores order", expr: "ss = :v", vals: item{":v": ss("green", "red")}, want: true, doc: cmp},
		{name: "missing attribute =", expr: "nope = :v", vals: item{":v": s("x")}, want: false, doc: cmp},

		{name: "BETWEEN inclusive", expr: "n BETWEEN :lo AND :hi", vals: item{":lo": n("5"), ":hi": n("10")}, want: true, doc: `a BETWEEN b AND c: true if a is greater than or equal to b, and less than or equal to c.`},
		{name: "BETWEEN outside", expr: "n BETWEEN :lo AND :hi", vals: item{":lo": n("11"), ":hi": n("20")}, want: false, doc: `a BETWEEN b AND c`},
		{name: "BETWEEN strings", expr: "s BETWEEN :lo AND :hi", vals: item{":lo": s("a"), ":hi": s("z")}, want: true, doc: `a BETWEEN b AND c`},
		{name: "IN match", expr: "n IN (:a, :b)", vals: item{":a": n("1"), ":b": n("10")}, want: true, doc: `a IN (b, c, d): true if a is equal to any value in the list.`},
		{name: "IN no match", expr: "n IN (:a, :b)", vals: item{":a": n("1"), ":b": n("2")}, want: false, doc: `a IN (b, c, d)`},
		{name: "IN single", expr: "s IN (:a)", vals: item{":a": s("hello world")}, want: true, doc: `a IN (b, c, d)`},

		{name: "AND before OR", expr: "n = :ten OR n = :one AND s = :wrong", vals: item{":ten": n("10"), ":one": n("1"), ":wrong": s("no")}, want: true, doc: `Precedence: NOT, then AND, then OR (highest to lowest): a OR b AND c is a OR (b AND c).`},
		{name: "NOT before AND", expr: "NOT n = :ten AND n = :one", vals: item{":ten": n("10"), ":one": n("1")}, want: false, doc: `Precedence: NOT binds tighter than AND: NOT a AND b is (NOT a) AND b.`},
		{name: "NOT", expr: "NOT n = :one", vals: item{":one": n("1")}, want: true, doc: `NOT condition: true if condition is false.`},
		{name: "parentheses", expr: "(n = :ten OR n = :one) AND s = :wrong", vals: item{":ten": n("10"), ":one": n("1"), ":wrong": s("no")}, want: false, doc: `Parentheses change precedence: (a OR b) AND c.`},
		{name: "nested parentheses", expr: "NOT (n = :one OR (s = :wrong AND t = :t))", vals: item{":one": n("1"), ":wrong": s("no"), ":t": boolv(true)}, want: true, doc: `Parentheses change precedence.`},

		{name: "attribute_exists", expr: "attribute_exists(s)", want: true, doc: `attribute_exists(path): True if the item contains the attribute specified by path.`},
		{name: "attribute_exists missing", expr: "attribute_exists(nope)", want: false, doc: `attribute_exists(path)`},
		{name: "attribute_exists NULL", expr: "attribute_exists(nul)", want: true, doc: `attribute_exists(path): an attribute of type NULL exists.`},
		{name: "attribute_exists nested", expr: "attribute_exists(m.a.b[2].c)", want: true, doc: `attribute_exists(path) with a document path.`},
		{name: "attribute_exists past list end", expr: "attribute_exists(m.a.b[5])", want: false, doc: `attribute_exists(path) with a document path.`},
		{name: "attribute_not_exists", expr: "attribute_not_exists(nope)", want: true, doc: `attribute_not_exists(path): True if the attribute specified by path does not exist in the item.`},
		{name: "attribute_not_exists present", expr: "attribute_not_exists(s)", want: false, doc: `attribute_not_exists(path)`},
		{name: "begins_with", expr: "begins_with(s, :p)", vals: item{":p": s("hell")}, want: true, doc: `begins_with(path, substr): True if the attribute specified by path begins with a particular substring.`},
		{name: "begins_with false", expr: "begins_with(s, :p)", vals: item{":p": s("world")}, want: false, doc: `begins_with(path, substr)`},
		{name: "begins_with binary", expr: "begins_with(b, :p)", vals: item{":p": b([]byte{1, 2})}, want: true, doc: `begins_with(path, substr) on a Binary attribute.`},
		{name: "contains string", expr: "contains(s, :p)", vals: item{":p": s("lo w")}, want: true, doc: `contains(path, operand): True if the attribute specified by path is a String that contains a particular substring.`},
		{name: "contains SS", expr: "contains(ss, :p)", vals: item{":p": s("red")}, want: true, doc: `contains(path, operand): a Set that contains a particular element within the set.`},
		{name: "contains SS false", expr: "contains(ss, :p)", vals: item{":p": s("blue")}, want: false, doc: `contains(path, operand)`},
		{name: "contains NS", expr: "contains(ns, :p)", vals: item{":p": n("2")}, want: true, doc: `contains(path, operand)`},
		{name: "contains BS", expr: "contains(bs, :p)", vals: item{":p": b([]byte{2})}, want: true, doc: `contains(path, operand)`},
		{name: "contains List", expr: "contains(l, :p)", vals: item{":p": s("a")}, want: true, doc: `contains(path, operand): a List that contains a particular element within the list.`},
		{name: "contains binary", expr: "contains(b, :p)", vals: item{":p": b([]byte{2, 3})}, want: true, doc: `contains(path, operand): a Binary that contains the bytes.`},
		{name: "size string", expr: "size(s) = :v", vals: item{":v": n("11")}, want: true, doc: `size(path): Returns a number representing an attribute's size: String - the length of the string.`},
		{name: "size binary", expr: "size(b) = :v", vals: item{":v": n("3")}, want: true, doc: `size(path): Binary - the number of bytes.`},
		{name: "size list", expr: "size(l) = :v", vals: item{":v": n("4")}, want: true, doc: `size(path): List - the number of elements.`},
		{name: "size map", expr: "size(m) = :v", vals: item{":v": n("2")}, want: true, doc: `size(path): Map - the number of child elements.`},
		{name: "size set", expr: "size(ss) < :v", vals: item{":v": n("3")}, want: true, doc: `size(path): Set - the number of elements.`},
		{name: "size empty string", expr: "size(blank) = :v", vals: item{":v": n("0")}, want: true, doc: `size(path)`},
		{name: "size nested", expr: "size(m.a.b) = :v", vals: item{":v": n("3")}, want: true, doc: `size(path) with a document path.`},
	}
}

func attributeTypeCases() []condCase {
	var cs []condCase
	for attr, typ := range map[string]string{"s": "S", "n": "N", "b": "B", "t": "BOOL", "nul": "NULL", "l": "L", "m": "M", "ss": "SS", "ns": "NS", "bs": "BS"} {
		cs = append(cs,
			condCase{name: "attribute_type " + typ, expr: "attribute_type(" + attr + ", :t)", vals: item{":t": s(typ)}, want: true, doc: `attribute_type(path, type): True if the attribute at the specified path is of a particular data type (S, SS, N, NS, B, BS, BOOL, NULL, L, M).`},
		)
	}
	cs = append(cs, condCase{name: "attribute_type mismatch", expr: "attribute_type(n, :t)", vals: item{":t": s("S")}, want: false, doc: `attribute_type(path, type)`})
	return cs
}

func docPathCases() []condCase {
	return []condCase{
		{name: "map path", expr: "m.k = :v", vals: item{":v": s("v")}, want: true, doc: `Nested attributes: use the dereference operator (.) for a map element.`},
		{name: "list element", expr: "l[1] = :v", vals: item{":v": n("2")}, want: true, doc: `Use the [n] dereference operator for a list element, where n is the zero-based element number.`},
		{name: "list of list", expr: "l[3][1] = :v", vals: item{":v": s("y")}, want: true, doc: `Document paths combine [n] and (.) dereferences.`},
		{name: "a.b[2].c", expr: "m.a.b[2].c = :v", vals: item{":v": s("found")}, want: true, doc: `Document paths combine [n] and (.) dereferences, e.g. MyMap.nestedList[2].c.`},
		{name: "list then map", expr: "l[2].c = :v", vals: item{":v": s("deep")}, want: true, doc: `Document paths.`},
		{name: "name placeholder for dash", expr: "#d = :v", names: map[string]string{"#d": "dash-name"}, vals: item{":v": s("d")}, want: true, doc: `Use an expression attribute name for an attribute name that contains special characters such as a dash.`},
		{name: "name placeholder for reserved word", expr: "#st = :v", names: map[string]string{"#st": "status"}, vals: item{":v": s("ACTIVE")}, want: true, doc: `Use an expression attribute name to access an attribute whose name conflicts with a DynamoDB reserved word.`},
		{name: "name placeholder for dotted name", expr: "attribute_not_exists(#dot)", names: map[string]string{"#dot": "m.k"}, want: true, doc: `An expression attribute name "m.k" is one top-level attribute named m.k, not the nested path m.k.`},
		{name: "name placeholders in path", expr: "#m.#a.#b[2].#c = :v", names: map[string]string{"#m": "m", "#a": "a", "#b": "b", "#c": "c"}, vals: item{":v": s("found")}, want: true, doc: `Each element of a document path can be an expression attribute name.`},
	}
}

func TestConditionExpressions(t *testing.T) {
	var all []condCase
	all = append(all, condCases()...)
	all = append(all, attributeTypeCases()...)
	all = append(all, docPathCases()...)
	each(t, func(t *testing.T, tg *target) {
		table := hashTable(t, tg)
		put(t, tg, table, richItem())
		for _, c := range all {
			t.Run(c.name, func(t *testing.T) {
				doc(t, pageConditions+" / "+pageDocPaths, c.doc)
				in := &dynamodb.PutItemInput{
					TableName: aws.String(table), Item: richItem(),
					ConditionExpression: aws.String(c.expr),
				}
				if len(c.names) > 0 {
					in.ExpressionAttributeNames = c.names
				}
				if len(c.vals) > 0 {
					in.ExpressionAttributeValues = c.vals
				}
				_, err := tg.client.PutItem(ctx(t), in)
				if c.want {
					if err != nil {
						t.Errorf("condition %q: got %v, want it to hold", c.expr, err)
					}
					return
				}
				wantErr(t, err, "ConditionalCheckFailedException", "The conditional request failed")
			})
		}
	})
}

func TestFilterExpressionsMatchConditions(t *testing.T) {
	doc(t, pageConditions, `A filter expression uses the same syntax as a condition expression: comparators, BETWEEN, IN, AND/OR/NOT and the functions; items that do not satisfy it are not returned.`)
	cases := condCases()
	each(t, func(t *testing.T, tg *target) {
		table := hashTable(t, tg)
		put(t, tg, table, richItem())
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				vals := item{":pk": s("rich")}
				for k, v := range c.vals {
					vals[k] = v
				}
				out, err := tg.client.Query(ctx(t), &dynamodb.QueryInput{
					TableName: aws.String(table), KeyConditionExpression: aws.String("pk = :pk"),
					FilterExpression: aws.String(c.expr), ExpressionAttributeValues: vals,
				})
				noErr(t, err, "Query with filter "+c.expr)
				if got := len(out.Items) == 1; got != c.want {
					t.Errorf("filter %q kept the item = %v, want %v", c.expr, got, c.want)
				}
				if aws.ToInt32(&out.ScannedCount) != 1 {
					t.Errorf("ScannedCount = %d, want 1 (filters apply after reading)", out.ScannedCount)
				}
			})
		}
	})
}

// exprErrCase is an invalid expression and the ValidationException message.
type exprErrCase struct {
	name   string
	expr   string
	names  map[string]string
	vals   item
	msg    []string
	doc    string
	update bool // UpdateExpression rather than ConditionExpression
	// divergence names an open engine divergence (see knownDivergence).
	divergence string
}

func TestExpressionValidationErrors(t *testing.T) {
	cases := []exprErrCase{
		{name: "undefined value", expr: "n = :nope", msg: []string{"Invalid ConditionExpression: An expression attribute value used in expression is not defined; attribute value: :nope"},
			doc: `Expression attribute values: every :placeholder used in an expression must be defined in ExpressionAttributeValues.`},
		{name: "undefined name", expr: "#nope = :v", vals: item{":v": n("1")}, msg: []string{"Invalid ConditionExpression: An expression attribute name used in the document path is not defined; attribute name: #nope"},
			doc: `Expression attribute names: every #placeholder used in an expression must be defined in ExpressionAttributeNames.`},
		{name: "unused value", expr: "n = :v", vals: item{":v": n("1"), ":unused": n("2")}, msg: []string{"Value provided in ExpressionAttributeValues unused in expressions: keys: {:unused}"},
			doc: `Every key of ExpressionAttributeValues must be used by an expression of the request.`},
		{name: "unused name", expr: "n = :v", names: map[string]string{"#unused": "x"}, vals: item{":v": n("1")}, msg: []string{"Value provided in ExpressionAttributeNames unused in expressions: keys: {#unused}"},
			doc: `Every key of ExpressionAttributeNames must be used by an expression of the request.`},
		{name: "reserved word", expr: "status = :v", vals: item{":v": s("x")}, msg: []string{"Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: status"},
			doc: `Reserved words: You can't use any of these words as attribute names in expressions (STATUS is reserved); use an expression attribute name instead.`},
		{name: "reserved word any case", expr: "attribute_exists(Size)", msg: []string{"Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: Size"},
			doc: `Reserved words are not case-sensitive (SIZE is reserved).`},
		{name: "syntax error", expr: "n = = :v", vals: item{":v": n("1")}, msg: []string{"Invalid ConditionExpression: Syntax error; token: "},
			doc: `A condition expression must follow the documented grammar.`},
		{name: "empty", expr: "", msg: []string{"Invalid ConditionExpression: The expression can not be empty;"},
			doc: `ConditionExpression: A condition that must be satisfied; an empty expression is invalid.`},
		{name: "unknown function", expr: "frobnicate(n)", msg: []string{"Invalid ConditionExpression: Invalid function name; function: frobnicate"},
			doc: `Functions: attribute_exists, attribute_not_exists, attribute_type, begins_with, contains, size — function names are case-sensitive.`},
		{name: "begins_with number operand", expr: "begins_with(s, :v)", vals: item{":v": n("1")}, msg: []string{"Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N"},
			doc: `begins_with(path, substr): substr is a String or Binary.`},
		{name: "size of a literal number", expr: "size(:v) = :v", vals: item{":v": n("1")}, msg: []string{"Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: size, operand type: N"},
			doc: `size(path): works on String, Binary and collection types. Unsure: the guide writes size(path); DynamoDB is known (through emulators that recorded its messages) to type-check a literal operand and report its type rather than demand a path.`},
		{name: "attribute_type bad type", expr: "attribute_type(n, :t)", vals: item{":t": s("XX")}, msg: []string{"Invalid ConditionExpression: Invalid attribute type name found; type: XX"},
			doc: `attribute_type(path, type): type must be one of S, SS, N, NS, B, BS, BOOL, NULL, L, M.`},
		{name: "function needs a path", expr: "attribute_exists(:v)", vals: item{":v": s("x")}, msg: []string{"Invalid ConditionExpression: Operator or function requires a document path; operator or function: attribute_exists"},
			doc: `attribute_exists(path): the argument is a document path.`},
		{name: "BETWEEN bounds reversed", expr: "n BETWEEN :hi AND :lo", vals: item{":hi": n("10"), ":lo": n("5")}, msg: []string{"Invalid ConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound"},
			doc: `a BETWEEN b AND c: c must be greater than or equal to b.`},
		{name: "redundant parentheses", expr: "((n = :v))", vals: item{":v": n("1")}, msg: []string{"Invalid ConditionExpression: The expression has redundant parentheses;"},
			doc: `Parentheses may group conditions; DynamoDB rejects redundant ones.`},
		{name: "IN with 100 values is 101 operands, over the limit", expr: "n IN (" + placeholders(100) + ")", vals: numberedValues(100), msg: []string{"Invalid ConditionExpression: The IN operator is provided with too many operands; number of operands: 101"},
			doc: `The maximum number of operands for the IN comparator is 100 (Service Quotas); the left operand counts: real DynamoDB refuses a list of 100 values and accepts 99 (ScyllaDB's test_update_condition_in, run against DynamoDB), although the Developer Guide says "up to 100 values".`},

		{name: "update overlapping same path", update: true, expr: "SET a = :v, a = :v", vals: item{":v": n("1")},
			msg: []string{"Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]"},
			doc: `An update expression may not change the same document path twice.`},
		{name: "update overlapping parent and child", update: true, expr: "SET m = :v REMOVE m.k", vals: item{":v": n("1")},
			msg: []string{"Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [m], path two: [m, k]"},
			doc: `An update expression may not change a path and one of its children.`},
		{name: "update SET twice", update: true, expr: "SET a = :v SET b = :v", vals: item{":v": n("1")},
			msg: []string{`Invalid UpdateExpression: The "SET" section can only be used once in an update expression;`},
			doc: `Each action keyword (SET, REMOVE, ADD, DELETE) appears at most once in an update expression.`},
		{name: "update ADD string", update: true, expr: "ADD a :v", vals: item{":v": s("x")},
			msg: []string{"Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: STRING"},
			doc: `ADD: The value must be a number or a set.`},
		{name: "update DELETE number", update: true, expr: "DELETE a :v", vals: item{":v": n("1")},
			msg: []string{"Invalid UpdateExpression: Incorrect operand type for operator or function; operator: DELETE, operand type: NUMBER"},
			doc: `DELETE: removes elements from a set; the value must be a set.`},
		{name: "update + on a string literal", update: true, expr: "SET a = :s + :n", vals: item{":s": s("x"), ":n": n("1")},
			msg: []string{"Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: +, operand type: S"},
			doc: `SET ... + / -: both operands must be numbers.`},
		{name: "update list_append literal non-list", update: true, expr: "SET a = list_append(a, :s)", vals: item{":s": s("x")},
			msg: []string{"Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: list_append, operand type: S"},
			doc: `list_append(list1, list2): both operands are lists.`},
		{name: "update reserved word", update: true, expr: "SET size = :v", vals: item{":v": n("1")},
			msg: []string{"Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: size"},
			doc: `Reserved words cannot be attribute names in an update expression.`},
		{name: "update undefined value", update: true, expr: "SET a = :nope",
			msg: []string{"Invalid UpdateExpression: An expression attribute value used in expression is not defined; attribute value: :nope"},
			doc: `Every :placeholder must be defined.`},
		{name: "update undefined name", update: true, expr: "SET #nope = :v", vals: item{":v": n("1")},
			msg: []string{"Invalid UpdateExpression: An expression attribute name used in the document path is not defined; attribute name: #nope"},
			doc: `Every #placeholder must be defined.`},
		{name: "update if_not_exists needs a path", update: true, expr: "SET a = if_not_exists(:v, :v)", vals: item{":v": n("1")},
			msg: []string{"Invalid UpdateExpression: Operator or function requires a document path; operator or function: if_not_exists"},
			doc: `if_not_exists(path, value): the first operand is a document path.`},
		{name: "update syntax error", update: true, expr: "SET a :v", vals: item{":v": n("1")},
			msg: []string{"Invalid UpdateExpression: Syntax error; token: "},
			doc: `An update expression follows the documented grammar: SET path = value.`},
		{name: "update empty", update: true, expr: "",
			msg: []string{"Invalid UpdateExpression: The expression can not be empty;"},
			doc: `UpdateExpression: an empty expression is invalid.`},
		{name: "update unknown function", update: true, expr: "SET a = frob(b)",
			msg: []string{"Invalid UpdateExpression: Invalid function name; function: frob"},
			doc: `Update expressions support the functions if_not_exists and list_append.`},
	}
	each(t, func(t *testing.T, tg *target) {
		table := hashTable(t, tg)
		put(t, tg, table, richItem())
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				doc(t, pageConditions+" / "+pageUpdateExpr+" / "+pageNames+" / "+pageValues+" / "+pageReserved, c.doc)
				if c.divergence != "" {
					knownDivergence(t, tg, c.divergence)
				}
				var names map[string]string
				if len(c.names) > 0 {
					names = c.names
				}
				var vals item
				if len(c.vals) > 0 {
					vals = c.vals
				}
				var err error
				if c.update {
					_, err = tg.client.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{
						TableName: aws.String(table), Key: item{"pk": s("rich")},
						UpdateExpression: aws.String(c.expr), ExpressionAttributeNames: names, ExpressionAttributeValues: vals,
					})
				} else {
					_, err = tg.client.PutItem(ctx(t), &dynamodb.PutItemInput{
						TableName: aws.String(table), Item: richItem(),
						ConditionExpression: aws.String(c.expr), ExpressionAttributeNames: names, ExpressionAttributeValues: vals,
					})
				}
				wantValidation(t, err, c.msg...)
			})
		}
		t.Run("IN with 99 values is accepted", func(t *testing.T) {
			doc(t, pageConditions, `The maximum number of operands for the IN comparator is 100, the left operand included: 99 values in the list are the most DynamoDB accepts (observed by ScyllaDB's test_update_condition_in against DynamoDB; the Developer Guide's "up to 100 values" overstates it by one).`)
			vals := numberedValues(99)
			vals[":v10"] = n("10") // n is 10: the condition holds
			_, err := tg.client.PutItem(ctx(t), &dynamodb.PutItemInput{
				TableName: aws.String(table), Item: richItem(),
				ConditionExpression: aws.String("n IN (" + placeholders(99) + ")"), ExpressionAttributeValues: vals,
			})
			noErr(t, err, "IN with 99 values")
		})
		t.Run("empty ExpressionAttributeValues", func(t *testing.T) {
			doc(t, pageValues, `ExpressionAttributeValues, when present, must not be empty.`)
			_, err := tg.client.PutItem(ctx(t), &dynamodb.PutItemInput{
				TableName: aws.String(table), Item: richItem(),
				ConditionExpression: aws.String("attribute_exists(pk)"), ExpressionAttributeValues: item{},
			})
			wantValidation(t, err, "ExpressionAttributeValues must not be empty")
		})
		t.Run("values without an expression", func(t *testing.T) {
			doc(t, pageValues, `ExpressionAttributeValues can only be specified when using expressions.`)
			_, err := tg.client.PutItem(ctx(t), &dynamodb.PutItemInput{
				TableName: aws.String(table), Item: richItem(), ExpressionAttributeValues: item{":v": n("1")},
			})
			wantValidation(t, err, "ExpressionAttributeValues can only be specified when using expressions")
		})
		if got := get(t, tg, table, item{"pk": s("rich")}); !equalItem(got, richItem()) {
			t.Errorf("rejected expressions changed the item: %s", show(got))
		}
	})
}

func placeholders(k int) string {
	p := make([]string, k)
	for i := range p {
		p[i] = fmt.Sprintf(":v%d", i)
	}
	return strings.Join(p, ", ")
}

func numberedValues(k int) item {
	v := item{}
	for i := range k {
		v[fmt.Sprintf(":v%d", i)] = n(fmt.Sprint(i))
	}
	return v
}

// updateCase applies an update expression to richItem and checks the
// whole item afterwards.
type updateCase struct {
	name  string
	expr  string
	names map[string]string
	vals  item
	// change edits a copy of richItem into the expected result.
	change func(it item)
	doc    string
}

func TestUpdateExpressions(t *testing.T) {
	cases := []updateCase{
		{name: "SET value", expr: "SET a = :v", vals: item{":v": s("x")}, change: func(it item) { it["a"] = s("x") },
			doc: `SET path = value: adds one or more attributes and values to an item; if any of these attributes already exist, they are replaced by the new values.`},
		{name: "SET replace", expr: "SET s = :v", vals: item{":v": n("1")}, change: func(it item) { it["s"] = n("1") }, doc: `SET replaces an existing attribute, of any type.`},
		{name: "SET plus", expr: "SET n = n + :v", vals: item{":v": n("5")}, change: func(it item) { it["n"] = n("15") },
			doc: `SET path = operand + operand: increment a number.`},
		{name: "SET minus", expr: "SET n = n - :v", vals: item{":v": n("12")}, change: func(it item) { it["n"] = n("-2") },
			doc: `SET path = operand - operand: decrement a number.`},
		{name: "SET minus operand order", expr: "SET x = :v - n", vals: item{":v": n("1")}, change: func(it item) { it["x"] = n("-9") }, doc: `SET path = operand - operand.`},
		{name: "SET copy attribute", expr: "SET x = s", change: func(it item) { it["x"] = s("hello world") }, doc: `SET path = path copies another attribute's value.`},
		{name: "SET if_not_exists absent", expr: "SET x = if_not_exists(x, :z)", vals: item{":z": n("0")}, change: func(it item) { it["x"] = n("0") },
			doc: `if_not_exists(path, value): If the item does not contain an attribute at the specified path, if_not_exists evaluates to value; otherwise, it evaluates to path.`},
		{name: "SET if_not_exists present", expr: "SET n = if_not_exists(n, :z)", vals: item{":z": n("0")}, change: func(it item) {}, doc: `if_not_exists(path, value)`},
		{name: "SET if_not_exists plus", expr: "SET c = if_not_exists(c, :z) + :one", vals: item{":z": n("0"), ":one": n("1")}, change: func(it item) { it["c"] = n("1") }, doc: `if_not_exists combined with + (a counter).`},
		{name: "SET list_append end", expr: "SET l = list_append(l, :more)", vals: item{":more": l(s("z"))}, change: func(it item) {
			it["l"] = l(s("a"), n("2"), m(item{"c": s("deep")}), l(s("x"), s("y")), s("z"))
		}, doc: `list_append(list1, list2): evaluates to a list with list2 appended to list1.`},
		{name: "SET list_append front", expr: "SET l = list_append(:front, l)", vals: item{":front": l(n("0"))}, change: func(it item) {
			it["l"] = l(n("0"), s("a"), n("2"), m(item{"c": s("deep")}), l(s("x"), s("y")))
		}, doc: `list_append: to prepend, put the new list first.`},
		{name: "SET nested map path", expr: "SET m.a.b[2].c = :v", vals: item{":v": s("changed")}, change: func(it item) {
			it["m"] = m(item{"a": m(item{"b": l(n("0"), n("1"), m(item{"c": s("changed")}))}), "k": s("v")})
		}, doc: `SET with a nested document path a.b[2].c.`},
		{name: "SET new map key", expr: "SET m.nk = :v", vals: item{":v": s("new")}, change: func(it item) {
			it["m"] = m(item{"a": m(item{"b": l(n("0"), n("1"), m(item{"c": s("found")}))}), "k": s("v"), "nk": s("new")})
		}, doc: `SET adds a new key to an existing map.`},
		{name: "SET list element", expr: "SET l[1] = :v", vals: item{":v": s("two")}, change: func(it item) {
			it["l"] = l(s("a"), s("two"), m(item{"c": s("deep")}), l(s("x"), s("y")))
		}, doc: `SET on a list element replaces it.`},
		{name: "SET past list end appends", expr: "SET l[10] = :v", vals: item{":v": s("end")}, change: func(it item) {
			it["l"] = l(s("a"), n("2"), m(item{"c": s("deep")}), l(s("x"), s("y")), s("end"))
		}, doc: `Adding elements to a list: if you use SET with an index beyond the end of the list, the new element is added at the end of the list.`},
		{name: "SET name placeholders", expr: "SET #st = :v, #d = :v", names: map[string]string{"#st": "status", "#d": "dash-name"}, vals: item{":v": s("X")}, change: func(it item) {
			it["status"] = s("X")
			it["dash-name"] = s("X")
		}, doc: `Expression attribute names in update expressions.`},
		{name: "REMOVE top level", expr: "REMOVE s, nope", change: func(it item) { delete(it, "s") },
			doc: `REMOVE: removes one or more attributes from an item; removing an attribute that does not exist is not an error.`},
		{name: "REMOVE nested", expr: "REMOVE m.k", change: func(it item) {
			it["m"] = m(item{"a": m(item{"b": l(n("0"), n("1"), m(item{"c": s("found")}))})})
		}, doc: `REMOVE with a document path removes a map element.`},
		{name: "REMOVE list elements", expr: "REMOVE l[0], l[2]", change: func(it item) {
			it["l"] = l(n("2"), l(s("x"), s("y")))
		}, doc: `Removing elements from a list: REMOVE list[i] removes the element and shifts the rest. Several indexes in one expression refer to positions before the update (each path names an element of the item as it was); the doc example REMOVE RelatedItems[1], RelatedItems[2] removes two distinct original elements. Not confirmed against the live service.`},
		{name: "REMOVE past list end", expr: "REMOVE l[9]", change: func(it item) {}, doc: `REMOVE of a list index that does not exist changes nothing.`},
		{name: "ADD number", expr: "ADD n :v", vals: item{":v": n("-3")}, change: func(it item) { it["n"] = n("7") },
			doc: `ADD: If the attribute is a number and the value you are adding is also a number, the value is mathematically added to the existing attribute.`},
		{name: "ADD number creates", expr: "ADD cnt :v", vals: item{":v": n("3")}, change: func(it item) { it["cnt"] = n("3") },
			doc: `ADD: If the attribute does not already exist, ADD creates it with the value (0 + value).`},
		{name: "ADD string set", expr: "ADD ss :v", vals: item{":v": ss("blue", "red")}, change: func(it item) { it["ss"] = ss("red", "green", "blue") },
			doc: `ADD: If the existing data type is a set and the value is also a set, then the value is appended to the existing set.`},
		{name: "ADD number set", expr: "ADD ns :v", vals: item{":v": ns("4")}, change: func(it item) { it["ns"] = ns("1", "2", "3", "4") }, doc: `ADD to a number set.`},
		{name: "ADD binary set", expr: "ADD bs :v", vals: item{":v": bs([]byte{3})}, change: func(it item) { it["bs"] = bs([]byte{1}, []byte{2}, []byte{3}) }, doc: `ADD to a binary set.`},
		{name: "ADD set creates", expr: "ADD newset :v", vals: item{":v": ss("x")}, change: func(it item) { it["newset"] = ss("x") }, doc: `ADD creates a missing set attribute.`},
		{name: "DELETE from set", expr: "DELETE ss :v", vals: item{":v": ss("red", "nothere")}, change: func(it item) { it["ss"] = ss("green") },
			doc: `DELETE: Removes one or more elements from a set.`},
		{name: "DELETE last elements removes attribute", expr: "DELETE ns :v", vals: item{":v": ns("1", "2", "3")}, change: func(it item) { delete(it, "ns") },
			doc: `DELETE: a set cannot be empty, so removing every element removes the attribute.`},
		{name: "DELETE from binary set", expr: "DELETE bs :v", vals: item{":v": bs([]byte{1})}, change: func(it item) { it["bs"] = bs([]byte{2}) }, doc: `DELETE from a binary set.`},
		{name: "all four clauses", expr: "SET a = :a REMOVE s ADD n :one DELETE ss :red", vals: item{":a": s("A"), ":one": n("1"), ":red": ss("red")}, change: func(it item) {
			it["a"] = s("A")
			delete(it, "s")
			it["n"] = n("11")
			it["ss"] = ss("green")
		}, doc: `An update expression can contain SET, REMOVE, ADD and DELETE clauses, in any order, each once.`},
		{name: "clauses in any order and lower case", expr: "remove s set a = :a", vals: item{":a": s("A")}, change: func(it item) {
			it["a"] = s("A")
			delete(it, "s")
		}, doc: `Keywords are case-insensitive and the clauses can appear in any order.`},
	}
	each(t, func(t *testing.T, tg *target) {
		table := hashTable(t, tg)
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				doc(t, pageUpdateExpr, c.doc)
				put(t, tg, table, richItem())
				var names map[string]string
				if len(c.names) > 0 {
					names = c.names
				}
				var vals item
				if len(c.vals) > 0 {
					vals = c.vals
				}
				out, err := tg.client.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{
					TableName: aws.String(table), Key: item{"pk": s("rich")},
					UpdateExpression: aws.String(c.expr), ExpressionAttributeNames: names, ExpressionAttributeValues: vals,
					ReturnValues: types.ReturnValueAllNew,
				})
				noErr(t, err, "UpdateItem "+c.expr)
				want := richItem()
				c.change(want)
				wantItem(t, out.Attributes, want)
				wantItem(t, get(t, tg, table, item{"pk": s("rich")}), want)
			})
		}
	})
}

func TestUpdateExpressionRuntimeErrors(t *testing.T) {
	cases := []struct {
		name string
		expr string
		vals item
		msg  string
		doc  string
	}{
		{"plus on a string", "SET x = s + :one", item{":one": n("1")}, "An operand in the update expression has an incorrect data type",
			`SET path = operand + operand: both operands must be numbers.`},
		{"plus on a missing attribute", "SET x = nope + :one", item{":one": n("1")}, "The provided expression refers to an attribute that does not exist in the item",
			`SET ... + ...: the attribute must exist (use if_not_exists for a default).`},
		{"ADD number to a string", "ADD s :one", item{":one": n("1")}, "An operand in the update expression has an incorrect data type",
			`ADD: the existing attribute must be a number (or a set of the value's type).`},
		{"ADD set of another type", "ADD ss :v", item{":v": ns("1")}, "An operand in the update expression has an incorrect data type",
			`ADD: both sets must have the same primitive data type.`},
		{"list_append to a string", "SET x = list_append(s, :l)", item{":l": l(s("a"))}, "An operand in the update expression has an incorrect data type",
			`list_append(list1, list2): both operands are lists.`},
		{"path through a missing map", "SET nope.deeper = :v", item{":v": s("x")}, "The document path provided in the update expression is invalid for update",
			`SET on a nested path needs the parent map to exist.`},
		{"index into a string", "SET s[0] = :v", item{":v": s("x")}, "The document path provided in the update expression is invalid for update",
			`A [n] dereference applies to lists only.`},
	}
	each(t, func(t *testing.T, tg *target) {
		table := hashTable(t, tg)
		put(t, tg, table, richItem())
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				doc(t, pageUpdateExpr, c.doc)
				_, err := tg.client.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{
					TableName: aws.String(table), Key: item{"pk": s("rich")},
					UpdateExpression: aws.String(c.expr), ExpressionAttributeValues: c.vals,
				})
				wantValidation(t, err, c.msg)
			})
		}
		if got := get(t, tg, table, item{"pk": s("rich")}); !equalItem(got, richItem()) {
			t.Errorf("failed updates changed the item: %s", show(got))
		}
	})
}

func TestProjectionExpressions(t *testing.T) {
	each(t, func(t *testing.T, tg *target) {
		table := hashTable(t, tg)
		put(t, tg, table, richItem())
		cases := []struct {
			name  string
			expr  string
			names map[string]string
			want  item
			err   string
			doc   string
		}{
			{name: "top level", expr: "s, n, nope", want: item{"s": s("hello world"), "n": n("10")},
				doc: `A projection expression is a string that identifies the attributes that you want; attributes that do not exist are not returned.`},
			{name: "nested", expr: "m.a.b[2].c, l[1], l[3][0]", want: item{
				"m": m(item{"a": m(item{"b": l(m(item{"c": s("found")}))})}),
				"l": l(n("2"), l(s("x"))),
			}, doc: `To retrieve nested attributes, use document paths such as a.b[2].c; list elements are returned in a list, in index order.`},
			{name: "names", expr: "#st, #d", names: map[string]string{"#st": "status", "#d": "dash-name"}, want: item{"status": s("ACTIVE"), "dash-name": s("d")},
				doc: `Projection expressions use expression attribute names for reserved words and special characters.`},
			{name: "overlap", expr: "m, m.k", err: "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [m], path two: [m, k]",
				doc: `A projection expression may not name a path and one of its children.`},
			{name: "reserved", expr: "status", err: "Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved keyword: status",
				doc: `Reserved words in projection expressions need expression attribute names.`},
			{name: "unused name", expr: "s", names: map[string]string{"#x": "x"}, err: "Value provided in ExpressionAttributeNames unused in expressions: keys: {#x}",
				doc: `Every ExpressionAttributeNames key must be used.`},
			{name: "syntax", expr: "s,, n", err: "Invalid ProjectionExpression: Syntax error; token: ",
				doc: `A projection expression is a comma-separated list of document paths.`},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				doc(t, pageProjection, c.doc)
				var names map[string]string
				if len(c.names) > 0 {
					names = c.names
				}
				out, err := tg.client.GetItem(ctx(t), &dynamodb.GetItemInput{
					TableName: aws.String(table), Key: item{"pk": s("rich")},
					ProjectionExpression: aws.String(c.expr), ExpressionAttributeNames: names,
				})
				if c.err != "" {
					wantValidation(t, err, c.err)
					return
				}
				noErr(t, err, "GetItem "+c.expr)
				wantItem(t, out.Item, c.want)
			})
		}
	})
}
