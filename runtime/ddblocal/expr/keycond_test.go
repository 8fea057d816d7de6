package expr

import (
	"strings"
	"testing"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
)

var testSchema = KeySchema{PartitionKey: "PK", PartitionType: attr.S, SortKey: "SK", SortType: attr.S}

const keyValues = `{":pk":{"S":"p"},":a":{"S":"a"},":b":{"S":"b"},":n":{"N":"1"},":n2":{"N":"2"},":bin":{"B":"AQ=="}}`

func TestKeyConditionResolve(t *testing.T) {
	tests := []struct {
		expr   string
		names  Names
		op     string // "" for no sort condition
		match  []string
		reject []string
	}{
		{"PK = :pk", nil, "", nil, nil},
		{":pk = PK", nil, "", nil, nil},
		{"#p = :pk", Names{"#p": "PK"}, "", nil, nil},
		{"PK = :pk AND SK = :a", nil, "=", []string{"a"}, []string{"b", "aa"}},
		{"SK = :a AND PK = :pk", nil, "=", []string{"a"}, []string{"b"}},
		{"PK = :pk AND SK < :b", nil, "<", []string{"a", "ab"}, []string{"b", "c"}},
		{"PK = :pk AND SK <= :b", nil, "<=", []string{"a", "b"}, []string{"ba", "c"}},
		{"PK = :pk AND SK > :a", nil, ">", []string{"ab", "b"}, []string{"a", ""}},
		{"PK = :pk AND SK >= :a", nil, ">=", []string{"a", "b"}, []string{""}},
		{"PK = :pk AND :a < SK", nil, ">", []string{"b"}, []string{"a"}},
		{"PK = :pk AND SK BETWEEN :a AND :b", nil, "BETWEEN", []string{"a", "az", "b"}, []string{"ba", "0"}},
		{"PK = :pk AND begins_with(SK, :a)", nil, "begins_with", []string{"a", "abc"}, []string{"b", "ba"}},
		{"(PK = :pk) AND (begins_with(#s, :a))", Names{"#s": "SK"}, "begins_with", []string{"a"}, []string{"b"}},
		{"((SK = :a) AND (PK = :pk))", nil, "=", []string{"a"}, []string{"b"}},
		{"PK=:pk AnD SK BeTwEeN :a aNd :b", nil, "BETWEEN", []string{"a"}, []string{"c"}},
	}
	vals := values(t, keyValues)
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			k, err := ParseKeyCondition(tt.expr)
			if err != nil {
				t.Fatal(err)
			}
			roundTrip(t, ParseKeyCondition, tt.expr, k)
			q, err := k.Resolve(tt.names, vals, testSchema)
			if err != nil {
				t.Fatal(err)
			}
			if !attr.Equal(q.PartitionValue, attr.Str("p")) {
				t.Errorf("partition value %v", q.PartitionValue)
			}
			if tt.op == "" {
				if q.Sort != nil {
					t.Errorf("Sort = %+v, want none", q.Sort)
				}
				return
			}
			if q.Sort == nil || q.Sort.Op != tt.op {
				t.Fatalf("Sort = %+v, want op %s", q.Sort, tt.op)
			}
			for _, s := range tt.match {
				if !q.Sort.Match(attr.Str(s)) {
					t.Errorf("Match(%q) = false", s)
				}
			}
			for _, s := range tt.reject {
				if q.Sort.Match(attr.Str(s)) {
					t.Errorf("Match(%q) = true", s)
				}
			}
		})
	}
}

func TestKeyConditionNumericAndBinary(t *testing.T) {
	vals := values(t, keyValues)
	k, _ := ParseKeyCondition("PK = :pk AND SK BETWEEN :n AND :n2")
	q, err := k.Resolve(nil, vals, KeySchema{PartitionKey: "PK", PartitionType: attr.S, SortKey: "SK", SortType: attr.N})
	if err != nil {
		t.Fatal(err)
	}
	for s, want := range map[string]bool{"1": true, "1.5": true, "2": true, "10": false, "0.99": false} {
		if got := q.Sort.Match(attr.MustNum(s)); got != want {
			t.Errorf("N %s BETWEEN 1 AND 2 = %v, want %v", s, got, want)
		}
	}
	k, _ = ParseKeyCondition("PK = :pk AND begins_with(SK, :bin)")
	q, err = k.Resolve(nil, vals, KeySchema{PartitionKey: "PK", PartitionType: attr.S, SortKey: "SK", SortType: attr.B})
	if err != nil {
		t.Fatal(err)
	}
	if !q.Sort.Match(attr.Bin([]byte{1, 2})) || q.Sort.Match(attr.Bin([]byte{2})) {
		t.Errorf("binary begins_with matched wrongly")
	}
}

func TestKeyConditionErrors(t *testing.T) {
	numSort := KeySchema{PartitionKey: "PK", PartitionType: attr.S, SortKey: "SK", SortType: attr.N}
	hashOnly := KeySchema{PartitionKey: "PK", PartitionType: attr.S}
	tests := []struct {
		expr   string
		schema KeySchema
		want   string
	}{
		{"PK = :pk OR SK = :a", testSchema, "Invalid operator used in KeyConditionExpression: OR"},
		{"NOT PK = :pk", testSchema, "Invalid operator used in KeyConditionExpression: NOT"},
		{"PK IN (:pk)", testSchema, "Invalid operator used in KeyConditionExpression: IN"},
		{"PK <> :pk", testSchema, "Invalid operator used in KeyConditionExpression: <>"},
		{"PK = :pk AND attribute_exists(SK)", testSchema, "Invalid operator used in KeyConditionExpression: attribute_exists"},
		{"PK = :pk AND contains(SK, :a)", testSchema, "Invalid operator used in KeyConditionExpression: contains"},
		{"PK = :pk AND size(SK) = :n", testSchema, "Invalid operator used in KeyConditionExpression: size"},
		{"SK = :a", testSchema, "Query condition missed key schema element: PK"},
		{"PK < :pk", testSchema, "Query key condition not supported"},
		{"begins_with(PK, :pk)", testSchema, "Query key condition not supported"},
		{"PK = :pk AND PK = :pk", testSchema, "KeyConditionExpressions must only contain one condition per key"},
		{"PK = :pk AND SK = :a AND SK = :b", testSchema, "Conditions can be of length 1 or 2 only"},
		{"PK = :pk AND SK < :a AND foo < :a", testSchema, "Conditions can be of length 1 or 2 only"},
		{"SK >= :a AND SK <= :b", testSchema, "KeyConditionExpressions must only contain one condition per key"},
		{"PK = :pk AND foo.bar < :a", testSchema, "KeyConditionExpressions cannot have conditions on nested attributes"},
		{"PK = SK", testSchema, "Query key condition not supported"},
		{":pk = :a", testSchema, "Query key condition not supported"},
		{"PK = :pk AND BEGINS_WITH(SK, :a)", testSchema, "Invalid KeyConditionExpression: Invalid function name; function: BEGINS_WITH"},
		{"PK = :pk AND dog(SK, :a)", testSchema, "Invalid KeyConditionExpression: Invalid function name; function: dog"},
		{"PK", testSchema, `Invalid KeyConditionExpression: Syntax error; token: "<EOF>", near: "PK"`},
		{"PK = :pk AND SK != :a", testSchema, `Invalid KeyConditionExpression: Syntax error; token: "!", near: "SK !="`},
		{"PK = :pk AND foo = :a", testSchema, "Query condition missed key schema element: SK"},
		{"foo = :a AND SK = :a", testSchema, "Query condition missed key schema element: PK"},
		{"PK = :pk AND foo = :a", hashOnly, "Query key condition not supported"},
		{"PK = :pk AND SK[0] = :a", testSchema, "KeyConditionExpressions cannot have conditions on nested attributes"},
		{"PK = :pk AND SK = PK", testSchema, "Query key condition not supported"},
		{"PK = :n", testSchema, "One or more parameter values were invalid: Condition parameter type does not match schema type"},
		{"PK = :pk AND SK = :n", testSchema, "One or more parameter values were invalid: Condition parameter type does not match schema type"},
		{"PK = :pk AND SK BETWEEN :n AND :n2", testSchema, "One or more parameter values were invalid: Condition parameter type does not match schema type"},
		{"PK = :pk AND begins_with(SK, :n)", numSort, "Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N"},
		{"PK = :nope", testSchema, "Invalid KeyConditionExpression: An expression attribute value used in expression is not defined; attribute value: :nope"},
		{"#nope = :pk", testSchema, "Invalid KeyConditionExpression: An expression attribute name used in the document path is not defined; attribute name: #nope"},
	}
	vals := values(t, keyValues)
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			k, err := ParseKeyCondition(tt.expr)
			if err == nil {
				_, err = k.Resolve(nil, vals, tt.schema)
			} else {
				err = err.(*Error).Validation("KeyConditionExpression")
			}
			if err == nil {
				t.Fatalf("no error, want %q", tt.want)
			}
			if got := validationMessage(t, err); got != tt.want {
				t.Errorf("error\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// multiSchema is a multi-attribute GSI key: partition h1 (S) + h2 (N), sort
// r1 (S) + r2 (N) + r3 (S).
var multiSchema = KeySchema{
	Partition: []KeyAttribute{{"h1", attr.S}, {"h2", attr.N}},
	Sort:      []KeyAttribute{{"r1", attr.S}, {"r2", attr.N}, {"r3", attr.S}},
}

func TestKeyConditionResolveMultiAttribute(t *testing.T) {
	tests := []struct {
		expr      string
		partition int    // partition values resolved
		equal     int    // sort attributes fixed by equality before Sort
		op        string // "" for no sort condition
		err       string // "" for success
	}{
		{"h1 = :a AND h2 = :n", 2, 0, "", ""},
		{"h2 = :n AND h1 = :a", 2, 0, "", ""},
		{"h1 = :a AND h2 = :n AND r1 = :b", 2, 0, "=", ""},
		{"h1 = :a AND h2 = :n AND r1 > :b", 2, 0, ">", ""},
		{"h1 = :a AND h2 = :n AND r1 = :b AND r2 BETWEEN :n AND :n2", 2, 1, "BETWEEN", ""},
		{"r2 = :n AND h1 = :a AND r1 = :b AND h2 = :n AND begins_with(r3, :a)", 2, 2, "begins_with", ""},
		{"h1 = :a", 0, 0, "", "Query condition missed key schema element: h2"},
		{"r1 = :b", 0, 0, "", "Query condition missed key schema element: h1"},
		{"h1 = :a AND h2 > :n", 0, 0, "", "Query key condition not supported"},
		{"h1 = :a AND h2 = :n AND r2 = :n", 0, 0, "", "Query condition missed key schema element: r1"},
		{"h1 = :a AND h2 = :n AND r1 = :a AND r3 = :b", 0, 0, "", "Query condition missed key schema element: r2"},
		{"h1 = :a AND h2 = :n AND r1 < :b AND r2 = :n", 0, 0, "", "Query key condition not supported"},
		{"h1 = :a AND h2 = :n AND begins_with(r1, :b) AND r2 = :n", 0, 0, "", "Query key condition not supported"},
		{"h1 = :a AND h2 = :n AND r1 = :a AND r1 = :b", 0, 0, "", "KeyConditionExpressions must only contain one condition per key"},
		{"h1 = :a AND h2 = :a", 0, 0, "", "Condition parameter type does not match schema type"},
		{"h1 = :a AND h2 = :n AND r1 = :a AND begins_with(r2, :n)", 0, 0, "", "operator or function: begins_with, operand type: N"},
		{"h1 = :a AND h2 = :n AND x = :a", 0, 0, "", "Query condition missed key schema element: r1"},
	}
	vals := values(t, keyValues)
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			k, err := ParseKeyCondition(tt.expr)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			q, err := k.Resolve(nil, vals, multiSchema)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got %v, want an error containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("resolve: %v", err)
			}
			op := ""
			if q.Sort != nil {
				op = q.Sort.Op
			}
			if len(q.PartitionValues) != tt.partition || len(q.SortEqual) != tt.equal || op != tt.op {
				t.Errorf("got %d partition values, %d sort equalities, op %q; want %d, %d, %q",
					len(q.PartitionValues), len(q.SortEqual), op, tt.partition, tt.equal, tt.op)
			}
			if q.PartitionValue.S != q.PartitionValues[0].S {
				t.Errorf("PartitionValue %v is not the first of PartitionValues %v", q.PartitionValue, q.PartitionValues)
			}
		})
	}
}
