package ddblocal

import (
	"testing"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
	"github.com/oncetable/oncetable/runtime/ddblocal/partiql"
)

// TestPlanSelect checks which SELECTs read partitions (a Query) and which
// scan, as the Developer Guide's "PartiQL select statements" lists them.
func TestPlanSelect(t *testing.T) {
	simple := keySchema{hash: keyAttr{name: "pk", typ: attr.S}, rng: keyAttr{name: "sk", typ: attr.N}}.withAttrs()
	multi := keySchema{attrs: []keyAttr{{name: "t", typ: attr.S}, {name: "r", typ: attr.S}, {name: "round", typ: attr.S}}, nHash: 2}
	multi.hash, multi.rng = multi.attrs[0], multi.attrs[2]
	tests := []struct {
		keys       keySchema
		where      string
		partitions int
		sort       bool
		filter     string
	}{
		{simple, `pk = 1`, 1, false, ""},
		{simple, `pk = 1 AND x = 'a'`, 1, false, "#n1 = :v1"},
		{simple, `pk = 1 OR pk = 2`, 2, false, ""},
		{simple, `pk IN [1, 2, 1]`, 2, false, ""},
		{simple, `x = 'a' AND pk = 1 AND sk > 3 AND sk < 9`, 1, true, "#n0 = :v0 AND #n2 < :v3"},
		{simple, `pk = 1 AND begins_with(sk, 'a')`, 1, true, ""},
		{simple, `pk > 1`, 0, false, "#n0 > :v0"},
		{simple, `pk = 1 OR x = 2`, 0, false, "#n0 = :v0 OR #n1 = :v1"},
		{simple, `sk = 1`, 0, false, "#n0 = :v0"},
		{multi, `t = 'a' AND r = 'b' AND round = 'c'`, 1, false, "#n2 = :v2"},
		{multi, `t = 'a' AND round = 'c'`, 0, false, "#n0 = :v0 AND #n1 = :v1"},
	}
	for _, tc := range tests {
		t.Run(tc.where, func(t *testing.T) {
			st, err := partiql.Parse(`SELECT * FROM t WHERE ` + tc.where)
			if err != nil {
				t.Fatal(err)
			}
			vals, err := st.Bind(nil)
			if err != nil {
				t.Fatal(err)
			}
			plan := planSelect(st, tc.keys, vals)
			filter := ""
			if plan.filter != nil {
				filter = plan.filter.String()
			}
			if len(plan.partitions) != tc.partitions || (plan.sort != nil) != tc.sort || filter != tc.filter {
				t.Errorf("got %d partitions, sort condition %v, filter %q; want %d, %v, %q", len(plan.partitions), plan.sort, filter, tc.partitions, tc.sort, tc.filter)
			}
		})
	}
}
