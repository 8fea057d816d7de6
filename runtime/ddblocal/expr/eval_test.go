package expr

import (
	"testing"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
)

// evalItem is the item every condition case runs against.
const evalItem = `{
	"s":   {"S": "hello world"},
	"u":   {"S": "héllo"},
	"n":   {"N": "10"},
	"big": {"N": "12345678901234567890123456789012345678"},
	"neg": {"N": "-0.5"},
	"b":   {"B": "AQID"},
	"t":   {"BOOL": true},
	"nul": {"NULL": true},
	"ss":  {"SS": ["a", "b"]},
	"ns":  {"NS": ["1", "2.5"]},
	"bs":  {"BS": ["AQ==", "Ag=="]},
	"l":   {"L": [{"S": "x"}, {"N": "2"}, {"M": {"k": {"S": "v"}}}]},
	"m":   {"M": {"a": {"M": {"b": {"L": [{"N": "0"}, {"N": "1"}, {"M": {"c": {"S": "deep"}}}]}}}, "x": {"N": "3"}}},
	"dot.nm": {"S": "dotted"}
}`

const evalValues = `{
	":hello": {"S": "hello world"}, ":he": {"S": "hell"}, ":wor": {"S": "wor"}, ":zz": {"S": "zz"},
	":a": {"S": "a"}, ":x": {"S": "x"}, ":deep": {"S": "deep"}, ":dotted": {"S": "dotted"},
	":n10": {"N": "10"}, ":n10b": {"N": "10.000"}, ":n9": {"N": "9"}, ":n11": {"N": "11"}, ":n2": {"N": "2"},
	":n1": {"N": "1"}, ":n25": {"N": "2.50"}, ":n3": {"N": "3"}, ":n5": {"N": "5"}, ":n0": {"N": "0"}, ":n11u": {"N": "11"},
	":big": {"N": "12345678901234567890123456789012345678"}, ":bigm1": {"N": "12345678901234567890123456789012345677"},
	":b": {"B": "AQID"}, ":b1": {"B": "AQ=="}, ":b2": {"B": "Ag=="}, ":b9": {"B": "CQ=="},
	":true": {"BOOL": true}, ":false": {"BOOL": false}, ":null": {"NULL": true},
	":ss": {"SS": ["b", "a"]}, ":ss2": {"SS": ["a"]}, ":l": {"L": [{"S": "x"}, {"N": "2"}, {"M": {"k": {"S": "v"}}}]},
	":m": {"M": {"k": {"S": "v"}}},
	":tS": {"S": "S"}, ":tN": {"S": "N"}, ":tB": {"S": "B"}, ":tBOOL": {"S": "BOOL"}, ":tNULL": {"S": "NULL"},
	":tSS": {"S": "SS"}, ":tNS": {"S": "NS"}, ":tBS": {"S": "BS"}, ":tL": {"S": "L"}, ":tM": {"S": "M"}
}`

func TestConditionEval(t *testing.T) {
	names := Names{"#s": "s", "#dot": "dot.nm", "#m": "m", "#n": "n"}
	tests := []struct {
		expr string
		want bool
	}{
		// comparisons
		{"s = :hello", true},
		{"s = :he", false},
		{"#s = :hello", true},
		{"n = :n10b", true}, // numbers compare numerically
		{"n <> :n10", false},
		{"n <> :n9", true},
		{"n < :n11", true},
		{"n <= :n10", true},
		{"n > :n9", true},
		{"n >= :n11", false},
		{"neg < :n0", true},
		{"big > :bigm1", true},
		{"big = :big", true},
		{"s < :zz", true},
		{"s > :he", true},
		{"b = :b", true},
		{"b > :b1", true},
		{"b < :b9", true},
		{"t = :true", true},
		{"t = :false", false},
		{"nul = :null", true},
		{"ss = :ss", true}, // sets compare regardless of order
		{"ss = :ss2", false},
		{"l = :l", true},
		{"l[2] = :m", true},
		{"t < :true", false},  // BOOL has no order
		{"n = :hello", false}, // different types
		{"n <> :hello", true},
		{"n < :hello", false},
		{"absent = :n10", false},
		{"absent <> :n10", true},
		{"absent < :n10", false},
		{"n = s", false},
		{"l[0] = :x", true},
		{"l[1] = :n2", true},
		{"l[3] = :x", false},
		{"l.x = :x", false},
		{"m.a.b[2].c = :deep", true},
		{"#m.a.b[2].c = :deep", true},
		{"m.x = :n3", true},
		{"m[0] = :n3", false},
		{"s.a = :x", false},
		{"#dot = :dotted", true},
		{"dot.nm = :dotted", false},
		// BETWEEN and IN
		{"n BETWEEN :n9 AND :n11", true},
		{"n BETWEEN :n10 AND :n10b", true},
		{"n BETWEEN :n1 AND :n9", false},
		{"s BETWEEN :he AND :zz", true},
		{"n BETWEEN :a AND :x", false},
		{"absent BETWEEN :n1 AND :n9", false},
		{"n IN (:n1, :n10b)", true},
		{"n IN (:n1, :n2)", false},
		{"absent IN (:n1)", false},
		{"s IN (:n1, :hello)", true},
		{"n IN (:n1, absent, :n10)", true},
		// logic
		{"n = :n10 AND s = :hello", true},
		{"n = :n10 AND s = :he", false},
		{"n = :n9 OR s = :hello", true},
		{"n = :n9 OR s = :he", false},
		{"NOT n = :n9", true},
		{"NOT (n = :n10 AND s = :hello)", false},
		{"NOT NOT attribute_exists(n)", true},
		{"n = :n9 AND s = :he OR t = :true", true},
		{"n = :n9 AND (s = :he OR t = :true)", false},
		{"NOT n = :n10 OR t = :true", true},
		// functions
		{"attribute_exists(s)", true},
		{"attribute_exists(absent)", false},
		{"attribute_exists(m.a.b[2])", true},
		{"attribute_exists(m.a.b[3])", false},
		{"attribute_not_exists(absent)", true},
		{"attribute_not_exists(l[5])", true},
		{"attribute_not_exists(s)", false},
		{"attribute_type(s, :tS)", true},
		{"attribute_type(n, :tN)", true},
		{"attribute_type(b, :tB)", true},
		{"attribute_type(t, :tBOOL)", true},
		{"attribute_type(nul, :tNULL)", true},
		{"attribute_type(ss, :tSS)", true},
		{"attribute_type(ns, :tNS)", true},
		{"attribute_type(bs, :tBS)", true},
		{"attribute_type(l, :tL)", true},
		{"attribute_type(m, :tM)", true},
		{"attribute_type(s, :tN)", false},
		{"attribute_type(absent, :tS)", false},
		{"begins_with(s, :he)", true},
		{"begins_with(s, :wor)", false},
		{"begins_with(b, :b1)", true},
		{"begins_with(b, :b2)", false},
		{"begins_with(n, :a)", false},
		{"begins_with(absent, :a)", false},
		{"contains(s, :wor)", true},
		{"contains(s, :zz)", false},
		{"contains(ss, :a)", true},
		{"contains(ss, :x)", false},
		{"contains(ns, :n25)", true},
		{"contains(ns, :n3)", false},
		{"contains(bs, :b2)", true},
		{"contains(bs, :b9)", false},
		{"contains(l, :x)", true},
		{"contains(l, :n2)", true},
		{"contains(l, :m)", true},
		{"contains(l, :a)", false},
		{"contains(b, :b2)", true},
		{"contains(n, :n1)", false},
		{"contains(absent, :a)", false},
		{"contains(s, n)", false},
		{"size(s) = :n11u", true},
		{"size(u) = :n5", true}, // characters, not bytes
		{"size(b) = :n3", true},
		{"size(ss) = :n2", true},
		{"size(ns) = :n2", true},
		{"size(bs) = :n2", true},
		{"size(l) = :n3", true},
		{"size(m) = :n2", true},
		{"size(m.a.b) > :n2", true},
		{"size(n) = :n2", false},
		{"size(n) <> :n2", true},
		{"size(t) >= :n0", false},
		{"size(absent) >= :n0", false},
		{"size(l) BETWEEN :n2 AND :n3", true},
		{"size(l) IN (:n3)", true},
		{"size(l) > size(ss)", true},
		{"size(s) = :hello", false},
		{"size(:hello) = :n11u", true},
		{"size(:ss) = :n2", true},
		{"begins_with(:hello, s)", true},
		{"begins_with(:hello, :he)", true},
		{"attribute_type(:hello, :tS)", true},
		{"absent1 <> absent2", true},
		{"absent1 = absent2", false},
		{"absent1 < absent2", false},
		{"absent1 BETWEEN absent2 AND absent3", false},
		{"l < :n2", false},
		{"n IN (s, n)", true},
		{"m.x < l[1]", false},
		{"l[1] < m.x", true},
		{"contains(l, l[2])", true},
	}
	it := item(t, evalItem)
	vals := values(t, evalValues)
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			c, err := ParseCondition(tt.expr)
			if err != nil {
				t.Fatalf("ParseCondition(%q): %v", tt.expr, err)
			}
			got, err := c.Eval(it, names, vals)
			if err != nil {
				t.Fatalf("Eval: %v", err)
			}
			if got != tt.want {
				t.Errorf("Eval(%q) = %v, want %v", tt.expr, got, tt.want)
			}
		})
	}
}

func TestConditionEvalMissingItem(t *testing.T) {
	vals := values(t, `{":v":{"S":"x"}}`)
	for expr, want := range map[string]bool{
		"attribute_not_exists(PK)":      true,
		"attribute_exists(PK)":          false,
		"a = :v":                        false,
		"a <> :v":                       true,
		"NOT contains(a, :v)":           true,
		"attribute_not_exists(a.b)":     true,
		"begins_with(a, :v) OR a <> :v": true,
	} {
		c, err := ParseCondition(expr)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := c.Eval(nil, nil, vals); err != nil || got != want {
			t.Errorf("Eval(%q) on no item = %v, %v; want %v", expr, got, err, want)
		}
	}
}

func TestConditionEvalUndefined(t *testing.T) {
	for expr, want := range map[string]string{
		"a = :nope":             "Invalid ConditionExpression: An expression attribute value used in expression is not defined; attribute value: :nope",
		"attribute_exists(#no)": "Invalid ConditionExpression: An expression attribute name used in the document path is not defined; attribute name: #no",
	} {
		c, err := ParseCondition(expr)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Eval(attr.Item{}, nil, nil)
		if got := validationMessage(t, err); got != want {
			t.Errorf("Eval(%q) error %q, want %q", expr, got, want)
		}
	}
}
