package expr

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
)

// fromSDK converts the SDK's attribute values, as the engine receives them
// on the wire, to attr values.
func fromSDK(t *testing.T, av types.AttributeValue) attr.Value {
	t.Helper()
	var v attr.Value
	var err error
	switch av := av.(type) {
	case *types.AttributeValueMemberS:
		v = attr.Str(av.Value)
	case *types.AttributeValueMemberN:
		v, err = attr.Num(av.Value)
	case *types.AttributeValueMemberB:
		v = attr.Bin(av.Value)
	case *types.AttributeValueMemberBOOL:
		v = attr.Boolean(av.Value)
	case *types.AttributeValueMemberNULL:
		v = attr.Null()
	case *types.AttributeValueMemberSS:
		v, err = attr.StrSet(av.Value...)
	case *types.AttributeValueMemberNS:
		v, err = attr.NumSet(av.Value...)
	case *types.AttributeValueMemberL:
		l := make([]attr.Value, len(av.Value))
		for i, e := range av.Value {
			l[i] = fromSDK(t, e)
		}
		v = attr.List(l...)
	case *types.AttributeValueMemberM:
		m := map[string]attr.Value{}
		for k, e := range av.Value {
			m[k] = fromSDK(t, e)
		}
		v = attr.Map(m)
	default:
		t.Fatalf("unhandled %T", av)
	}
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// The application builds every expression with the SDK's expression
// builder (STYLE.md), so the engine must accept exactly what it produces:
// its spacing ("size (#0)"), its parentheses around every operand of AND/OR,
// its newline-separated update clauses.
func TestSDKBuilderExpressions(t *testing.T) {
	balance, version, status := expression.Name("balance"), expression.Name("version"), expression.Name("status")
	cond := expression.And(
		expression.AttributeExists(expression.Name("PK")),
		balance.GreaterThanEqual(expression.Value(30)),
		expression.Or(version.Equal(expression.Value(7)), expression.AttributeNotExists(version)),
		expression.Not(status.In(expression.Value("void"), expression.Value("refunded"))),
		expression.Name("tags").Size().LessThan(expression.Value(10)),
		expression.Name("ref").BeginsWith("ch_"),
		expression.Name("amount").Between(expression.Value(1), expression.Value(1000)),
		expression.Name("meta.kind").AttributeType(expression.String),
		expression.Contains(expression.Name("tags"), "gold"),
	)
	upd := expression.Set(balance, balance.Minus(expression.Value(30))).
		Set(version, expression.Plus(expression.IfNotExists(version, expression.Value(0)), expression.Value(1))).
		Set(expression.Name("history"), expression.ListAppend(expression.IfNotExists(expression.Name("history"), expression.Value([]string{})), expression.Value([]string{"debit"}))).
		Remove(expression.Name("hold")).
		Add(expression.Name("count"), expression.Value(1)).
		Delete(expression.Name("flags"), expression.Value(&types.AttributeValueMemberSS{Value: []string{"new"}}))
	key := expression.Key("PK").Equal(expression.Value("acct#1")).And(expression.Key("SK").BeginsWith("txn#"))
	proj := expression.NamesList(expression.Name("balance"), expression.Name("meta.kind"), expression.Name("status"))

	b, err := expression.NewBuilder().WithCondition(cond).WithUpdate(upd).Build()
	if err != nil {
		t.Fatal(err)
	}
	values := Values{}
	for k, v := range b.Values() {
		values[k] = fromSDK(t, v)
	}
	c, err := Compile(Input{Condition: b.Condition(), Update: b.Update(), Names: b.Names(), Values: values})
	if err != nil {
		t.Fatalf("Compile(%q, %q): %v", *b.Condition(), *b.Update(), err)
	}
	tags, _ := attr.StrSet("gold", "silver")
	flags, _ := attr.StrSet("new", "vip")
	it := attr.Item{
		"PK": attr.Str("acct#1"), "balance": attr.Int(100), "version": attr.Int(7), "status": attr.Str("paid"),
		"tags": tags, "ref": attr.Str("ch_123"), "amount": attr.Int(50), "hold": attr.Boolean(true),
		"meta": attr.Map(map[string]attr.Value{"kind": attr.Str("card")}), "flags": flags,
	}
	if ok, err := c.Check(it); err != nil || !ok {
		t.Fatalf("Check(%q) = %v, %v; want true", *b.Condition(), ok, err)
	}
	next, err := c.Apply(it)
	if err != nil {
		t.Fatalf("Apply(%q): %v", *b.Update(), err)
	}
	got := fmt.Sprint(next["balance"].S, " ", next["version"].S, " ", len(next["history"].L), " ", next["count"].S, " ", next["flags"].Set)
	if want := "70 8 1 1 [vip]"; got != want {
		t.Errorf("after %q: %s, want %s", *b.Update(), got, want)
	}
	if _, ok := next["hold"]; ok {
		t.Errorf("REMOVE hold left it in place")
	}

	qb, err := expression.NewBuilder().WithKeyCondition(key).WithProjection(proj).Build()
	if err != nil {
		t.Fatal(err)
	}
	qvalues := Values{}
	for k, v := range qb.Values() {
		qvalues[k] = fromSDK(t, v)
	}
	qc, err := Compile(Input{KeyCondition: qb.KeyCondition(), Projection: qb.Projection(), Names: qb.Names(), Values: qvalues})
	if err != nil {
		t.Fatalf("Compile(%q, %q): %v", *qb.KeyCondition(), *qb.Projection(), err)
	}
	q, err := qc.KeyCondition.Resolve(qc.Names, qc.Values, KeySchema{PartitionKey: "PK", PartitionType: attr.S, SortKey: "SK", SortType: attr.S})
	if err != nil {
		t.Fatal(err)
	}
	if q.PartitionValue.S != "acct#1" || !q.Sort.Match(attr.Str("txn#9")) || q.Sort.Match(attr.Str("acct")) {
		t.Errorf("key query %+v", q)
	}
	sameItem(t, qc.Project(it), `{"balance":{"N":"100"},"meta":{"M":{"kind":{"S":"card"}}},"status":{"S":"paid"}}`)
}
