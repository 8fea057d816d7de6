package conformance_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Cases found by real clients (guregu/dynamo's test suite among them).

const pageListElements = "Using update expressions in DynamoDB — SET: modifying or adding item attributes (Developer Guide)"

func TestUpdateNewItemReadsItsKey(t *testing.T) {
	doc(t, pageUpdateItem, `UpdateItem edits an existing item's attributes, or adds a new item to the table if it does not already exist. The new item starts as the item with the given primary key, so a SET right-hand side may read the key attributes: SET b = a and SET b = if_not_exists(b, a), where a is the partition key, give {a, b: a}.`)
	each(t, func(t *testing.T, tg *target) {
		tbl := createTable(t, tg, tableInput(keyDef{"a", types.ScalarAttributeTypeS}, nil))
		for i, upd := range []string{"SET b = a", "SET b = if_not_exists(b, a)", "SET b = a, c = if_not_exists(c, a)"} {
			key := item{"a": s(fmt.Sprintf("k%d", i))}
			out, err := tg.client.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: &tbl, Key: key,
				UpdateExpression: aws.String(upd), ReturnValues: types.ReturnValueAllNew})
			noErr(t, err, upd+" on a new item")
			want := item{"a": key["a"], "b": key["a"]}
			if i == 2 {
				want["c"] = key["a"]
			}
			wantItem(t, out.Attributes, want)
			wantItem(t, get(t, tg, tbl, key), want)
		}
		// A non-key attribute of a new item still does not exist.
		_, err := tg.client.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: &tbl, Key: item{"a": s("k9")},
			UpdateExpression: aws.String("SET b = nope")})
		wantValidation(t, err, "The provided expression refers to an attribute that does not exist in the item")
	})
}

func TestTransactReplayReportsReadCapacity(t *testing.T) {
	doc(t, pageTransactWrite, `ClientRequestToken: If the ReturnConsumedCapacity parameter is set, then the initial TransactWriteItems call returns the amount of write capacity units consumed in making the changes. Subsequent TransactWriteItems calls with the same client token return the number of read capacity units consumed in reading the item.`)
	each(t, func(t *testing.T, tg *target) {
		tbl := hashTable(t, tg)
		in := &dynamodb.TransactWriteItemsInput{
			ClientRequestToken:     aws.String(fmt.Sprintf("replay-%d-%s", time.Now().UnixNano(), tg.name)),
			ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
			TransactItems: []types.TransactWriteItem{
				txPut(tbl, item{"pk": s("r1"), "v": s("one")}),
				txPut(tbl, item{"pk": s("r2"), "v": s("two")}),
				txCheck(tbl, item{"pk": s("r3")}, "attribute_not_exists(pk)", nil),
			},
		}
		first, err := tg.client.TransactWriteItems(ctx(t), in)
		noErr(t, err, "first call")
		again, err := tg.client.TransactWriteItems(ctx(t), in)
		noErr(t, err, "replay")
		if len(first.ConsumedCapacity) != 1 || len(again.ConsumedCapacity) != 1 {
			t.Fatalf("ConsumedCapacity: first %d entries, replay %d, want 1 each", len(first.ConsumedCapacity), len(again.ConsumedCapacity))
		}
		f, r := first.ConsumedCapacity[0], again.ConsumedCapacity[0]
		if aws.ToFloat64(f.WriteCapacityUnits) <= 0 || aws.ToFloat64(f.CapacityUnits) <= 0 {
			t.Errorf("first call: WCU %v, total %v, want write units", aws.ToFloat64(f.WriteCapacityUnits), aws.ToFloat64(f.CapacityUnits))
		}
		if aws.ToFloat64(r.ReadCapacityUnits) <= 0 || aws.ToFloat64(r.WriteCapacityUnits) != 0 || aws.ToFloat64(r.CapacityUnits) != aws.ToFloat64(r.ReadCapacityUnits) {
			t.Errorf("replay: RCU %v, WCU %v, total %v, want read units only",
				aws.ToFloat64(r.ReadCapacityUnits), aws.ToFloat64(r.WriteCapacityUnits), aws.ToFloat64(r.CapacityUnits))
		}
		if aws.ToString(r.TableName) != tbl {
			t.Errorf("replay: table %q, want %q", aws.ToString(r.TableName), tbl)
		}
	})
}

func TestListSetsPastTheEndAppendInIndexOrder(t *testing.T) {
	doc(t, pageListElements, `When you use SET to update a list element, the contents of that element are replaced with the new data that you specify. If the element doesn't already exist, SET appends the new element to the end of the list. If you add multiple elements in a single SET operation, the elements are sorted in order by element number.`)
	each(t, func(t *testing.T, tg *target) {
		tbl := hashTable(t, tg)
		key := item{"pk": s("list")}
		vals := item{":a": s("a"), ":b": s("b"), ":c": s("c")}
		cases := []struct {
			upd  string
			want types.AttributeValue
		}{
			{"SET l[9] = :a, l[5] = :b, l[2] = :c", l(s("x"), s("y"), s("c"), s("b"), s("a"))},
			{"SET l[5] = :a, l[9] = :b, l[7] = :c", l(s("x"), s("y"), s("a"), s("c"), s("b"))},
			{"SET l[7] = :a, l[1] = :b, l[3] = :c", l(s("x"), s("b"), s("c"), s("a"))},
		}
		for _, tc := range cases {
			put(t, tg, tbl, item{"pk": s("list"), "l": l(s("x"), s("y"))})
			_, err := tg.client.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: &tbl, Key: key,
				UpdateExpression: aws.String(tc.upd), ExpressionAttributeValues: vals})
			noErr(t, err, tc.upd)
			wantItem(t, get(t, tg, tbl, key), item{"pk": s("list"), "l": tc.want})
		}
	})
}
