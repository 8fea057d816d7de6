package partiql_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
	"github.com/oncetable/oncetable/runtime/ddblocal/expr"
	"github.com/oncetable/oncetable/runtime/ddblocal/partiql"
)

// resolved prints a tree with its placeholders replaced by what they stand
// for, so that cases read like the statements.
func resolved(st *partiql.Statement, vals expr.Values, s string) string {
	for i := len(st.Names) - 1; i >= 0; i-- {
		ph := "#n" + itoa(i)
		s = strings.ReplaceAll(s, ph, st.Names[ph])
	}
	for i := len(vals) - 1; i >= 0; i-- {
		ref := ":v" + itoa(i)
		s = strings.ReplaceAll(s, ref, show(vals[ref]))
	}
	return s
}

func itoa(i int) string { return strconv.Itoa(i) }

func show(v attr.Value) string {
	raw, _ := v.MarshalJSON()
	return string(raw)
}

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src           string
		params              []attr.Value
		kind                partiql.Kind
		table, index        string
		where, update, proj string
		returning           string
	}{
		{name: "select star by key", src: `SELECT * FROM "t" WHERE pk = 'a'`, kind: partiql.Select, table: "t", where: `pk = {"S":"a"}`},
		{name: "select list and index", src: `select a, b.c[2], "d e" from "t"."i"`, kind: partiql.Select, table: "t", index: "i", proj: "a, b.c[2], d e"},
		{name: "comparisons", src: `SELECT * FROM t WHERE a <> 1 AND b != 2 OR c >= -3.50`, kind: partiql.Select, table: "t", where: `a <> {"N":"1"} AND b <> {"N":"2"} OR c >= {"N":"-3.5"}`},
		{name: "between in not", src: `SELECT * FROM t WHERE NOT a BETWEEN 1 AND 5 AND b IN ['x', ?]`, params: []attr.Value{attr.Str("y")}, kind: partiql.Select, table: "t", where: `NOT a BETWEEN {"N":"1"} AND {"N":"5"} AND b IN ({"S":"x"}, {"S":"y"})`},
		{name: "functions", src: `SELECT * FROM t WHERE BEGINS_WITH("sk", 'p') AND contains(tags, 'x') AND size(l) > 2`, kind: partiql.Select, table: "t", where: `begins_with(sk, {"S":"p"}) AND contains(tags, {"S":"x"}) AND size(l) > {"N":"2"}`},
		{name: "is missing", src: `SELECT * FROM t WHERE a IS MISSING AND b IS NOT MISSING AND c IS NULL`, kind: partiql.Select, table: "t", where: `attribute_not_exists(a) AND NOT attribute_not_exists(b) AND attribute_type(c, {"S":"NULL"})`},
		{name: "parentheses", src: `SELECT * FROM t WHERE (a = 1 OR b = 2) AND c = 3`, kind: partiql.Select, table: "t", where: `(a = {"N":"1"} OR b = {"N":"2"}) AND c = {"N":"3"}`},
		{name: "insert with params", src: `INSERT INTO "t" VALUE {'pk': ?, 'm': {'l': [1, ?]}, 's': <<'a', 'b'>>}`, params: []attr.Value{attr.Str("k"), attr.Boolean(true)}, kind: partiql.Insert, table: "t"},
		{name: "update set remove", src: `UPDATE t SET a = 1, b.c[0] = a + 2 SET d = list_append(d, [3]) REMOVE e WHERE pk = 'k' RETURNING MODIFIED OLD *`, kind: partiql.Update, table: "t",
			update: `SET a = {"N":"1"}, b.c[0] = a + {"N":"2"}, d = list_append(d, {"L":[{"N":"3"}]}) REMOVE e`, where: `pk = {"S":"k"}`, returning: "UPDATED_OLD"},
		{name: "set_add and set_delete", src: `UPDATE t SET ss = set_add(ss, <<'x'>>), ns = SET_DELETE(ns, <<1, 2>>) WHERE pk = 'k'`, kind: partiql.Update, table: "t",
			update: `ADD ss {"SS":["x"]} DELETE ns {"NS":["1","2"]}`, where: `pk = {"S":"k"}`},
		{name: "delete returning", src: `DELETE FROM t WHERE pk = 'k' AND v = TRUE RETURNING ALL OLD *;`, kind: partiql.Delete, table: "t", where: `pk = {"S":"k"} AND v = {"BOOL":true}`, returning: "ALL_OLD"},
		{name: "exists", src: `EXISTS(SELECT * FROM "t" WHERE pk = 'k' AND n > 1)`, kind: partiql.Exists, table: "t", where: `pk = {"S":"k"} AND n > {"N":"1"}`},
		{name: "comments", src: "SELECT * /* all */ FROM t -- the table\nWHERE a = 1", kind: partiql.Select, table: "t", where: `a = {"N":"1"}`},
		{name: "quoted strings", src: `SELECT * FROM t WHERE a = 'it''s'`, kind: partiql.Select, table: "t", where: `a = {"S":"it's"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st, err := partiql.Parse(tc.src)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.src, err)
			}
			vals, err := st.Bind(tc.params)
			if err != nil {
				t.Fatalf("Bind: %v", err)
			}
			if st.Kind != tc.kind || st.Table != tc.table || st.Index != tc.index || st.Returning != tc.returning {
				t.Errorf("got %v %q %q %q, want %v %q %q %q", st.Kind, st.Table, st.Index, st.Returning, tc.kind, tc.table, tc.index, tc.returning)
			}
			check := func(what, got, want string) {
				t.Helper()
				if got != want {
					t.Errorf("%s:\n got %s\nwant %s", what, got, want)
				}
			}
			if st.Where != nil || tc.where != "" {
				check("where", resolved(st, vals, st.Where.String()), tc.where)
			}
			if st.Update != nil || tc.update != "" {
				check("update", resolved(st, vals, st.Update.String()), tc.update)
			}
			var proj []string
			for _, p := range st.Projection {
				proj = append(proj, st.ResolvePath(p).String())
			}
			check("projection", strings.Join(proj, ", "), tc.proj)
		})
	}
}

func TestBoundItem(t *testing.T) {
	t.Parallel()
	st, err := partiql.Parse(`INSERT INTO t VALUE {'pk': ?, 'n': 1e2, 'm': {'l': [?, NULL]}, 's': <<1, 1, 2>>}`)
	if err != nil {
		t.Fatal(err)
	}
	it, err := st.BoundItem([]attr.Value{attr.Str("k"), attr.Boolean(false)})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := it.MarshalJSON()
	want := `{"m":{"M":{"l":{"L":[{"BOOL":false},{"NULL":true}]}}},"n":{"N":"100"},"pk":{"S":"k"},"s":{"NS":["1","2"]}}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		src    string
		params int
		want   string
	}{
		{`SELECTT * FROMM "t"`, 0, "Statement wasn't well formed, can't be processed: Expected data manipulation"},
		{``, 0, "Statement wasn't well formed, can't be processed: Expected data manipulation"},
		{`SELECT * FROM`, 0, "Statement wasn't well formed, can't be processed: Unexpected end of statement"},
		{`SELECT * FROM t WHERE`, 0, "Statement wasn't well formed, can't be processed: Unexpected end of statement"},
		{`SELECT * FROM t WHERE a = 'x`, 0, "Statement wasn't well formed, can't be processed: Unexpected character: 'x"},
		{`SELECT * FROM t /* unclosed`, 0, "Statement wasn't well formed, can't be processed: Unexpected character: /* unclosed"},
		{`SELECT * FROM t extra`, 0, "Statement wasn't well formed, can't be processed: Unexpected token: extra"},
		{`SELECT *, a FROM t`, 0, "Other attributes should not be present in the projection when '*' is used."},
		{`SELECT * FROM t WHERE a`, 0, "WHERE clause must contain an expression that resolves to a boolean"},
		{`SELECT * FROM t WHERE nope(a)`, 0, "Unrecognized function: nope"},
		{`SELECT * FROM t WHERE a = MISSING`, 0, "MISSING must be compared using IS operator"},
		{`SELECT * FROM t WHERE a IN []`, 0, "IN operator must have a left hand argument of type Variable Reference and right hand argument of type Seq with at least one member"},
		{`SELECT * FROM t WHERE a = ?`, 2, "Number of parameters in request and statement don't match."},
		{`INSERT INTO t VALUES {'a': 1}`, 0, `Unsupported operation: Inserting multiple items in a single statement is not supported, use "INSERT INTO tableName VALUE item" instead`},
		{`INSERT INTO t VALUE ['a']`, 0, "Unsupported format in item expression. Please use struct format {...} to express item values for insert statement."},
		{`INSERT INTO t VALUE {'a': <<>>}`, 0, "Empty bags are not supported"},
		{`INSERT INTO t VALUE {'a': <<true>>}`, 0, "Unsupported data type in Bag. DynamoDB only supports either numbers or strings in bags"},
		{`INSERT INTO t VALUE {'a': 1, 'a': 2}`, 0, "Duplicate keys in tuple. Key: a"},
		{`UPDATE t SET a = 1`, 0, "Where clause does not contain a mandatory equality on all key attributes"},
		{`DELETE FROM t`, 0, "Where clause does not contain a mandatory equality on all key attributes"},
		{`DELETE FROM t WHERE pk = 'a' RETURNING MODIFIED OLD *`, 0, "Invalid returning clause: RETURNING MODIFIED OLD *. Only RETURNING ALL OLD * is allowed in DELETE statements."},
		{`UPDATE t SET a = 1 WHERE pk = 'a' RETURNING ALL NEW`, 0, "Expected '*' after ( MODIFIED | ALL ) ( NEW | OLD ) in RETURNING clause"},
		{`UPDATE t SET a = set_add(b, <<'x'>>) WHERE pk = 'a'`, 0, "The first argument to SET_ADD must equal the assignment value"},
		{`UPDATE t SET a = set_add(a, 'x') WHERE pk = 'a'`, 0, "The second argument to SET_ADD must be a value with type SET"},
		{`UPDATE t SET a = set_delete(a) WHERE pk = 'a'`, 0, "SET_DELETE must have exactly two arguments"},
		{`SELECT * FROM t WHERE a = 1e999`, 0, "Number overflow. Attempting to store a number with magnitude larger than supported range"},
	}
	for _, tc := range tests {
		t.Run(tc.src, func(t *testing.T) {
			st, err := partiql.Parse(tc.src)
			if err == nil {
				_, err = st.Bind(make([]attr.Value, tc.params))
			}
			if err == nil && st.Kind == partiql.Insert {
				_, err = st.BoundItem(nil)
			}
			var pe *partiql.Error
			if !errors.As(err, &pe) {
				t.Fatalf("got %v, want *partiql.Error %q", err, tc.want)
			}
			if pe.Message != tc.want {
				t.Errorf("got  %q\nwant %q", pe.Message, tc.want)
			}
		})
	}
}
