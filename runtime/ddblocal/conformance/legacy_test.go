package conformance_test

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

const (
	pageLegacy           = "Legacy conditional parameters (Developer Guide)"
	pageLegacyConditions = "Writing conditions with legacy parameters (Developer Guide)"
	pageLegacyExpected   = "Expected (legacy) (Developer Guide)"
	pageLegacyUpdates    = "AttributeUpdates (legacy) (Developer Guide)"
	pageLegacyKeyConds   = "KeyConditions (legacy) (Developer Guide)"
	pageLegacyFilters    = "QueryFilter (legacy) / ScanFilter (legacy) (Developer Guide)"
	pageLegacyToGet      = "AttributesToGet (legacy) (Developer Guide)"
)

func cond(op types.ComparisonOperator, vals ...types.AttributeValue) types.Condition {
	return types.Condition{ComparisonOperator: op, AttributeValueList: vals}
}

func expect(op types.ComparisonOperator, vals ...types.AttributeValue) types.ExpectedAttributeValue {
	return types.ExpectedAttributeValue{ComparisonOperator: op, AttributeValueList: vals}
}

func TestLegacyExpected(t *testing.T) {
	doc(t, pageLegacyExpected, `Expected is a map of attribute/condition pairs: an attribute name, a comparison operator and one or more values; by default all conditions must be true (AND), ConditionalOperator OR makes one enough. Exists false: DynamoDB assumes the attribute does not exist and checks that; Value alone (Exists true) checks that the attribute exists and equals Value. A false condition fails the write with ConditionalCheckFailedException.`)
	each(t, func(t *testing.T, tg *target) {
		tbl := hashTable(t, tg)
		c := tg.client
		key := item{"pk": s("e1")}
		absent := map[string]types.ExpectedAttributeValue{"pk": {Exists: aws.Bool(false)}}
		_, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: &tbl, Item: item{"pk": s("e1"), "n": n("5"), "tag": s("hello-world")}, Expected: absent})
		noErr(t, err, "PutItem Exists false on a new item")
		_, err = c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: &tbl, Item: item{"pk": s("e1")}, Expected: absent})
		wantErr(t, err, "ConditionalCheckFailedException", "The conditional request failed")

		checks := []struct {
			name     string
			expected map[string]types.ExpectedAttributeValue
			or       bool
			ok       bool
		}{
			{"Value alone", map[string]types.ExpectedAttributeValue{"n": {Value: n("5.0")}}, false, true},
			{"Exists true and Value", map[string]types.ExpectedAttributeValue{"n": {Exists: aws.Bool(true), Value: n("6")}}, false, false},
			{"GT", map[string]types.ExpectedAttributeValue{"n": expect(types.ComparisonOperatorGt, n("4"))}, false, true},
			{"BETWEEN", map[string]types.ExpectedAttributeValue{"n": expect(types.ComparisonOperatorBetween, n("6"), n("9"))}, false, false},
			{"IN", map[string]types.ExpectedAttributeValue{"n": expect(types.ComparisonOperatorIn, n("1"), n("5"))}, false, true},
			{"BEGINS_WITH", map[string]types.ExpectedAttributeValue{"tag": expect(types.ComparisonOperatorBeginsWith, s("hello"))}, false, true},
			{"NOT_CONTAINS", map[string]types.ExpectedAttributeValue{"tag": expect(types.ComparisonOperatorNotContains, s("world"))}, false, false},
			{"NULL", map[string]types.ExpectedAttributeValue{"gone": expect(types.ComparisonOperatorNull)}, false, true},
			{"NE on a missing attribute", map[string]types.ExpectedAttributeValue{"gone": expect(types.ComparisonOperatorNe, s("x"))}, false, true},
			{"AND", map[string]types.ExpectedAttributeValue{"n": {Value: n("5")}, "tag": {Value: s("nope")}}, false, false},
			{"OR", map[string]types.ExpectedAttributeValue{"n": {Value: n("5")}, "tag": {Value: s("nope")}}, true, true},
		}
		for _, ck := range checks {
			// The checks run against e1 through an UpdateItem that changes
			// nothing but a counter, so each sees the same item.
			up := &dynamodb.UpdateItemInput{TableName: &tbl, Key: key, Expected: ck.expected,
				AttributeUpdates: map[string]types.AttributeValueUpdate{"hits": {Action: types.AttributeActionAdd, Value: n("1")}}}
			if ck.or {
				up.ConditionalOperator = types.ConditionalOperatorOr
			}
			_, err := c.UpdateItem(ctx(t), up)
			if ck.ok {
				noErr(t, err, ck.name)
			} else {
				wantErr(t, err, "ConditionalCheckFailedException")
			}
		}
		got := get(t, tg, tbl, key)
		wantItem(t, got, item{"pk": s("e1"), "n": n("5"), "tag": s("hello-world"), "hits": n("7")})

		_, err = c.DeleteItem(ctx(t), &dynamodb.DeleteItemInput{TableName: &tbl, Key: key,
			Expected: map[string]types.ExpectedAttributeValue{"n": expect(types.ComparisonOperatorLt, n("5"))}})
		wantErr(t, err, "ConditionalCheckFailedException")
		_, err = c.DeleteItem(ctx(t), &dynamodb.DeleteItemInput{TableName: &tbl, Key: key,
			Expected: map[string]types.ExpectedAttributeValue{"n": expect(types.ComparisonOperatorLe, n("5"))}})
		noErr(t, err, "DeleteItem with a true Expected")
		if got := get(t, tg, tbl, key); got != nil {
			t.Fatalf("item still there: %v", show(got))
		}
	})
}

func TestLegacyAttributeUpdates(t *testing.T) {
	doc(t, pageLegacyUpdates, `AttributeUpdates: PUT (the default) adds the attribute or replaces its value; DELETE without a value removes the attribute, DELETE with a set subtracts it from the old set; ADD adds a number to a number attribute (creating it at the value when absent) or a set to a set. A new item is created with the key and the attributes when none exists. Key attributes cannot be updated.`)
	each(t, func(t *testing.T, tg *target) {
		tbl := hashTable(t, tg)
		c := tg.client
		key := item{"pk": s("u1")}
		put(t, tg, tbl, item{"pk": s("u1"), "name": s("old"), "count": n("1"), "tags": ss("a", "b", "c"), "extra": s("x")})
		out, err := c.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: &tbl, Key: key, ReturnValues: types.ReturnValueUpdatedNew,
			AttributeUpdates: map[string]types.AttributeValueUpdate{
				"name":  {Value: s("new")},
				"count": {Action: types.AttributeActionAdd, Value: n("9")},
				"tags":  {Action: types.AttributeActionDelete, Value: ss("b")},
				"more":  {Action: types.AttributeActionAdd, Value: ss("z")},
				"extra": {Action: types.AttributeActionDelete},
			}})
		noErr(t, err, "UpdateItem AttributeUpdates")
		wantItem(t, out.Attributes, item{"name": s("new"), "count": n("10"), "tags": ss("a", "c"), "more": ss("z")})
		wantItem(t, get(t, tg, tbl, key), item{"pk": s("u1"), "name": s("new"), "count": n("10"), "tags": ss("a", "c"), "more": ss("z")})

		_, err = c.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: &tbl, Key: item{"pk": s("u2")},
			AttributeUpdates: map[string]types.AttributeValueUpdate{"count": {Action: types.AttributeActionAdd, Value: n("3")}}})
		noErr(t, err, "UpdateItem AttributeUpdates on a new item")
		wantItem(t, get(t, tg, tbl, item{"pk": s("u2")}), item{"pk": s("u2"), "count": n("3")})

		_, err = c.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: &tbl, Key: key,
			AttributeUpdates: map[string]types.AttributeValueUpdate{"pk": {Value: s("other")}}})
		wantValidation(t, err, "Cannot update attribute pk. This attribute is part of the key")
		_, err = c.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: &tbl, Key: key,
			AttributeUpdates: map[string]types.AttributeValueUpdate{"name": {Action: types.AttributeActionPut}}})
		wantValidation(t, err, "Only DELETE action is allowed when no attribute value is specified")
		_, err = c.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: &tbl, Key: key,
			AttributeUpdates: map[string]types.AttributeValueUpdate{"name": {Action: types.AttributeActionAdd, Value: s("x")}}})
		wantValidation(t, err, "ADD action is not supported for the type S")
		wantItem(t, get(t, tg, tbl, key), item{"pk": s("u1"), "name": s("new"), "count": n("10"), "tags": ss("a", "c"), "more": ss("z")})
	})
}

// legacyQueryItems are the items of one partition the legacy reads use.
func legacyQueryItems(t *testing.T, tg *target) string {
	t.Helper()
	tbl := compositeTable(t, tg, types.ScalarAttributeTypeS)
	for i, sk := range []string{"alpha", "beta", "delta", "epsilon", "gamma"} {
		put(t, tg, tbl, item{"pk": s("p"), "sk": s(sk), "val": n(string(rune('1' + i))), "tag": s(sk + "-tag")})
	}
	return tbl
}

func TestLegacyKeyConditionsAndQueryFilter(t *testing.T) {
	doc(t, pageLegacyKeyConds+" / "+pageLegacyFilters, `KeyConditions: the partition key takes EQ; the sort key may take EQ, LE, LT, GE, GT, BEGINS_WITH or BETWEEN. QueryFilter is applied after the items are read (ScannedCount counts them all) and cannot name key attributes. Comparison operators other than these are not indexable.`)
	each(t, func(t *testing.T, tg *target) {
		tbl := legacyQueryItems(t, tg)
		c := tg.client
		pk := cond(types.ComparisonOperatorEq, s("p"))
		cases := []struct {
			name string
			sk   *types.Condition
			want []string
		}{
			{"partition only", nil, []string{"alpha", "beta", "delta", "epsilon", "gamma"}},
			{"EQ", &types.Condition{ComparisonOperator: types.ComparisonOperatorEq, AttributeValueList: []types.AttributeValue{s("beta")}}, []string{"beta"}},
			{"LT", &types.Condition{ComparisonOperator: types.ComparisonOperatorLt, AttributeValueList: []types.AttributeValue{s("beta")}}, []string{"alpha"}},
			{"LE", &types.Condition{ComparisonOperator: types.ComparisonOperatorLe, AttributeValueList: []types.AttributeValue{s("beta")}}, []string{"alpha", "beta"}},
			{"GT", &types.Condition{ComparisonOperator: types.ComparisonOperatorGt, AttributeValueList: []types.AttributeValue{s("delta")}}, []string{"epsilon", "gamma"}},
			{"GE", &types.Condition{ComparisonOperator: types.ComparisonOperatorGe, AttributeValueList: []types.AttributeValue{s("delta")}}, []string{"delta", "epsilon", "gamma"}},
			{"BETWEEN", &types.Condition{ComparisonOperator: types.ComparisonOperatorBetween, AttributeValueList: []types.AttributeValue{s("beta"), s("epsilon")}}, []string{"beta", "delta", "epsilon"}},
			{"BEGINS_WITH", &types.Condition{ComparisonOperator: types.ComparisonOperatorBeginsWith, AttributeValueList: []types.AttributeValue{s("al")}}, []string{"alpha"}},
		}
		for _, kc := range cases {
			conds := map[string]types.Condition{"pk": pk}
			if kc.sk != nil {
				conds["sk"] = *kc.sk
			}
			out, err := c.Query(ctx(t), &dynamodb.QueryInput{TableName: &tbl, KeyConditions: conds, ConsistentRead: aws.Bool(true)})
			noErr(t, err, "Query KeyConditions "+kc.name)
			if got := sortKeys(out.Items, "sk"); !equalStrings(got, kc.want) {
				t.Errorf("%s: got %v, want %v", kc.name, got, kc.want)
			}
		}

		out, err := c.Query(ctx(t), &dynamodb.QueryInput{TableName: &tbl, KeyConditions: map[string]types.Condition{"pk": pk},
			QueryFilter:         map[string]types.Condition{"val": cond(types.ComparisonOperatorGe, n("4")), "tag": cond(types.ComparisonOperatorContains, s("alpha"))},
			ConditionalOperator: types.ConditionalOperatorOr, ScanIndexForward: aws.Bool(false)})
		noErr(t, err, "Query QueryFilter OR")
		if got := sortKeys(out.Items, "sk"); !equalStrings(got, []string{"gamma", "epsilon", "alpha"}) || out.ScannedCount != 5 {
			t.Errorf("QueryFilter OR: got %v (scanned %d), want [gamma epsilon alpha] (scanned 5)", got, out.ScannedCount)
		}

		_, err = c.Query(ctx(t), &dynamodb.QueryInput{TableName: &tbl, KeyConditions: map[string]types.Condition{"pk": pk},
			QueryFilter: map[string]types.Condition{"sk": cond(types.ComparisonOperatorEq, s("beta"))}})
		wantValidation(t, err, "QueryFilter can only contain non-primary key attributes: Primary key attribute: sk")
		_, err = c.Query(ctx(t), &dynamodb.QueryInput{TableName: &tbl, KeyConditions: map[string]types.Condition{"pk": pk,
			"sk": cond(types.ComparisonOperatorContains, s("a"))}})
		wantValidation(t, err, "Attempted conditional constraint is not an indexable operation")
		_, err = c.Query(ctx(t), &dynamodb.QueryInput{TableName: &tbl, KeyConditions: map[string]types.Condition{"sk": cond(types.ComparisonOperatorEq, s("beta"))}})
		wantValidation(t, err, "Query condition missed key schema element: pk")
		_, err = c.Query(ctx(t), &dynamodb.QueryInput{TableName: &tbl, KeyConditions: map[string]types.Condition{"pk": cond(types.ComparisonOperatorEq, n("1"))}})
		wantValidation(t, err, "Condition parameter type does not match schema type")
	})
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestLegacyKeyConditionsWithExpressions(t *testing.T) {
	doc(t, pageLegacy, `DynamoDB accepts KeyConditions together with FilterExpression and ProjectionExpression (guregu/dynamo sends every Query so), but refuses KeyConditions with KeyConditionExpression, and every other legacy parameter with any expression parameter: "Can not use both expression and non-expression parameters in the same request".`)
	each(t, func(t *testing.T, tg *target) {
		tbl := legacyQueryItems(t, tg)
		c := tg.client
		out, err := c.Query(ctx(t), &dynamodb.QueryInput{TableName: &tbl,
			KeyConditions:             map[string]types.Condition{"pk": cond(types.ComparisonOperatorEq, s("p")), "sk": cond(types.ComparisonOperatorGt, s("beta"))},
			FilterExpression:          aws.String("#v < :max"),
			ProjectionExpression:      aws.String("sk, #v"),
			ExpressionAttributeNames:  map[string]string{"#v": "val"},
			ExpressionAttributeValues: item{":max": n("5")},
		})
		noErr(t, err, "Query KeyConditions + FilterExpression + ProjectionExpression")
		if len(out.Items) != 2 || out.ScannedCount != 3 {
			t.Fatalf("got %d items (scanned %d), want 2 (scanned 3)", len(out.Items), out.ScannedCount)
		}
		wantItem(t, out.Items[0], item{"sk": s("delta"), "val": n("3")})

		_, err = c.Query(ctx(t), &dynamodb.QueryInput{TableName: &tbl,
			KeyConditions:             map[string]types.Condition{"pk": cond(types.ComparisonOperatorEq, s("p"))},
			KeyConditionExpression:    aws.String("pk = :p"),
			ExpressionAttributeValues: item{":p": s("p")},
		})
		wantValidation(t, err, "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {KeyConditions} Expression parameters: {KeyConditionExpression}")
		_, err = c.Query(ctx(t), &dynamodb.QueryInput{TableName: &tbl,
			KeyConditions:             map[string]types.Condition{"pk": cond(types.ComparisonOperatorEq, s("p"))},
			QueryFilter:               map[string]types.Condition{"val": cond(types.ComparisonOperatorEq, n("1"))},
			FilterExpression:          aws.String("val = :v"),
			ExpressionAttributeValues: item{":v": n("1")},
		})
		wantValidation(t, err, "Non-expression parameters: {QueryFilter} Expression parameters: {FilterExpression}")
		_, err = c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: &tbl, Item: item{"pk": s("p"), "sk": s("zeta")},
			Expected:            map[string]types.ExpectedAttributeValue{"pk": {Exists: aws.Bool(false)}},
			ConditionExpression: aws.String("attribute_not_exists(pk)"),
		})
		wantValidation(t, err, "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {Expected} Expression parameters: {ConditionExpression}")
		_, err = c.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: &tbl, Key: item{"pk": s("p"), "sk": s("zeta")},
			AttributeUpdates:          map[string]types.AttributeValueUpdate{"a": {Value: s("x")}},
			UpdateExpression:          aws.String("SET a = :v"),
			ExpressionAttributeValues: item{":v": s("x")},
		})
		wantValidation(t, err, "Non-expression parameters: {AttributeUpdates} Expression parameters: {UpdateExpression}")
		_, err = c.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: &tbl, Key: item{"pk": s("p"), "sk": s("beta")},
			AttributesToGet: []string{"val"}, ProjectionExpression: aws.String("val")})
		wantValidation(t, err, "Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}")
		if got := get(t, tg, tbl, item{"pk": s("p"), "sk": s("zeta")}); got != nil {
			t.Fatalf("a refused write wrote %v", show(got))
		}
	})
}

func TestLegacyScanFilterAndAttributesToGet(t *testing.T) {
	doc(t, pageLegacyFilters+" / "+pageLegacyToGet, `ScanFilter evaluates conditions after the items are read, joined by ConditionalOperator. AttributesToGet names the top-level attributes to return; key attributes are returned only when named; an attribute not found does not appear in the result.`)
	each(t, func(t *testing.T, tg *target) {
		tbl := legacyQueryItems(t, tg)
		c := tg.client
		out, err := c.Scan(ctx(t), &dynamodb.ScanInput{TableName: &tbl,
			ScanFilter: map[string]types.Condition{
				"tag": cond(types.ComparisonOperatorBeginsWith, s("e")),
				"val": cond(types.ComparisonOperatorIn, n("1"), n("2")),
			},
			ConditionalOperator: types.ConditionalOperatorOr,
			AttributesToGet:     []string{"sk", "missing"},
		})
		noErr(t, err, "Scan ScanFilter OR with AttributesToGet")
		if len(out.Items) != 3 || out.ScannedCount != 5 {
			t.Fatalf("got %d items (scanned %d), want 3 (scanned 5)", len(out.Items), out.ScannedCount)
		}
		for _, it := range out.Items {
			if len(it) != 1 || it["sk"] == nil {
				t.Errorf("AttributesToGet [sk missing] returned %v", show(it))
			}
		}
		g, err := c.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: &tbl, Key: item{"pk": s("p"), "sk": s("beta")}, AttributesToGet: []string{"val", "tag"}})
		noErr(t, err, "GetItem AttributesToGet")
		wantItem(t, g.Item, item{"val": n("2"), "tag": s("beta-tag")})
		bg, err := c.BatchGetItem(ctx(t), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
			tbl: {Keys: []item{{"pk": s("p"), "sk": s("gamma")}}, AttributesToGet: []string{"pk"}},
		}})
		noErr(t, err, "BatchGetItem AttributesToGet")
		if got := bg.Responses[tbl]; len(got) != 1 || len(got[0]) != 1 || got[0]["pk"] == nil {
			t.Fatalf("BatchGetItem AttributesToGet [pk] returned %v", got)
		}
		_, err = c.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: &tbl, Key: item{"pk": s("p"), "sk": s("beta")}, AttributesToGet: []string{"val", "val"}})
		wantValidation(t, err, "Duplicate value in attribute name: val")
	})
}

func TestLegacyBadOperatorChangesNothing(t *testing.T) {
	doc(t, pageLegacyConditions, `The comparison operators are EQ, NE, LE, LT, GE, GT, NOT_NULL, NULL, CONTAINS, NOT_CONTAINS, BEGINS_WITH, IN and BETWEEN, each with a fixed number of values (NULL and NOT_NULL none, BETWEEN two, IN one or more); any other operator, or a wrong number of values, is a ValidationException and the write is not made.`)
	each(t, func(t *testing.T, tg *target) {
		tbl := hashTable(t, tg)
		c := tg.client
		key := item{"pk": s("b1")}
		put(t, tg, tbl, item{"pk": s("b1"), "v": n("1")})
		updates := map[string]types.AttributeValueUpdate{"v": {Value: n("2")}}
		_, err := c.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: &tbl, Key: key, AttributeUpdates: updates,
			Expected: map[string]types.ExpectedAttributeValue{"v": expect("EQUALS", n("1"))}})
		wantValidation(t, err, "Member must satisfy enum value set: [IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS]")
		_, err = c.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: &tbl, Key: key, AttributeUpdates: updates,
			Expected: map[string]types.ExpectedAttributeValue{"v": expect(types.ComparisonOperatorBetween, n("1"))}})
		wantValidation(t, err, "Invalid number of argument(s) for the BETWEEN ComparisonOperator")
		_, err = c.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: &tbl, Key: key, AttributeUpdates: updates,
			Expected: map[string]types.ExpectedAttributeValue{"v": expect(types.ComparisonOperatorNotNull, n("1"))}})
		wantValidation(t, err, "Invalid number of argument(s) for the NOT_NULL ComparisonOperator")
		_, err = c.Scan(ctx(t), &dynamodb.ScanInput{TableName: &tbl, ScanFilter: map[string]types.Condition{"v": cond(types.ComparisonOperatorLt, ss("x"))}})
		wantValidation(t, err, "ComparisonOperator LT is not valid for SS AttributeValue type")
		wantItem(t, get(t, tg, tbl, key), item{"pk": s("b1"), "v": n("1")})
	})
}

const pageCondition = "Condition (DynamoDB API Reference), https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Condition.html"

func TestLegacyFilterEqualityOnAnyType(t *testing.T) {
	doc(t, pageCondition, "EQ : Equal. EQ is supported for all data types, including lists and maps; NE : Not equal. NE is supported for all data types, including lists and maps. In QueryFilter and ScanFilter, EQ and NE on a BOOL, NULL, list or map value compare the whole value; an item whose value is of another type does not match")
	each(t, func(t *testing.T, tg *target) {
		tbl := compositeTable(t, tg, types.ScalarAttributeTypeS)
		c := tg.client
		l := func(vs ...types.AttributeValue) types.AttributeValue { return &types.AttributeValueMemberL{Value: vs} }
		bo := func(v bool) types.AttributeValue { return &types.AttributeValueMemberBOOL{Value: v} }
		m := func(k string, v types.AttributeValue) types.AttributeValue {
			return &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{k: v}}
		}
		put(t, tg, tbl, item{"pk": s("p"), "sk": s("1"), "flag": bo(true), "tags": l(s("a"), n("1")), "doc": m("k", s("v"))})
		put(t, tg, tbl, item{"pk": s("p"), "sk": s("2"), "flag": bo(false), "tags": l(s("a")), "doc": m("k", s("w"))})
		put(t, tg, tbl, item{"pk": s("p"), "sk": s("3"), "flag": s("true"), "tags": s("a")})
		keys := func(items []map[string]types.AttributeValue) []string {
			var out []string
			for _, it := range items {
				out = append(out, it["sk"].(*types.AttributeValueMemberS).Value)
			}
			sort.Strings(out)
			return out
		}
		for _, tt := range []struct {
			name string
			cond types.Condition
			want []string
		}{
			{"EQ BOOL", cond(types.ComparisonOperatorEq, bo(true)), []string{"1"}},
			{"NE BOOL", cond(types.ComparisonOperatorNe, bo(true)), []string{"2", "3"}},
			{"EQ list", cond(types.ComparisonOperatorEq, l(s("a"), n("1"))), []string{"1"}},
			{"NE list", cond(types.ComparisonOperatorNe, l(s("a"))), []string{"1", "3"}},
			{"EQ map", cond(types.ComparisonOperatorEq, m("k", s("w"))), []string{"2"}},
		} {
			t.Run(tt.name, func(t *testing.T) {
				attr := map[string]string{"EQ BOOL": "flag", "NE BOOL": "flag", "EQ list": "tags", "NE list": "tags", "EQ map": "doc"}[tt.name]
				sc, err := c.Scan(ctx(t), &dynamodb.ScanInput{TableName: &tbl, ScanFilter: map[string]types.Condition{attr: tt.cond}})
				noErr(t, err, "Scan "+tt.name)
				if got := keys(sc.Items); !slices.Equal(got, tt.want) {
					t.Errorf("ScanFilter %s: %v, want %v", tt.name, got, tt.want)
				}
				q, err := c.Query(ctx(t), &dynamodb.QueryInput{TableName: &tbl,
					KeyConditions: map[string]types.Condition{"pk": cond(types.ComparisonOperatorEq, s("p"))},
					QueryFilter:   map[string]types.Condition{attr: tt.cond}})
				noErr(t, err, "Query "+tt.name)
				if got := keys(q.Items); !slices.Equal(got, tt.want) {
					t.Errorf("QueryFilter %s: %v, want %v", tt.name, got, tt.want)
				}
			})
		}
		_, err := c.Scan(ctx(t), &dynamodb.ScanInput{TableName: &tbl, ScanFilter: map[string]types.Condition{"flag": cond(types.ComparisonOperatorLt, bo(true))}})
		wantValidation(t, err, "ComparisonOperator LT is not valid for BOOL AttributeValue type")
	})
}

const pageLegacyConditionalOperator = "ConditionalOperator (legacy) (Developer Guide)"

// TestConditionalOperatorNeedsTwoConditions: ConditionalOperator joins the
// conditions of Expected, QueryFilter or ScanFilter, so it needs two of
// them; with none (the parameter absent or {}) or one the request is
// refused, before the table is read, and nothing is written.
func TestConditionalOperatorNeedsTwoConditions(t *testing.T) {
	doc(t, pageLegacyConditionalOperator, "A logical operator to apply to the conditions in the Expected, QueryFilter or ScanFilter map: AND (all conditions) or OR (at least one)")
	const (
		without = "ConditionalOperator cannot be used without Filter or Expected"
		one     = "ConditionalOperator can only be used when Filter or Expected has two or more elements"
	)
	each(t, func(t *testing.T, tg *target) {
		name := hashTable(t, tg)
		cond := `{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"x"}]}`
		for _, tc := range []struct {
			what, op, body, msg string
		}{
			{"PutItem, no Expected", "PutItem", `{"TableName":%q,"Item":{"pk":{"S":"k"}},"ConditionalOperator":"AND"}`, without},
			{"PutItem, Expected {}", "PutItem", `{"TableName":%q,"Item":{"pk":{"S":"k"}},"Expected":{},"ConditionalOperator":"OR"}`, without},
			{"PutItem, one condition", "PutItem", `{"TableName":%q,"Item":{"pk":{"S":"k"}},"Expected":{"a":` + cond + `},"ConditionalOperator":"AND"}`, one},
			{"UpdateItem, AttributeUpdates only", "UpdateItem", `{"TableName":%q,"Key":{"pk":{"S":"k"}},"AttributeUpdates":{"a":{"Action":"PUT","Value":{"S":"v"}}},"ConditionalOperator":"AND"}`, without},
			{"DeleteItem, one condition", "DeleteItem", `{"TableName":%q,"Key":{"pk":{"S":"k"}},"Expected":{"a":` + cond + `},"ConditionalOperator":"OR"}`, one},
			{"Scan, ScanFilter {}", "Scan", `{"TableName":%q,"ScanFilter":{},"ConditionalOperator":"AND"}`, without},
			{"Scan, one condition", "Scan", `{"TableName":%q,"ScanFilter":{"a":` + cond + `},"ConditionalOperator":"AND"}`, one},
			{"Query, KeyConditions only", "Query", `{"TableName":%q,"KeyConditions":{"pk":` + cond + `},"ConditionalOperator":"AND"}`, without},
		} {
			r := rawCall(t, tg, targetPrefix+tc.op, jsonType, fmt.Sprintf(tc.body, name))
			eb := decodeError(t, r)
			if r.status != 400 || !strings.HasSuffix(eb.Type, "#ValidationException") || eb.Message != tc.msg {
				t.Errorf("%s: %d %s %q, want ValidationException %q", tc.what, r.status, eb.Type, eb.Message, tc.msg)
			}
		}
		// Two conditions are accepted.
		r := rawCall(t, tg, targetPrefix+"PutItem", jsonType, fmt.Sprintf(`{"TableName":%q,"Item":{"pk":{"S":"k"}},"Expected":{"a":{"Exists":false},"b":{"Exists":false}},"ConditionalOperator":"AND"}`, name))
		if r.status != 200 {
			t.Fatalf("PutItem with two Expected conditions: %d %s", r.status, r.body)
		}
		out, err := tg.client.Scan(ctx(t), &dynamodb.ScanInput{TableName: aws.String(name), ConsistentRead: aws.Bool(true)})
		noErr(t, err, "Scan")
		if out.Count != 1 {
			t.Errorf("the table holds %d items, want the one accepted PutItem", out.Count)
		}
	})
}
