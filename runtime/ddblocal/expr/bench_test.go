package expr

import (
	"testing"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
)

// The engine compiles a request's expressions on every call, so compiling
// is on the hot path of every conditional write.
func BenchmarkCompileConditionalUpdate(b *testing.B) {
	cond := "attribute_exists(PK) AND #bal >= :amt AND #v = :v"
	upd := "SET #bal = #bal - :amt, #v = #v + :one, updatedAt = :now"
	in := Input{
		Condition: &cond, Update: &upd,
		Names:  Names{"#bal": "balance", "#v": "version"},
		Values: Values{":amt": attr.Int(5), ":v": attr.Int(3), ":one": attr.Int(1), ":now": attr.Str("2026-01-01T00:00:00Z")},
	}
	it := attr.Item{"PK": attr.Str("acct#1"), "SK": attr.Str("acct"), "balance": attr.Int(100), "version": attr.Int(3)}
	b.ReportAllocs()
	for b.Loop() {
		c, err := Compile(in)
		if err != nil {
			b.Fatal(err)
		}
		ok, err := c.Check(it)
		if err != nil || !ok {
			b.Fatal(ok, err)
		}
		if _, err := c.Apply(it); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFilterEval(b *testing.B) {
	c, err := ParseCondition("begins_with(SK, :p) AND size(tags) > :n AND #s IN (:a, :b)")
	if err != nil {
		b.Fatal(err)
	}
	tags, _ := attr.StrSet("x", "y")
	it := attr.Item{"SK": attr.Str("order#1"), "tags": tags, "status": attr.Str("paid")}
	names := Names{"#s": "status"}
	vals := Values{":p": attr.Str("order#"), ":n": attr.Int(1), ":a": attr.Str("paid"), ":b": attr.Str("open")}
	b.ReportAllocs()
	for b.Loop() {
		if ok, err := c.Eval(it, names, vals); err != nil || !ok {
			b.Fatal(ok, err)
		}
	}
}
