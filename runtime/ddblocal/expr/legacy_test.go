package expr

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
)

// legacy decodes wire JSON of the legacy parameters, e.g.
// {"Expected":{"a":{"Exists":false}}}.
func legacy(t *testing.T, js string) *Legacy {
	t.Helper()
	var l Legacy
	if err := json.Unmarshal([]byte(js), &l); err != nil {
		t.Fatalf("bad fixture %s: %v", js, err)
	}
	return &l
}

// Each legacy comparison evaluates as the expression it stands for, on
// items that hold the attribute with the same type, another type, or not
// at all (Developer Guide, "Legacy conditional parameters": each operator
// and its ConditionExpression counterpart).
func TestLegacyComparisonsEvaluateAsTheirExpressions(t *testing.T) {
	items := []string{
		`{"a":{"S":"hello"}}`, `{"a":{"S":"abc"}}`, `{"a":{"N":"5"}}`, `{"a":{"N":"50"}}`,
		`{"a":{"SS":["x","y"]}}`, `{"a":{"L":[{"S":"x"},{"N":"1"}]}}`, `{"b":{"S":"other"}}`, ``,
	}
	tests := []struct {
		op, vals, expr, exprVals string
	}{
		{"EQ", `[{"S":"abc"}]`, "a = :v", `{":v":{"S":"abc"}}`},
		{"EQ", `[{"SS":["y","x"]}]`, "a = :v", `{":v":{"SS":["x","y"]}}`},
		{"NE", `[{"N":"5"}]`, "a <> :v", `{":v":{"N":"5"}}`},
		{"LT", `[{"N":"10"}]`, "a < :v", `{":v":{"N":"10"}}`},
		{"LE", `[{"S":"abc"}]`, "a <= :v", `{":v":{"S":"abc"}}`},
		{"GT", `[{"N":"10"}]`, "a > :v", `{":v":{"N":"10"}}`},
		{"GE", `[{"S":"b"}]`, "a >= :v", `{":v":{"S":"b"}}`},
		{"NOT_NULL", `[]`, "attribute_exists(a)", ``},
		{"NULL", `[]`, "attribute_not_exists(a)", ``},
		{"CONTAINS", `[{"S":"x"}]`, "contains(a, :v)", `{":v":{"S":"x"}}`},
		{"CONTAINS", `[{"N":"1"}]`, "contains(a, :v)", `{":v":{"N":"1"}}`},
		{"NOT_CONTAINS", `[{"S":"ell"}]`, "NOT contains(a, :v)", `{":v":{"S":"ell"}}`},
		{"BEGINS_WITH", `[{"S":"he"}]`, "begins_with(a, :v)", `{":v":{"S":"he"}}`},
		{"IN", `[{"N":"5"},{"N":"6"}]`, "a IN (:v, :w)", `{":v":{"N":"5"},":w":{"N":"6"}}`},
		{"BETWEEN", `[{"N":"1"},{"N":"10"}]`, "a BETWEEN :v AND :w", `{":v":{"N":"1"},":w":{"N":"10"}}`},
	}
	for _, tc := range tests {
		t.Run(tc.op+" "+tc.vals, func(t *testing.T) {
			c := &Compiled{}
			l := legacy(t, `{"ScanFilter":{"a":{"ComparisonOperator":"`+tc.op+`","AttributeValueList":`+tc.vals+`}}}`)
			if err := c.AddLegacy(l); err != nil {
				t.Fatal(err)
			}
			want, err := Compile(Input{Filter: &tc.expr, Values: values(t, tc.exprVals)})
			if err != nil {
				t.Fatal(err)
			}
			for _, js := range items {
				got, err1 := c.Match(item(t, js))
				exp, err2 := want.Match(item(t, js))
				if err1 != nil || err2 != nil || got != exp {
					t.Errorf("on %s: legacy %v (%v), expression %q %v (%v)", js, got, err1, tc.expr, exp, err2)
				}
			}
		})
	}
}

// Expected's forms, joined by ConditionalOperator (Developer Guide,
// "Expected (legacy)").
func TestLegacyExpected(t *testing.T) {
	tests := []struct {
		name, params, item string
		want               bool
	}{
		{"Exists false on absent", `{"Expected":{"a":{"Exists":false}}}`, `{"b":{"N":"1"}}`, true},
		{"Exists false on present", `{"Expected":{"a":{"Exists":false}}}`, `{"a":{"N":"1"}}`, false},
		{"Value alone is equality", `{"Expected":{"a":{"Value":{"N":"1"}}}}`, `{"a":{"N":"1.0"}}`, true},
		{"Exists true with Value", `{"Expected":{"a":{"Exists":true,"Value":{"N":"1"}}}}`, `{"a":{"N":"2"}}`, false},
		{"Value with operator", `{"Expected":{"a":{"ComparisonOperator":"GT","Value":{"N":"1"}}}}`, `{"a":{"N":"2"}}`, true},
		{"AND by default", `{"Expected":{"a":{"Value":{"N":"1"}},"b":{"Value":{"N":"2"}}}}`, `{"a":{"N":"1"},"b":{"N":"3"}}`, false},
		{"OR", `{"ConditionalOperator":"OR","Expected":{"a":{"Value":{"N":"1"}},"b":{"Value":{"N":"2"}}}}`, `{"a":{"N":"1"},"b":{"N":"3"}}`, true},
		{"missing item", `{"Expected":{"a":{"ComparisonOperator":"NULL"}}}`, ``, true},
		{"name like a placeholder", `{"Expected":{"#a":{"Value":{"S":"x"}}}}`, `{"#a":{"S":"x"}}`, true},
		{"dotted name is one attribute", `{"Expected":{"a.b":{"Value":{"S":"x"}}}}`, `{"a":{"M":{"b":{"S":"x"}}}}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &Compiled{}
			if err := c.AddLegacy(legacy(t, tc.params)); err != nil {
				t.Fatal(err)
			}
			got, err := c.Check(item(t, tc.item))
			if err != nil || got != tc.want {
				t.Fatalf("Check = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

// Invalid legacy parameters get DynamoDB's messages (as recorded against
// the service by dynalite and the public conformance suite).
func TestLegacyValidation(t *testing.T) {
	tests := []struct{ name, params, want string }{
		{"unknown operator", `{"QueryFilter":{"a":{"ComparisonOperator":"EQUALS","AttributeValueList":[{"S":"x"}]}}}`,
			"1 validation error detected: Value 'EQUALS' at 'queryFilter.a.member.comparisonOperator' failed to satisfy constraint: Member must satisfy enum value set: [IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS]"},
		{"missing operator", `{"ScanFilter":{"a":{"AttributeValueList":[{"S":"x"}]}}}`,
			"1 validation error detected: Value null at 'scanFilter.a.member.comparisonOperator' failed to satisfy constraint: Member must not be null"},
		{"argument count", `{"ScanFilter":{"a":{"ComparisonOperator":"BETWEEN","AttributeValueList":[{"N":"1"}]}}}`,
			"One or more parameter values were invalid: Invalid number of argument(s) for the BETWEEN ComparisonOperator"},
		{"NULL takes none", `{"ScanFilter":{"a":{"ComparisonOperator":"NULL","AttributeValueList":[{"N":"1"}]}}}`,
			"One or more parameter values were invalid: Invalid number of argument(s) for the NULL ComparisonOperator"},
		{"IN takes one or more", `{"ScanFilter":{"a":{"ComparisonOperator":"IN","AttributeValueList":[]}}}`,
			"One or more parameter values were invalid: Invalid number of argument(s) for the IN ComparisonOperator"},
		{"mixed types", `{"ScanFilter":{"a":{"ComparisonOperator":"IN","AttributeValueList":[{"N":"1"},{"S":"1"}]}}}`,
			"One or more parameter values were invalid: AttributeValues inside AttributeValueList must be of same type"},
		{"operator type", `{"ScanFilter":{"a":{"ComparisonOperator":"GT","AttributeValueList":[{"SS":["x"]}]}}}`,
			"One or more parameter values were invalid: ComparisonOperator GT is not valid for SS AttributeValue type"},
		{"BEGINS_WITH number", `{"ScanFilter":{"a":{"ComparisonOperator":"BEGINS_WITH","AttributeValueList":[{"N":"1"}]}}}`,
			"One or more parameter values were invalid: ComparisonOperator BEGINS_WITH is not valid for N AttributeValue type"},
		{"BETWEEN order", `{"ScanFilter":{"a":{"ComparisonOperator":"BETWEEN","AttributeValueList":[{"N":"10"},{"N":"1"}]}}}`,
			"The BETWEEN condition was provided a range where the lower bound is greater than the upper bound"},
		{"ConditionalOperator", `{"ConditionalOperator":"XOR","Expected":{"a":{"Exists":false}}}`,
			"1 validation error detected: Value 'XOR' at 'conditionalOperator' failed to satisfy constraint: Member must satisfy enum value set: [OR, AND]"},
		{"Exists with operator", `{"Expected":{"a":{"Exists":true,"ComparisonOperator":"EQ","AttributeValueList":[{"N":"1"}]}}}`,
			"One or more parameter values were invalid: Exists and ComparisonOperator cannot be used together for Attribute: a"},
		{"Value and list", `{"Expected":{"a":{"Value":{"N":"1"},"ComparisonOperator":"EQ","AttributeValueList":[{"N":"1"}]}}}`,
			"One or more parameter values were invalid: Value and AttributeValueList cannot be used together for Attribute: a"},
		{"operator without values", `{"Expected":{"a":{"ComparisonOperator":"EQ"}}}`,
			"One or more parameter values were invalid: Value or AttributeValueList must be used with ComparisonOperator: EQ for Attribute: a"},
		{"list without operator", `{"Expected":{"a":{"AttributeValueList":[{"N":"1"}]}}}`,
			"One or more parameter values were invalid: AttributeValueList can only be used with a ComparisonOperator for Attribute: a"},
		{"Exists true without Value", `{"Expected":{"a":{"Exists":true}}}`,
			"One or more parameter values were invalid: Value must be provided when Exists is true for Attribute: a"},
		{"empty entry", `{"Expected":{"a":{}}}`,
			"One or more parameter values were invalid: Value must be provided when Exists is null for Attribute: a"},
		{"Exists false with Value", `{"Expected":{"a":{"Exists":false,"Value":{"N":"1"}}}}`,
			"One or more parameter values were invalid: Value cannot be used when Exists is false for Attribute: a"},
		{"PUT without value", `{"AttributeUpdates":{"a":{"Action":"PUT"}}}`,
			"One or more parameter values were invalid: Only DELETE action is allowed when no attribute value is specified"},
		{"DELETE of a scalar", `{"AttributeUpdates":{"a":{"Action":"DELETE","Value":{"S":"x"}}}}`,
			"One or more parameter values were invalid: DELETE action with value is not supported for the type S"},
		{"ADD of a string", `{"AttributeUpdates":{"a":{"Action":"ADD","Value":{"S":"x"}}}}`,
			"One or more parameter values were invalid: ADD action is not supported for the type S"},
		{"unknown action", `{"AttributeUpdates":{"a":{"Action":"SET","Value":{"S":"x"}}}}`,
			"1 validation error detected: Value 'SET' at 'attributeUpdates.a.member.action' failed to satisfy constraint: Member must satisfy enum value set: [ADD, PUT, DELETE]"},
		{"AttributesToGet empty", `{"AttributesToGet":[]}`,
			"1 validation error detected: Value '[]' at 'attributesToGet' failed to satisfy constraint: Member must have length greater than or equal to 1"},
		{"AttributesToGet duplicate", `{"AttributesToGet":["a","b","a"]}`,
			"One or more parameter values were invalid: Duplicate value in attribute name: a"},
		{"key condition not indexable", `{"KeyConditions":{"pk":{"ComparisonOperator":"NE","AttributeValueList":[{"S":"x"}]}}}`,
			"Attempted conditional constraint is not an indexable operation"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &Compiled{}
			err := c.AddLegacy(legacy(t, tc.params))
			if got := validationMessage(t, err); got != tc.want {
				t.Fatalf("message\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

// AttributeUpdates applies as the UpdateExpression it stands for
// (Developer Guide, "AttributeUpdates (legacy)").
func TestLegacyAttributeUpdates(t *testing.T) {
	tests := []struct{ name, params, item, want string }{
		{"PUT is the default", `{"AttributeUpdates":{"a":{"Value":{"S":"x"}}}}`, `{"a":{"N":"1"}}`, `{"a":{"S":"x"}}`},
		{"DELETE without value removes", `{"AttributeUpdates":{"a":{"Action":"DELETE"}}}`, `{"a":{"N":"1"},"b":{"N":"2"}}`, `{"b":{"N":"2"}}`},
		{"DELETE from a set", `{"AttributeUpdates":{"a":{"Action":"DELETE","Value":{"SS":["x"]}}}}`, `{"a":{"SS":["x","y"]}}`, `{"a":{"SS":["y"]}}`},
		{"ADD a number", `{"AttributeUpdates":{"a":{"Action":"ADD","Value":{"N":"-3"}}}}`, `{"a":{"N":"10"}}`, `{"a":{"N":"7"}}`},
		{"ADD creates", `{"AttributeUpdates":{"a":{"Action":"ADD","Value":{"NS":["1"]}}}}`, `{}`, `{"a":{"NS":["1"]}}`},
		{"ADD a list appends", `{"AttributeUpdates":{"a":{"Action":"ADD","Value":{"L":[{"S":"z"}]}}}}`, `{"a":{"L":[{"S":"y"}]}}`, `{"a":{"L":[{"S":"y"},{"S":"z"}]}}`},
		{"ADD a list creates", `{"AttributeUpdates":{"a":{"Action":"ADD","Value":{"L":[{"S":"z"}]}}}}`, `{}`, `{"a":{"L":[{"S":"z"}]}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &Compiled{}
			if err := c.AddLegacy(legacy(t, tc.params)); err != nil {
				t.Fatal(err)
			}
			got, err := c.Apply(item(t, tc.item))
			if err != nil {
				t.Fatal(err)
			}
			sameItem(t, got, tc.want)
		})
	}
}

// KeyConditions resolve against the key schema as a KeyConditionExpression
// does, with the same errors.
func TestLegacyKeyConditions(t *testing.T) {
	schema := KeySchema{PartitionKey: "pk", PartitionType: attr.S, SortKey: "sk", SortType: attr.S}
	c := &Compiled{}
	err := c.AddLegacy(legacy(t, `{"KeyConditions":{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"p"}]},"sk":{"ComparisonOperator":"BEGINS_WITH","AttributeValueList":[{"S":"a"}]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	q, err := c.KeyCondition.Resolve(c.Names, c.Values, schema)
	if err != nil {
		t.Fatal(err)
	}
	if q.PartitionValue.S != "p" || q.Sort == nil || q.Sort.Op != "begins_with" || !q.Sort.Match(attr.Str("abc")) {
		t.Fatalf("resolved %+v %+v", q.PartitionValue, q.Sort)
	}
	c = &Compiled{}
	if err := c.AddLegacy(legacy(t, `{"KeyConditions":{"sk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"p"}]}}}`)); err != nil {
		t.Fatal(err)
	}
	_, err = c.KeyCondition.Resolve(c.Names, c.Values, schema)
	if got := validationMessage(t, err); got != "Query condition missed key schema element: pk" {
		t.Fatalf("message %s", got)
	}
}

// DynamoDB refuses legacy and expression parameters together, except
// KeyConditions beside FilterExpression or ProjectionExpression.
func TestMixedParameters(t *testing.T) {
	tests := []struct {
		legacy, exprs []string
		want          string
	}{
		{[]string{"Expected"}, []string{"ConditionExpression"}, "Non-expression parameters: {Expected} Expression parameters: {ConditionExpression}"},
		{[]string{"AttributeUpdates"}, []string{"UpdateExpression"}, "Non-expression parameters: {AttributeUpdates} Expression parameters: {UpdateExpression}"},
		{[]string{"KeyConditions"}, []string{"ProjectionExpression", "FilterExpression"}, ""},
		{[]string{"QueryFilter", "KeyConditions"}, []string{"FilterExpression"}, "Non-expression parameters: {QueryFilter} Expression parameters: {FilterExpression}"},
		{[]string{"KeyConditions"}, []string{"KeyConditionExpression"}, "Non-expression parameters: {KeyConditions} Expression parameters: {KeyConditionExpression}"},
		{[]string{"Expected"}, nil, ""},
	}
	for _, tc := range tests {
		err := MixedParameters(tc.legacy, tc.exprs)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%v + %v: %v", tc.legacy, tc.exprs, err)
			}
			continue
		}
		if msg := validationMessage(t, err); !strings.HasPrefix(msg, "Can not use both expression and non-expression parameters in the same request: ") || !strings.HasSuffix(msg, tc.want) {
			t.Errorf("%v + %v: %s", tc.legacy, tc.exprs, msg)
		}
	}
}
