package conformance_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
)

const (
	pageItemCollections = "Item collections in Local Secondary Indexes (Developer Guide)"
	pageICM             = "ItemCollectionMetrics (DynamoDB API Reference)"
)

// lsiTable creates a table keyed by pk and sk (S) with a local secondary
// index lsi on lsk (S), projecting all attributes.
func lsiTable(t *testing.T, tg *target) string {
	t.Helper()
	in := tableInput(keyDef{"pk", types.ScalarAttributeTypeS}, &keyDef{"sk", types.ScalarAttributeTypeS})
	in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String("lsk"), AttributeType: types.ScalarAttributeTypeS})
	in.LocalSecondaryIndexes = []types.LocalSecondaryIndex{{
		IndexName: aws.String("lsi"),
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("lsk"), KeyType: types.KeyTypeRange},
		},
		Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
	}}
	return createTable(t, tg, in)
}

// wantCollection checks ItemCollectionMetrics for the partition pk.
func wantCollection(t *testing.T, what string, icm *types.ItemCollectionMetrics, pk string) {
	t.Helper()
	if icm == nil {
		t.Fatalf("%s: no ItemCollectionMetrics", what)
	}
	if !equalItem(icm.ItemCollectionKey, item{"pk": s(pk)}) {
		t.Errorf("%s: ItemCollectionKey %s, want {pk: %s}", what, show(icm.ItemCollectionKey), pk)
	}
	if r := icm.SizeEstimateRangeGB; len(r) != 2 || r[0] > r[1] || r[0] < 0 {
		t.Errorf("%s: SizeEstimateRangeGB %v, want a [low, high] range", what, r)
	}
}

func TestItemCollectionMetrics(t *testing.T) {
	doc(t, pageICM, "ItemCollectionMetrics is only returned if the request asked for it. If the table does not have any local secondary indexes, this information is not returned in the response. ItemCollectionKey: the partition key value of the item collection. SizeEstimateRangeGB: a two-element array containing a lower bound and an upper bound for the estimate.")
	each(t, func(t *testing.T, tg *target) {
		name := lsiTable(t, tg)
		it := item{"pk": s("c1"), "sk": s("a"), "lsk": s("x"), "data": s("hello")}
		p, err := tg.client.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(name), Item: it, ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize})
		noErr(t, err, "PutItem")
		wantCollection(t, "PutItem", p.ItemCollectionMetrics, "c1")
		u, err := tg.client.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{
			TableName: aws.String(name), Key: item{"pk": s("c1"), "sk": s("a")},
			UpdateExpression: aws.String("SET #d = :v"), ExpressionAttributeNames: map[string]string{"#d": "data"},
			ExpressionAttributeValues: item{":v": s("bye")}, ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize,
		})
		noErr(t, err, "UpdateItem")
		wantCollection(t, "UpdateItem", u.ItemCollectionMetrics, "c1")
		none, err := tg.client.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(name), Item: it, ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsNone})
		noErr(t, err, "PutItem NONE")
		if none.ItemCollectionMetrics != nil {
			t.Errorf("PutItem with NONE returned ItemCollectionMetrics")
		}
		d, err := tg.client.DeleteItem(ctx(t), &dynamodb.DeleteItemInput{TableName: aws.String(name), Key: item{"pk": s("c1"), "sk": s("a")}, ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize})
		noErr(t, err, "DeleteItem")
		wantCollection(t, "DeleteItem", d.ItemCollectionMetrics, "c1")
		bw, err := tg.client.BatchWriteItem(ctx(t), &dynamodb.BatchWriteItemInput{
			RequestItems:                map[string][]types.WriteRequest{name: {putReq(item{"pk": s("c2"), "sk": s("a")}), putReq(item{"pk": s("c2"), "sk": s("b")})}},
			ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize,
		})
		noErr(t, err, "BatchWriteItem")
		if got := bw.ItemCollectionMetrics[name]; len(got) != 1 {
			t.Errorf("BatchWriteItem reported %d collections, want 1 (c2)", len(got))
		} else {
			wantCollection(t, "BatchWriteItem", &got[0], "c2")
		}

		plain := hashTable(t, tg)
		np, err := tg.client.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(plain), Item: item{"pk": s("a")}, ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize})
		noErr(t, err, "PutItem without an LSI")
		if np.ItemCollectionMetrics != nil {
			t.Errorf("a table without a local secondary index returned ItemCollectionMetrics")
		}
	})
}

func TestItemCollectionSizeLimit(t *testing.T) {
	doc(t, pageItemCollections, "The maximum size of any item collection for a table which has one or more local secondary indexes is 10 GB. If an item collection exceeds the 10 GB limit, DynamoDB returns an ItemCollectionSizeLimitExceededException, and you won't be able to add more items to the item collection or increase the sizes of items that are in the item collection. (The engine's limit is lowered with Options.ItemCollectionSizeLimit to reach it.)")
	limit := func(o *ddblocal.Options) { o.ItemCollectionSizeLimit = 4000 }
	eachEngine(t, []func(*ddblocal.Options){limit}, func(t *testing.T, tg *target) {
		name := lsiTable(t, tg)
		pad := strings.Repeat("x", 900)
		row := func(pk string, i int) item {
			return item{"pk": s(pk), "sk": s(strconv.Itoa(i)), "lsk": s("l"), "filler": s(pad)}
		}
		// Each item takes about 1.9 KB of the collection (its row and its
		// LSI row): the second fits, the third does not.
		put(t, tg, name, row("full", 0))
		put(t, tg, name, row("full", 1))
		_, err := tg.client.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(name), Item: row("full", 2)})
		wantErr(t, err, "ItemCollectionSizeLimitExceededException")
		if got := get(t, tg, name, item{"pk": s("full"), "sk": s("2")}); got != nil {
			t.Errorf("the refused item was written: %s", show(got))
		}
		_, err = tg.client.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{
			TableName: aws.String(name), Key: item{"pk": s("full"), "sk": s("1")},
			UpdateExpression: aws.String("SET more = :p"), ExpressionAttributeValues: item{":p": s(pad)},
		})
		wantErr(t, err, "ItemCollectionSizeLimitExceededException")
		// Shrinking and other collections are allowed.
		_, err = tg.client.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{
			TableName: aws.String(name), Key: item{"pk": s("full"), "sk": s("1")}, UpdateExpression: aws.String("REMOVE filler"),
		})
		noErr(t, err, "UpdateItem that shrinks the collection")
		put(t, tg, name, row("other", 0))
		put(t, tg, name, row("other", 1))
		_, err = tg.client.TransactWriteItems(ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: aws.String(name), Item: item{"pk": s("free"), "sk": s("0")}}},
			{Put: &types.Put{TableName: aws.String(name), Item: row("other", 2)}},
		}})
		if got := reasonCodes(cancelled(t, err)); strings.Join(got, ",") != "None,ItemCollectionSizeLimitExceeded" {
			t.Errorf("cancellation reasons %v, want [None ItemCollectionSizeLimitExceeded]", got)
		}
	})
}
