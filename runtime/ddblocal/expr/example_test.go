package expr_test

import (
	"errors"
	"fmt"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
	"github.com/oncetable/oncetable/runtime/ddblocal/expr"
)

func str(s string) *string { return &s }

func ExampleCompile() {
	c, err := expr.Compile(expr.Input{
		Condition: str("attribute_exists(PK) AND balance >= :amt"),
		Update:    str("SET balance = balance - :amt, #v = #v + :one"),
		Names:     expr.Names{"#v": "version"},
		Values:    expr.Values{":amt": attr.Int(30), ":one": attr.Int(1)},
	})
	if err != nil {
		panic(err)
	}
	item := attr.Item{"PK": attr.Str("acct#1"), "balance": attr.Int(100), "version": attr.Int(7)}

	ok, _ := c.Condition.Eval(item, c.Names, c.Values)
	next, changed, _ := c.Update.Apply(item, c.Names, c.Values)
	fmt.Println(ok, next["balance"].S, next["version"].S, len(changed))
	// Output: true 70 8 2
}

func ExampleCompile_validation() {
	_, err := expr.Compile(expr.Input{
		Update: str("SET status = :s"),
		Values: expr.Values{":s": attr.Str("paid")},
	})
	var ve *attr.ValidationError
	fmt.Println(errors.As(err, &ve), ve.Message)
	// Output: true Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: status
}

func ExampleParseUpdate() {
	u, err := expr.ParseUpdate("remove tags[0] set  a.b[2] = list_append(if_not_exists(l, :empty), :new)")
	if err != nil {
		panic(err)
	}
	fmt.Println(u)
	// Output: SET a.b[2] = list_append(if_not_exists(l, :empty), :new) REMOVE tags[0]
}

func ExampleKeyCondition_Resolve() {
	k, _ := expr.ParseKeyCondition("PK = :pk AND begins_with(SK, :prefix)")
	q, err := k.Resolve(nil, expr.Values{":pk": attr.Str("user#1"), ":prefix": attr.Str("order#")},
		expr.KeySchema{PartitionKey: "PK", PartitionType: attr.S, SortKey: "SK", SortType: attr.S})
	if err != nil {
		panic(err)
	}
	fmt.Println(q.PartitionValue.S, q.Sort.Op, q.Sort.Match(attr.Str("order#42")), q.Sort.Match(attr.Str("profile")))
	// Output: user#1 begins_with true false
}

func ExampleProjection_Apply() {
	p, _ := expr.ParseProjection("a.b, l[2], l[0]")
	item := attr.Item{
		"a": attr.Map(map[string]attr.Value{"b": attr.Int(1), "c": attr.Int(2)}),
		"l": attr.List(attr.Str("x"), attr.Str("y"), attr.Str("z")),
		"z": attr.Boolean(true),
	}
	out := p.Apply(item, nil)
	fmt.Println(len(out), len(out["a"].M), out["l"].L[0].S, out["l"].L[1].S)
	// Output: 2 1 x z
}
