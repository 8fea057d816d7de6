package partiql_test

import (
	"errors"
	"testing"

	"github.com/oncetable/oncetable/runtime/ddblocal/expr"
	"github.com/oncetable/oncetable/runtime/ddblocal/partiql"
)

// FuzzParse holds the parser to two promises: it never panics, failing only
// with *partiql.Error, and every tree it builds prints as an expression the
// expression language parses back to the same text, so that the engine can
// hand PartiQL conditions and updates to package expr unchanged.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`SELECT * FROM "t" WHERE pk = 'a'`,
		`SELECT a, b.c[1] FROM "t"."i" WHERE pk IN ['a', 'b'] AND begins_with(sk, ?) ORDER BY sk DESC`,
		`SELECT * FROM t WHERE NOT (a BETWEEN 1 AND 2 OR b IS NOT MISSING) AND size(c) >= 3`,
		`INSERT INTO "t" VALUE {'pk': ?, 'm': {'l': [1, 'x', TRUE, NULL]}, 's': <<1, 2>>}`,
		`UPDATE "t" SET a = a + 1, b = list_append(b, [?]) SET c = set_add(c, <<'x'>>) REMOVE d[0] WHERE pk = 'k' RETURNING ALL NEW *`,
		`DELETE FROM t WHERE pk = 'k' AND contains(tags, 'x') RETURNING ALL OLD *`,
		`EXISTS(SELECT * FROM t WHERE pk = 'k' AND v IS STRING)`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		st, err := partiql.Parse(src)
		if err != nil {
			var pe *partiql.Error
			if !errors.As(err, &pe) {
				t.Fatalf("Parse(%q) failed with %T %v, want *partiql.Error", src, err, err)
			}
			return
		}
		if st.Where != nil {
			text := st.Where.String()
			c, err := expr.ParseCondition(text)
			if err != nil {
				t.Fatalf("WHERE of %q prints as %q, which expr refuses: %v", src, text, err)
			}
			if c.String() != text {
				t.Fatalf("WHERE of %q prints as %q, which expr reads as %q", src, text, c.String())
			}
		}
		if st.Update != nil {
			text := st.Update.String()
			u, err := expr.ParseUpdate(text)
			if err != nil {
				t.Fatalf("UPDATE of %q prints as %q, which expr refuses: %v", src, text, err)
			}
			if u.String() != text {
				t.Fatalf("UPDATE of %q prints as %q, which expr reads as %q", src, text, u.String())
			}
		}
	})
}
