package expr

import (
	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
	"strings"
	"testing"
)

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name string
		in   Input
		vals string // ExpressionAttributeValues as wire JSON
		want string
	}{
		{"empty names", Input{Names: Names{}, Condition: ptr("a = :v")}, `{":v":{"S":"x"}}`,
			"ExpressionAttributeNames must not be empty"},
		{"empty values", Input{Values: Values{}, Condition: ptr("a = b")}, "",
			"ExpressionAttributeValues must not be empty"},
		{"names checked before values", Input{Names: Names{}, Values: Values{}, Condition: ptr("")}, "",
			"ExpressionAttributeNames must not be empty"},
		{"bad name key", Input{Names: Names{"a": "a"}, Condition: ptr("a = b")}, "",
			`ExpressionAttributeNames contains invalid key: Syntax error; key: "a"`},
		{"empty attribute name", Input{Names: Names{"#DE": ""}, Update: ptr("SET #DE = :v")}, `{":v":{"S":"x"}}`,
			"ExpressionAttributeNames contains invalid value: Empty attribute name for key #DE"},
		{"bad value key", Input{Condition: ptr("a = :b")}, `{":b":{"S":"a"},"b":{"S":"a"}}`,
			`ExpressionAttributeValues contains invalid key: Syntax error; key: "b"`},
		{"names without expressions", Input{Names: Names{"#a": "a"}}, "",
			"ExpressionAttributeNames can only be specified when using expressions"},
		{"values without expressions", Input{}, `{":a":{"S":"a"}}`,
			"ExpressionAttributeValues can only be specified when using expressions"},
		{"empty condition", Input{Condition: ptr("")}, "",
			"Invalid ConditionExpression: The expression can not be empty;"},
		{"update checked before condition", Input{Update: ptr(""), Condition: ptr("a = a")}, "",
			"Invalid UpdateExpression: The expression can not be empty;"},
		{"empty update alone", Input{Update: ptr("")}, "",
			"Invalid UpdateExpression: The expression can not be empty;"},
		{"filter syntax", Input{Filter: ptr("a = ")}, "",
			`Invalid FilterExpression: Syntax error; token: "<EOF>", near: "="`},
		{"projection syntax", Input{Projection: ptr("a,,b")}, "",
			`Invalid ProjectionExpression: Syntax error; token: ",", near: ",,b"`},
		{"key condition syntax", Input{KeyCondition: ptr("PK = ")}, "",
			`Invalid KeyConditionExpression: Syntax error; token: "<EOF>", near: "="`},
		{"reserved word", Input{Condition: ptr("status = :s")}, `{":s":{"S":"x"}}`,
			"Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: status"},
		{"undefined value", Input{Condition: ptr("a = :x")}, "",
			"Invalid ConditionExpression: An expression attribute value used in expression is not defined; attribute value: :x"},
		{"undefined value in filter", Input{Filter: ptr("a = :x")}, `{":y":{"S":"x"}}`,
			"Invalid FilterExpression: An expression attribute value used in expression is not defined; attribute value: :x"},
		{"undefined name", Input{Update: ptr("SET #x = :v")}, `{":v":{"S":"x"}}`,
			"Invalid UpdateExpression: An expression attribute name used in the document path is not defined; attribute name: #x"},
		{"undefined name in projection", Input{Projection: ptr("a.#b")}, "",
			"Invalid ProjectionExpression: An expression attribute name used in the document path is not defined; attribute name: #b"},
		{"unused value", Input{Condition: ptr("a = :v")}, `{":v":{"S":"x"},":x":{"S":"y"}}`,
			"Value provided in ExpressionAttributeValues unused in expressions: keys: {:x}"},
		{"unused values listed", Input{Update: ptr("REMOVE a"), Condition: ptr("a = :b")}, `{":a":{"S":"a"},":b":{"S":"a"},":c":{"S":"a"}}`,
			"Value provided in ExpressionAttributeValues unused in expressions: keys: {:a, :c}"},
		{"unused name", Input{Names: Names{"#x": "x", "#a": "a"}, Condition: ptr("#a = :v")}, `{":v":{"S":"x"}}`,
			"Value provided in ExpressionAttributeNames unused in expressions: keys: {#x}"},
		{"unused names before values", Input{Names: Names{"#a": "a", "#b": "b"}, Update: ptr("remove a set b = list_append(b, if_not_exists(a, :a))"), Condition: ptr("a = :b")}, `{":a":{"L":[]},":b":{"S":"a"},":c":{"S":"c"}}`,
			"Value provided in ExpressionAttributeNames unused in expressions: keys: {#a, #b}"},
		{"distinct paths", Input{Names: Names{"#a": "a"}, Condition: ptr("#a = a")}, "",
			"Invalid ConditionExpression: The first operand must be distinct from the remaining operands for this operator or function; operator: =, first operand: [a]"},
		{"distinct function operands", Input{Condition: ptr("contains(pk, pk)")}, "",
			"Invalid ConditionExpression: The first operand must be distinct from the remaining operands for this operator or function; operator: contains, first operand: [pk]"},
		{"begins_with number", Input{Condition: ptr("begins_with(a, :n)")}, `{":n":{"N":"1"}}`,
			"Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N"},
		{"size of a number literal", Input{Condition: ptr("size(:v) = :v")}, `{":v":{"N":"1"}}`,
			"Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: size, operand type: N"},
		{"size of size", Input{Condition: ptr("a < size(size(b))")}, "",
			"Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: size, operand type: N"},
		{"begins_with of size", Input{Condition: ptr("begins_with(size(b), :s)")}, `{":s":{"S":"x"}}`,
			"Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N"},
		{"size of a bool literal", Input{Condition: ptr("size(:v) > :n")}, `{":v":{"BOOL":true},":n":{"N":"1"}}`,
			"Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: size, operand type: BOOL"},
		{"attribute_type number", Input{Condition: ptr("attribute_type(a, :n)")}, `{":n":{"N":"1"}}`,
			"Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: attribute_type, operand type: N"},
		{"attribute_type path", Input{Condition: ptr("attribute_type(a, b)")}, "",
			"Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: attribute_type, operand type: {NS,SS,L,BS,N,M,B,BOOL,NULL,S}"},
		{"attribute_type name", Input{Condition: ptr("attribute_type(a, :t)")}, `{":t":{"S":"STRING"}}`,
			"Invalid ConditionExpression: Invalid attribute type name found; type: STRING, valid types: {B,NULL,SS,BOOL,L,BS,N,NS,S,M}"},
		{"between types", Input{Condition: ptr("a BETWEEN :lo AND :hi")}, `{":lo":{"N":"1"},":hi":{"S":"a"}}`,
			"Invalid ConditionExpression: The BETWEEN operator requires same data type for lower and upper bounds; lower bound operand: AttributeValue: {N:1}, upper bound operand: AttributeValue: {S:a}"},
		{"between order", Input{Condition: ptr("a BETWEEN :lo AND :hi")}, `{":lo":{"N":"10"},":hi":{"N":"9"}}`,
			"Invalid ConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {N:10}, upper bound operand: AttributeValue: {N:9}"},
		{"order comparison with a list", Input{Condition: ptr("a < :l")}, `{":l":{"L":[{"N":"1"}]}}`,
			"Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: <, operand type: L"},
		{"order comparison with a map on the left", Input{Condition: ptr(":m >= a")}, `{":m":{"M":{}}}`,
			"Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: >=, operand type: M"},
		{"order comparison with a bool", Input{Filter: ptr("a > :t")}, `{":t":{"BOOL":true}}`,
			"Invalid FilterExpression: Incorrect operand type for operator or function; operator or function: >, operand type: BOOL"},
		{"between with lists", Input{Condition: ptr("a BETWEEN :l AND :l2")}, `{":l":{"L":[]},":l2":{"L":[]}}`,
			"Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: BETWEEN, operand type: L"},
		{"overlap", Input{Update: ptr("SET a = :v REMOVE a.b")}, `{":v":{"S":"x"}}`,
			"Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a, b]"},
		{"same path twice", Input{Update: ptr("SET a = :v, a = :v")}, `{":v":{"S":"x"}}`,
			"Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]"},
		{"overlap found before conflict", Input{Update: ptr("set d[1] = a, d.b = a, c[1].a = a, #c = a"), Names: Names{"#c": "c"}}, "",
			"Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [c, [1], a], path two: [c]"},
		{"overlap through names", Input{Update: ptr("set #c[3].#d = a, #c[3] = a"), Names: Names{"#c": "c", "#d": "[3]"}}, "",
			"Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [c, [3], [3]], path two: [c, [3]]"},
		{"conflict", Input{Update: ptr("remove a.#c set a[1] = #d"), Names: Names{"#c": "c", "#d": "[3]"}}, "",
			"Invalid UpdateExpression: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [a, [1]], path two: [a, c]"},
		{"projection overlap", Input{Projection: ptr("a, a.b")}, "",
			"Invalid ProjectionExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a, b]"},
		{"projection conflict", Input{Projection: ptr("a.b, a[1]")}, "",
			"Invalid ProjectionExpression: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [a, b], path two: [a, [1]]"},
		{"minus on string", Input{Update: ptr("SET a = a - :s")}, `{":s":{"S":"x"}}`,
			"Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: -, operand type: S"},
		{"plus on map", Input{Update: ptr("SET a = :m + a")}, `{":m":{"M":{}}}`,
			"Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: +, operand type: M"},
		{"list_append on set", Input{Update: ptr("SET a = list_append(:s, a)")}, `{":s":{"SS":["x"]}}`,
			"Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: list_append, operand type: SS"},
		{"ADD string", Input{Update: ptr("ADD a.b :a")}, `{":a":{"S":"a"}}`,
			"Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: STRING, typeSet: ALLOWED_FOR_ADD_OPERAND"},
		{"ADD list", Input{Update: ptr("ADD a :a")}, `{":a":{"L":[{"N":"1"}]}}`,
			"Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: LIST, typeSet: ALLOWED_FOR_ADD_OPERAND"},
		{"ADD bool", Input{Update: ptr("ADD a :a")}, `{":a":{"BOOL":true}}`,
			"Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: BOOLEAN, typeSet: ALLOWED_FOR_ADD_OPERAND"},
		{"DELETE number", Input{Update: ptr("DELETE a :a")}, `{":a":{"N":"1"}}`,
			"Invalid UpdateExpression: Incorrect operand type for operator or function; operator: DELETE, operand type: NUMBER, typeSet: ALLOWED_FOR_DELETE_OPERAND"},
		{"DELETE map", Input{Update: ptr("DELETE a :a")}, `{":a":{"M":{}}}`,
			"Invalid UpdateExpression: Incorrect operand type for operator or function; operator: DELETE, operand type: MAP, typeSet: ALLOWED_FOR_DELETE_OPERAND"},
		{"DELETE null", Input{Update: ptr("DELETE a :a")}, `{":a":{"NULL":true}}`,
			"Invalid UpdateExpression: Incorrect operand type for operator or function; operator: DELETE, operand type: NULL, typeSet: ALLOWED_FOR_DELETE_OPERAND"},
		{"DELETE binary", Input{Update: ptr("DELETE a :a")}, `{":a":{"B":"YQ=="}}`,
			"Invalid UpdateExpression: Incorrect operand type for operator or function; operator: DELETE, operand type: BINARY, typeSet: ALLOWED_FOR_DELETE_OPERAND"},
		{"key condition OR", Input{KeyCondition: ptr("PK = :a OR PK = :b")}, `{":a":{"S":"a"},":b":{"S":"b"}}`,
			"Invalid operator used in KeyConditionExpression: OR"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.in
			if tt.vals != "" {
				in.Values = values(t, tt.vals)
			}
			_, err := Compile(in)
			if err == nil {
				t.Fatalf("Compile succeeded, want %q", tt.want)
			}
			if got := validationMessage(t, err); got != tt.want {
				t.Errorf("error\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestCompileValid(t *testing.T) {
	c, err := Compile(Input{
		KeyCondition: ptr("#pk = :pk AND SK BETWEEN :a AND :b"),
		Filter:       ptr("attribute_type(#d, :t) AND size(#d) > :n"),
		Projection:   ptr("#d, SK"),
		Names:        Names{"#pk": "PK", "#d": "data"},
		Values:       values(t, `{":pk":{"S":"p"},":a":{"S":"a"},":b":{"S":"b"},":t":{"S":"M"},":n":{"N":"0"}}`),
	})
	if err != nil {
		t.Fatal(err)
	}
	if c.KeyCondition == nil || c.Filter == nil || c.Projection == nil || c.Condition != nil || c.Update != nil {
		t.Fatalf("unexpected compiled set: %+v", c)
	}
	if ok, err := c.Check(nil); !ok || err != nil {
		t.Errorf("Check without a ConditionExpression = %v, %v; want true", ok, err)
	}
	it := item(t, `{"PK":{"S":"p"},"SK":{"S":"a1"},"data":{"M":{"x":{"N":"1"}}},"other":{"S":"o"}}`)
	if ok, err := c.Match(it); !ok || err != nil {
		t.Errorf("Match = %v, %v; want true", ok, err)
	}
	sameItem(t, c.Project(it), `{"SK":{"S":"a1"},"data":{"M":{"x":{"N":"1"}}}}`)
	// Evaluation errors carry the prefix of the parameter evaluated.
	bad := &Compiled{Filter: c.Filter, Condition: c.Filter}
	if _, err := bad.Match(it); err == nil || !strings.HasPrefix(validationMessage(t, err), "Invalid FilterExpression: ") {
		t.Errorf("Match with undefined placeholders: %v", err)
	}
	if _, err := bad.Check(it); err == nil || !strings.HasPrefix(validationMessage(t, err), "Invalid ConditionExpression: ") {
		t.Errorf("Check with undefined placeholders: %v", err)
	}
	if got, err := c.Apply(it); err != nil || !sameMap(got, it) {
		t.Errorf("Apply without an UpdateExpression changed the item: %v", err)
	}
}

func sameMap(a, b attr.Item) bool { return attr.EqualItems(a, b) }

func TestCheckFilterKeys(t *testing.T) {
	c, err := Compile(Input{
		Filter: ptr("begins_with(#sk, :p) OR attribute_exists(PK.x) OR size(tags) > :n"),
		Names:  Names{"#sk": "SK"},
		Values: values(t, `{":p":{"S":"a"},":n":{"N":"1"}}`),
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := list(c.Filter.Attributes(c.Names)), "[SK PK tags]"; got != want {
		t.Errorf("Attributes = %s, want %s", got, want)
	}
	// The partition key is reported first, as DynamoDB does.
	err = c.CheckFilterKeys("PK", "SK")
	if got, want := validationMessage(t, err), "Filter Expression can only contain non-primary key attributes: Primary key attribute: PK"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	err = c.CheckFilterKeys("GSI1PK", "SK")
	if got, want := validationMessage(t, err), "Filter Expression can only contain non-primary key attributes: Primary key attribute: SK"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if err := c.CheckFilterKeys("GSI1PK", "GSI1SK"); err != nil {
		t.Errorf("filter without index keys: %v", err)
	}
	if err := (&Compiled{}).CheckFilterKeys("PK"); err != nil {
		t.Errorf("no filter: %v", err)
	}
}
