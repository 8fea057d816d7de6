package conformance_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestUpdateRemoveOnMissingItemCreatesNothing(t *testing.T) {
	doc(t, pageUpdateItem, `AttributeUpdates: "If no item with the specified Key is found: ... DELETE - Nothing happens; there is no attribute to delete." The same holds for an UpdateExpression whose actions are only REMOVE (DynamoDB's observed behaviour, as in the public conformance suite run against it): on a missing item it succeeds, creates no item, returns no attributes and writes no stream record (DynamoDB Streams writes a record only when an item is added, updated or deleted); SET, ADD and an empty update still create the item`)
	each(t, func(t *testing.T, tg *target) {
		table, arn := streamTable(t, tg, types.StreamViewTypeNewAndOldImages)
		c := tg.client
		for _, c2 := range []struct{ key, update string }{
			{"x", "REMOVE v"},
			{"y", "REMOVE v, w"},
			{"z", "REMOVE a.b"},
			{"l", "REMOVE a[0]"},
		} {
			out, err := c.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: item{"pk": s(c2.key)},
				UpdateExpression: aws.String(c2.update), ReturnValues: types.ReturnValueAllNew})
			noErr(t, err, "UpdateItem "+c2.update+" of a missing item")
			if len(out.Attributes) != 0 {
				t.Errorf("%s of a missing item returned %s, want no attributes", c2.update, show(out.Attributes))
			}
			if got := get(t, tg, table, item{"pk": s(c2.key)}); got != nil {
				t.Errorf("%s of a missing item created %s", c2.update, show(got))
			}
		}
		_, err := c.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: item{"pk": s("legacy")},
			AttributeUpdates: map[string]types.AttributeValueUpdate{"v": {Action: types.AttributeActionDelete}}})
		noErr(t, err, "UpdateItem AttributeUpdates DELETE of a missing item")
		if got := get(t, tg, table, item{"pk": s("legacy")}); got != nil {
			t.Errorf("AttributeUpdates DELETE of a missing item created %s", show(got))
		}
		_, err = c.TransactWriteItems(ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Update: &types.Update{TableName: aws.String(table), Key: item{"pk": s("tx")}, UpdateExpression: aws.String("REMOVE v")}},
			{Put: &types.Put{TableName: aws.String(table), Item: item{"pk": s("p"), "v": s("1")}}},
		}})
		noErr(t, err, "TransactWriteItems with a REMOVE of a missing item")
		if got := get(t, tg, table, item{"pk": s("tx")}); got != nil {
			t.Errorf("a transaction's REMOVE of a missing item created %s", show(got))
		}
		// A REMOVE of an existing item still writes; SET creates.
		_, err = c.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: item{"pk": s("p")},
			UpdateExpression: aws.String("REMOVE v")})
		noErr(t, err, "UpdateItem REMOVE of an existing item")
		_, err = c.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: item{"pk": s("k")},
			UpdateExpression: aws.String("SET v = :v REMOVE w"), ExpressionAttributeValues: item{":v": s("1")}})
		noErr(t, err, "UpdateItem SET of a missing item")
		if got := get(t, tg, table, item{"pk": s("k")}); got == nil {
			t.Errorf("SET of a missing item created nothing")
		}
		recs := readStream(t, tg, arn, 3)
		wantSummaries(t, recs, "INSERT p ->1", "MODIFY p 1->", "INSERT k ->1")
	})
}
