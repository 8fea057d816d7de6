package ddblocal_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
)

// TestPartialUpdateMatchesWholeUpdate checks UpdateItem done partly (with
// ReturnValues NONE, the engine decodes and re-encodes only the attributes
// the expressions name, plus index keys and TTL) against the same update
// done on the whole item (ALL_NEW), on twin tables: every item, the
// capacity consumed, the table's size and count, the indexes and the
// outcome (conditional check failures, validation errors) must agree.
func TestPartialUpdateMatchesWholeUpdate(t *testing.T) {
	_, db := newTable(t)
	ctx := context.Background()
	if err := ddblocal.CreateFixtureTable(ctx, db, "twin"); err != nil {
		t.Fatal(err)
	}
	items := []map[string]av{
		{"PK": s("P#1"), "SK": s("A"), "cnt": n("1"), "note": s("plain item"), "tags": ss("a", "b"),
			"m": &types.AttributeValueMemberM{Value: map[string]av{"in": n("5"), "l": &types.AttributeValueMemberL{Value: []av{s("x")}}}}},
		{"PK": s("P#2"), "SK": s("B"), "cnt": n("0"), "GSI1PK": s("G#1"), "GSI1SK": s("1"), "status": s("OPEN")},
		{"PK": s("P#3"), "SK": s("C"), "cnt": n("7"), "expiresAt": n("1900000000"), "big": s(strings.Repeat("x", 900))},
		{"PK": s("P#4"), "SK": s("D"), "GSI1PK": s("G#2")},
	}
	type update struct {
		expr, cond string
		names      map[string]string
		values     map[string]av
	}
	updates := []update{
		{expr: "SET cnt = cnt + :one", cond: "attribute_exists(PK)", values: map[string]av{":one": n("1")}},
		{expr: "SET #c = if_not_exists(#c, :zero) + :one, note = :s", names: map[string]string{"#c": "cnt"}, values: map[string]av{":zero": n("0"), ":one": n("1"), ":s": s("noted")}},
		{expr: "REMOVE note, big", cond: "size(note) > :n OR attribute_not_exists(note)", values: map[string]av{":n": n("3")}},
		{expr: "ADD tags :t, cnt :one", values: map[string]av{":t": ss("c"), ":one": n("1")}},
		{expr: "DELETE tags :t", cond: "contains(tags, :a)", values: map[string]av{":t": ss("a"), ":a": s("a")}},
		{expr: "SET m.#in = m.#in * :one", names: map[string]string{"#in": "in"}, values: map[string]av{":one": n("1")}},
		{expr: "SET m.l = list_append(m.l, :l)", values: map[string]av{":l": &types.AttributeValueMemberL{Value: []av{s("y")}}}},
		{expr: "SET GSI1PK = :g, GSI1SK = :k", cond: "cnt < :lim", values: map[string]av{":g": s("G#9"), ":k": s("9"), ":lim": n("5")}},
		{expr: "REMOVE GSI1PK", values: nil},
		{expr: "SET expiresAt = :e", values: map[string]av{":e": n("1800000000")}},
		{expr: "SET cnt = :s", cond: "cnt BETWEEN :lo AND :hi", values: map[string]av{":s": s("text"), ":lo": n("0"), ":hi": n("3")}},
		{expr: "SET big = :b", values: map[string]av{":b": s(strings.Repeat("x", 400_000))}},
		{expr: "SET GSI1SK = :bad", values: map[string]av{":bad": n("1")}},
		{expr: "SET cnt = cnt - :one", cond: "#s IN (:o, :c)", names: map[string]string{"#s": "status"}, values: map[string]av{":one": n("1"), ":o": s("OPEN"), ":c": s("CLOSED")}},
	}
	for _, tbl := range []string{"tbl", "twin"} {
		for _, it := range items {
			if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(tbl), Item: it}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i, u := range updates {
		for _, it := range items {
			name := fmt.Sprintf("update %d %q on %s", i, u.expr, it["PK"].(*types.AttributeValueMemberS).Value)
			run := func(tbl string, rv types.ReturnValue) (*dynamodb.UpdateItemOutput, error) {
				in := &dynamodb.UpdateItemInput{TableName: aws.String(tbl), Key: map[string]av{"PK": it["PK"], "SK": it["SK"]},
					UpdateExpression: aws.String(u.expr), ExpressionAttributeNames: u.names, ExpressionAttributeValues: u.values,
					ReturnValues: rv, ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes}
				if u.cond != "" {
					in.ConditionExpression = aws.String(u.cond)
				}
				return db.UpdateItem(ctx, in)
			}
			partial, perr := run("tbl", types.ReturnValueNone)
			whole, werr := run("twin", types.ReturnValueAllNew)
			if msg(perr) != msg(werr) {
				t.Fatalf("%s: partly %v, whole %v", name, perr, werr)
			}
			if perr == nil && capacity(partial.ConsumedCapacity) != capacity(whole.ConsumedCapacity) {
				t.Errorf("%s: capacity partly %s, whole %s", name, capacity(partial.ConsumedCapacity), capacity(whole.ConsumedCapacity))
			}
			if a, b := snapshot(t, db, "tbl"), snapshot(t, db, "twin"); a != b {
				t.Fatalf("%s: the tables differ:\npartly %s\nwhole  %s", name, a, b)
			}
		}
	}
}

func ss(vs ...string) av { return &types.AttributeValueMemberSS{Value: vs} }

// msg is an error's message without its request id, "" for nil.
func msg(err error) string {
	var ae interface{ ErrorMessage() string }
	if errors.As(err, &ae) {
		return ae.ErrorMessage()
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

func capacity(c *types.ConsumedCapacity) string {
	if c == nil {
		return "none"
	}
	out := fmt.Sprintf("total %v table %v", aws.ToFloat64(c.CapacityUnits), aws.ToFloat64(c.Table.CapacityUnits))
	for _, name := range []string{"GSI1", "Unprocessed", "Featured"} {
		if g, ok := c.GlobalSecondaryIndexes[name]; ok {
			out += fmt.Sprintf(" %s %v", name, aws.ToFloat64(g.CapacityUnits))
		}
	}
	return out
}

// snapshot renders a table's items, its GSI1 rows, count and size.
func snapshot(t *testing.T, db *dynamodb.Client, table string) string {
	t.Helper()
	ctx := context.Background()
	scan, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	gsi, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table), IndexName: aws.String("GSI1")})
	if err != nil {
		t.Fatal(err)
	}
	d, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("items %v gsi1 %v count %d size %d", render(scan.Items), render(gsi.Items), aws.ToInt64(d.Table.ItemCount), aws.ToInt64(d.Table.TableSizeBytes))
}

// render writes items in a fixed order: items by their rendering, and
// attributes by name.
func render(items []map[string]av) string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = renderValue(&types.AttributeValueMemberM{Value: it})
	}
	slices.Sort(out)
	return strings.Join(out, "\n")
}

func renderValue(v av) string {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return strconv.Quote(v.Value)
	case *types.AttributeValueMemberN:
		return "N" + v.Value
	case *types.AttributeValueMemberB:
		return fmt.Sprintf("B%x", v.Value)
	case *types.AttributeValueMemberBOOL:
		return strconv.FormatBool(v.Value)
	case *types.AttributeValueMemberNULL:
		return "null"
	case *types.AttributeValueMemberSS:
		return "SS" + fmt.Sprint(slices.Sorted(slices.Values(v.Value)))
	case *types.AttributeValueMemberNS:
		return "NS" + fmt.Sprint(slices.Sorted(slices.Values(v.Value)))
	case *types.AttributeValueMemberL:
		parts := make([]string, len(v.Value))
		for i, e := range v.Value {
			parts[i] = renderValue(e)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case *types.AttributeValueMemberM:
		keys := slices.Sorted(maps.Keys(v.Value))
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + ":" + renderValue(v.Value[k])
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	return fmt.Sprintf("%T", v)
}
