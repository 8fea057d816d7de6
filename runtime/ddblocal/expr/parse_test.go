package expr

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// roundTrip checks that a parsed tree prints to text that parses back to it.
func roundTrip[T interface{ String() string }](t *testing.T, parse func(string) (T, error), src string, tree T) {
	t.Helper()
	again, err := parse(tree.String())
	if err != nil {
		t.Fatalf("%q printed as %q, which does not parse: %v", src, tree.String(), err)
	}
	if !reflect.DeepEqual(again, tree) {
		t.Fatalf("%q printed as %q, which parses to a different tree %q", src, tree.String(), again.String())
	}
}

func TestParseCondition(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a = :v", "a = :v"},
		{"a<>:v", "a <> :v"},
		{"a < :v", "a < :v"},
		{"a <= :v", "a <= :v"},
		{"a > :v", "a > :v"},
		{"a >= :v", "a >= :v"},
		{":v = a", ":v = a"},
		{"a.b[2].c = :v", "a.b[2].c = :v"},
		{"#n.#m[0][1] = :v", "#n.#m[0][1] = :v"},
		{"a BETWEEN :lo AND :hi", "a BETWEEN :lo AND :hi"},
		{"a between :lo and :hi", "a BETWEEN :lo AND :hi"},
		{"a IN (:a)", "a IN (:a)"},
		{"a in (:a,:b , :c)", "a IN (:a, :b, :c)"},
		{"a = :v AND b = :w OR c = :x", "a = :v AND b = :w OR c = :x"},
		{"a = :v OR b = :w AND c = :x", "a = :v OR b = :w AND c = :x"},
		{"(a = :v OR b = :w) AND c = :x", "(a = :v OR b = :w) AND c = :x"},
		{"a = :v AND (b = :w AND c = :x)", "a = :v AND (b = :w AND c = :x)"},
		{"a<b " + strings.Repeat("or (a<b ", 149) + strings.Repeat(")", 149), "a < b" + strings.Repeat(" OR (a < b", 148) + " OR a < b" + strings.Repeat(")", 148)},
		{"a < " + strings.Repeat("size(", 5) + "b" + strings.Repeat(")", 5), "a < size(size(size(size(size(b)))))"},
		{"a = :v OR (b = :w OR c = :x)", "a = :v OR (b = :w OR c = :x)"},
		{"NOT a = :v", "NOT a = :v"},
		{"not a = :v and b = :w", "NOT a = :v AND b = :w"},
		{"NOT (a = :v AND b = :w)", "NOT (a = :v AND b = :w)"},
		{"NOT NOT attribute_exists(a)", "NOT NOT attribute_exists(a)"},
		{"(a) = (:v)", "a = :v"},
		{"(size(a)) > :v", "size(a) > :v"},
		{"attribute_exists(a)", "attribute_exists(a)"},
		{"attribute_not_exists( #pk )", "attribute_not_exists(#pk)"},
		{"attribute_type(a, :t)", "attribute_type(a, :t)"},
		{"begins_with(a, :p)", "begins_with(a, :p)"},
		{"contains(a.b, :x)", "contains(a.b, :x)"},
		{"size(a) BETWEEN :lo AND :hi", "size(a) BETWEEN :lo AND :hi"},
		{"size(a) IN (:a, :b)", "size(a) IN (:a, :b)"},
		{"a = b", "a = b"},
		{"\ta\n=\r:v ", "a = :v"},
		{"a_1.B2 = :v_1", "a_1.B2 = :v_1"},
		{"(attribute_exists(a))", "attribute_exists(a)"},
		{"((a = :v) AND b = :w)", "a = :v AND b = :w"},
		{"a IN (" + strings.TrimSuffix(strings.Repeat(":v, ", 99), ", ") + ")", "a IN (" + strings.TrimSuffix(strings.Repeat(":v, ", 99), ", ") + ")"},
		{"NOT NOT NOT NOT a < b", "NOT NOT NOT NOT a < b"},
		{"a < b aNd b < c", "a < b AND b < c"},
		{"begins_with(:str, a)", "begins_with(:str, a)"},
		{"attribute_type(:v, :t)", "attribute_type(:v, :t)"},
		{"(a < b OR b < a) AND (b < c AND (a < b OR b < c))", "(a < b OR b < a) AND (b < c AND (a < b OR b < c))"},
	}
	for _, tt := range tests {
		t.Run(tt.in[:min(len(tt.in), 60)], func(t *testing.T) {
			c, err := ParseCondition(tt.in)
			if err != nil {
				t.Fatalf("ParseCondition(%q): %v", tt.in, err)
			}
			if got := c.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
			roundTrip(t, ParseCondition, tt.in, c)
		})
	}
}

func TestParsePrecedence(t *testing.T) {
	c, err := ParseCondition("NOT a = :a AND b = :b OR c = :c AND d = :d")
	if err != nil {
		t.Fatal(err)
	}
	or, ok := c.Root.(*Or)
	if !ok {
		t.Fatalf("root is %T, want *Or", c.Root)
	}
	left, ok := or.Left.(*And)
	if !ok {
		t.Fatalf("OR's left is %T, want *And", or.Left)
	}
	if _, ok := left.Left.(*Not); !ok {
		t.Fatalf("AND's left is %T, want *Not", left.Left)
	}
	if _, ok := or.Right.(*And); !ok {
		t.Fatalf("OR's right is %T, want *And", or.Right)
	}
}

func TestParseConditionErrors(t *testing.T) {
	// IN allows 100 operands counting the left one: a list of 99.
	in100 := "a IN (" + strings.TrimSuffix(strings.Repeat(":v, ", 100), ", ") + ")"
	deep := "a" + strings.Repeat(".b", 32) + " = :v"
	// 151 comparisons joined by 150 ORs: 301 operators.
	many := strings.TrimSuffix(strings.Repeat("a = :v OR ", 151), " OR ")
	// DynamoDB stops counting at 301, whatever the total.
	manyNested := "a<b " + strings.Repeat("or (a<b ", 454) + strings.Repeat(")", 454)
	nots := strings.Repeat("not ", 1000) + "a<b"
	tests := []struct{ in, want string }{
		{"", "The expression can not be empty;"},
		{"   ", "The expression can not be empty;"},
		{"a", `Syntax error; token: "<EOF>", near: "a"`},
		{"a =", `Syntax error; token: "<EOF>", near: "="`},
		{"a = :v b", `Syntax error; token: "b", near: ":v b"`},
		{"_123 = :v", `Syntax error; token: "_", near: "_123"`},
		{"a = :v AND", `Syntax error; token: "<EOF>", near: "AND"`},
		{"a == :v", `Syntax error; token: "=", near: "== :v"`},
		{"a = 1", `Syntax error; token: "1", near: "= 1"`},
		{"a = \"x\"", `Syntax error; token: "\"", near: "= \"x"`},
		{"a[x] = :v", `Syntax error; token: "x", near: "[x]"`},
		{"a. = :v", `Syntax error; token: "=", near: ". = :v"`},
		{"# = :v", `Syntax error; token: "#", near: "# ="`},
		{"a = :", `Syntax error; token: ":", near: "= :"`},
		{"a IN ()", `Syntax error; token: ")", near: "()"`},
		{"a BETWEEN :a OR :b", `Syntax error; token: "OR", near: ":a OR :b"`},
		{"AND = :v", `Syntax error; token: "AND", near: "AND ="`},
		{"(a = :v", `Syntax error; token: "<EOF>", near: ":v"`},
		{"a = :v)", `Syntax error; token: ")", near: ":v)"`},
		{"a = é", `Syntax error; token: "é", near: "= é"`},
		{"((a = :v))", "The expression has redundant parentheses;"},
		{"((a)) = :v", "The expression has redundant parentheses;"},
		{"NOT ((attribute_exists(a)))", "The expression has redundant parentheses;"},
		{"status = :v", "Attribute name is a reserved keyword; reserved keyword: status"},
		{"a.Name = :v", "Attribute name is a reserved keyword; reserved keyword: Name"},
		{"foo(a)", "Invalid function name; function: foo"},
		{"Attribute_Exists(a)", "Invalid function name; function: Attribute_Exists"},
		{"if_not_exists(a, :v) = :v", "The function is not allowed in a condition expression; function: if_not_exists"},
		{"list_append(a, :v) = :v", "The function is not allowed in a condition expression; function: list_append"},
		{"attribute_exists(a) = :v", "The function is not allowed to be used this way in an expression; function: attribute_exists"},
		{"size(a)", "The function is not allowed to be used this way in an expression; function: size"},
		{"contains(size(a), begins_with(a, :v))", "The function is not allowed to be used this way in an expression; function: begins_with"},
		{"attribute_exists(a, b)", "Incorrect number of operands for operator or function; operator or function: attribute_exists, number of operands: 2"},
		{"begins_with(a)", "Incorrect number of operands for operator or function; operator or function: begins_with, number of operands: 1"},
		{"size() > :v", "Incorrect number of operands for operator or function; operator or function: size, number of operands: 0"},
		{"attribute_exists(:v)", "Operator or function requires a document path; operator or function: attribute_exists"},
		{"attribute_not_exists(:v)", "Operator or function requires a document path; operator or function: attribute_not_exists"},
		{"contains(list_append(a, b), :v)", "The function is not allowed in a condition expression; function: list_append"},
		{in100, "The IN operator is provided with too many operands; number of operands: 101"},
		{many, "The expression contains too many operators; operator count: 301"},
		{manyNested, "The expression contains too many operators; operator count: 301"},
		{nots, "The expression contains too many operators; operator count: 301"},
		{"a < " + strings.Repeat("f(", 1355) + "b" + strings.Repeat(")", 1355), "Invalid function name; function: f"},
		{"(((", `Syntax error; token: "<EOF>", near: "("`},
		{deep, "The document path has too many nesting levels; nesting levels: 33"},
		{"a[99999999999] = :v", "List index is not within the allowable range; index: 99999999999"},
		{"a = :v AND " + strings.Repeat("b", 4096) + " = :v", "Expression size has exceeded the maximum allowed size; expression size: 4112"},
	}
	for _, tt := range tests {
		t.Run(tt.in[:min(len(tt.in), 60)], func(t *testing.T) {
			_, err := ParseCondition(tt.in)
			if err == nil {
				t.Fatalf("ParseCondition(%q) succeeded, want error %q", tt.in, tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("error\n got %q\nwant %q", err.Error(), tt.want)
			}
			if v := err.(*Error).Validation("FilterExpression").Message; v != "Invalid FilterExpression: "+tt.want {
				t.Errorf("Validation message = %q", v)
			}
		})
	}
}

func TestParseUpdate(t *testing.T) {
	tests := []struct{ in, want string }{
		{"SET a = :v", "SET a = :v"},
		{"set a=:v,b=c", "SET a = :v, b = c"},
		{"SET a = b + :n", "SET a = b + :n"},
		{"SET a = :n - b", "SET a = :n - b"},
		{"SET a = (b + :n)", "SET a = b + :n"},
		{"SET a = (b + c) - :n", "SET a = (b + c) - :n"},
		{"SET a = if_not_exists(a, :zero) + :one", "SET a = if_not_exists(a, :zero) + :one"},
		{"SET l = list_append(if_not_exists(l, :empty), :new)", "SET l = list_append(if_not_exists(l, :empty), :new)"},
		{"SET a.b[3].#c = :v", "SET a.b[3].#c = :v"},
		{"REMOVE a, b.c, l[2]", "REMOVE a, b.c, l[2]"},
		{"ADD n :one, s :set", "ADD n :one, s :set"},
		{"DELETE s :set", "DELETE s :set"},
		{"delete s :x add n :y remove r set a = :v", "SET a = :v REMOVE r ADD n :y DELETE s :x"},
		{"REMOVE remove2", "REMOVE remove2"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			u, err := ParseUpdate(tt.in)
			if err != nil {
				t.Fatalf("ParseUpdate(%q): %v", tt.in, err)
			}
			if got := u.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
			roundTrip(t, ParseUpdate, tt.in, u)
		})
	}
}

func TestParseUpdateErrors(t *testing.T) {
	var actions []string
	for i := range 301 {
		actions = append(actions, fmt.Sprintf("b%d=:a+:b", i))
	}
	tooMany := "SET " + strings.Join(actions, ", ")
	tests := []struct{ in, want string }{
		{tooMany, "The expression contains too many operators; operator count: 301"},
		{"", "The expression can not be empty;"},
		{"whatever", `Syntax error; token: "whatever", near: "whatever"`},
		{"set a", `Syntax error; token: "<EOF>", near: "a"`},
		{"add a", `Syntax error; token: "<EOF>", near: "a"`},
		{"delete a", `Syntax error; token: "<EOF>", near: "a"`},
		{"set a=set", `Syntax error; token: "set", near: "=set"`},
		{"remove a = b", `Syntax error; token: "=", near: "a = b"`},
		{"add a = b", `Syntax error; token: "=", near: "a = b"`},
		{"delete a b", `Syntax error; token: "b", near: "a b"`},
		{"remove a b", `Syntax error; token: "b", near: "a b"`},
		{"set a b", `Syntax error; token: "b", near: "a b"`},
		{"set :a = b", `Syntax error; token: ":a", near: "set :a ="`},
		{"remove :a", `Syntax error; token: ":a", near: "remove :a"`},
		{"set a = b / c", `Syntax error; token: "/", near: "b / c"`},
		{"set a[1] = 1", `Syntax error; token: "1", near: "= 1"`},
		{"set a = b + c + d", `Syntax error; token: "+", near: "c + d"`},
		{"set (a = (b + c))", `Syntax error; token: "(", near: "set (a"`},
		{"set a = :v,", `Syntax error; token: "<EOF>", near: ","`},
		{"SET a = :v SET b = :w", `The "SET" section can only be used once in an update expression;`},
		{"remove a set b = c remove d", `The "REMOVE" section can only be used once in an update expression;`},
		{"add a :v add b :w", `The "ADD" section can only be used once in an update expression;`},
		{"delete a :v delete b :w", `The "DELETE" section can only be used once in an update expression;`},
		{"set abOrt = :v", "Attribute name is a reserved keyword; reserved keyword: abOrt"},
		{"remove Absolute", "Attribute name is a reserved keyword; reserved keyword: Absolute"},
		{"set a = if_not_exist(a, :v)", "Invalid function name; function: if_not_exist"},
		{"set a = size(b)", "The function is not allowed in an update expression; function: size"},
		{"set a = attribute_exists(b)", "The function is not allowed in an update expression; function: attribute_exists"},
		{"set a = if_not_exists(c)", "Incorrect number of operands for operator or function; operator or function: if_not_exists, number of operands: 1"},
		{"set a = list_append(c)", "Incorrect number of operands for operator or function; operator or function: list_append, number of operands: 1"},
		{"set a = if_not_exists(:a, c)", "Operator or function requires a document path; operator or function: if_not_exists"},
		{"set a = if_not_exists(if_not_exists(a, b), c)", "Operator or function requires a document path; operator or function: if_not_exists"},
		{"set a = list_append(list_append(:a, :b), :c)", "The function is not allowed to be used this way in an expression; function: list_append"},
		{"set a = if_not_exists(a, list_append(:a, :b))", "The function is not allowed to be used this way in an expression; function: list_append"},
		{"set a = LIST_APPEND(:a, :b)", "Invalid function name; function: LIST_APPEND"},
		{"set a = f(b, c, d)", "Invalid function name; function: f"},
		{"set a = _f(b)", `Syntax error; token: "_", near: "= _f"`},
		{"set c = if_not_exists(c, :a+:b)", `Syntax error; token: "+", near: ":a+:b"`},
		{"set a[:x] = :v", `Syntax error; token: ":x", near: "[:x]"`},
		{"set a[#x] = :v", `Syntax error; token: "#x", near: "[#x]"`},
		{"HELLO b = :v", `Syntax error; token: "HELLO", near: "HELLO b"`},
		{"SET a = :v REMOVE a SET b = :w", `The "SET" section can only be used once in an update expression;`},
	}
	for _, tt := range tests {
		t.Run(tt.in[:min(len(tt.in), 60)], func(t *testing.T) {
			_, err := ParseUpdate(tt.in)
			if err == nil {
				t.Fatalf("ParseUpdate(%q) succeeded, want error %q", tt.in, tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("error\n got %q\nwant %q", err.Error(), tt.want)
			}
		})
	}
}

func TestParseProjection(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a", "a"},
		{"a,b , c", "a, b, c"},
		{"a.b[1].c, #d, l[0][2]", "a.b[1].c, #d, l[0][2]"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			p, err := ParseProjection(tt.in)
			if err != nil {
				t.Fatalf("ParseProjection(%q): %v", tt.in, err)
			}
			if got := p.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
			roundTrip(t, ParseProjection, tt.in, p)
		})
	}
	errs := []struct{ in, want string }{
		{"", "The expression can not be empty;"},
		{"a,", `Syntax error; token: "<EOF>", near: ","`},
		{"a b", `Syntax error; token: "b", near: "a b"`},
		{":v", `Syntax error; token: ":v", near: ":v"`},
		{"size(a)", "Attribute name is a reserved keyword; reserved keyword: size"},
		{"attribute_exists(a)", `Syntax error; token: "(", near: "attribute_exists(a"`},
		{"a, name", "Attribute name is a reserved keyword; reserved keyword: name"},
	}
	for _, tt := range errs {
		t.Run("error/"+tt.in, func(t *testing.T) {
			_, err := ParseProjection(tt.in)
			if err == nil || err.Error() != tt.want {
				t.Errorf("ParseProjection(%q) error = %v, want %q", tt.in, err, tt.want)
			}
		})
	}
}

func TestReservedWords(t *testing.T) {
	if n := len(reserved); n != 573 {
		t.Errorf("%d reserved words, want the 573 of DynamoDB's list", n)
	}
	for _, w := range []string{"abort", "STATUS", "Name", "zone", "ttl", "data", "size", "count", "value", "timestamp", "user"} {
		if !IsReserved(w) {
			t.Errorf("IsReserved(%q) = false", w)
		}
	}
	for _, w := range []string{"PK", "SK", "balance", "remove", "createdAt", "expiresAt", "EntityType", "GSI1PK"} {
		if IsReserved(w) {
			t.Errorf("IsReserved(%q) = true", w)
		}
	}
}
