package conformance_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
)

const (
	pageBatchWrite = "BatchWriteItem (DynamoDB API Reference)"
	pageBatchGet   = "BatchGetItem (DynamoDB API Reference)"
)

func putReq(it item) types.WriteRequest {
	return types.WriteRequest{PutRequest: &types.PutRequest{Item: it}}
}

func delReq(key item) types.WriteRequest {
	return types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: key}}
}

func TestBatchWriteAndGet(t *testing.T) {
	doc(t, pageBatchWrite+" / "+pageBatchGet, `BatchWriteItem puts or deletes multiple items in one or more tables. BatchGetItem returns the attributes of one or more items from one or more tables; Responses is a map of table name to the list of items; items are not necessarily returned in the order requested. UnprocessedItems/UnprocessedKeys are empty when everything was processed.`)
	each(t, func(t *testing.T, tg *target) {
		a := hashTable(t, tg)
		bt := compositeTable(t, tg, types.ScalarAttributeTypeN)
		put(t, tg, a, item{"pk": s("gone"), "v": s("x")})
		out, err := tg.client.BatchWriteItem(ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
			a:  {putReq(item{"pk": s("a1"), "v": n("1")}), putReq(item{"pk": s("a2"), "v": n("2")}), delReq(item{"pk": s("gone")})},
			bt: {putReq(item{"pk": s("b"), "sk": n("1"), "v": s("x")}), putReq(item{"pk": s("b"), "sk": n("2"), "v": s("y")})},
		}})
		noErr(t, err, "BatchWriteItem")
		if len(out.UnprocessedItems) != 0 {
			t.Errorf("UnprocessedItems = %v, want none", out.UnprocessedItems)
		}
		if it := get(t, tg, a, item{"pk": s("gone")}); it != nil {
			t.Errorf("DeleteRequest left %s", show(it))
		}
		g, err := tg.client.BatchGetItem(ctx(t), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
			a:  {Keys: []item{{"pk": s("a1")}, {"pk": s("a2")}, {"pk": s("missing")}}, ConsistentRead: aws.Bool(true)},
			bt: {Keys: []item{{"pk": s("b"), "sk": n("2")}}, ProjectionExpression: aws.String("#v"), ExpressionAttributeNames: map[string]string{"#v": "v"}},
		}})
		noErr(t, err, "BatchGetItem")
		if len(g.UnprocessedKeys) != 0 {
			t.Errorf("UnprocessedKeys = %v, want none", g.UnprocessedKeys)
		}
		got := map[string]item{}
		for _, it := range g.Responses[a] {
			got[it["pk"].(*types.AttributeValueMemberS).Value] = it
		}
		if len(g.Responses[a]) != 2 {
			t.Errorf("table a returned %d items, want 2 (a missing key returns nothing)", len(g.Responses[a]))
		}
		wantItem(t, got["a1"], item{"pk": s("a1"), "v": n("1")})
		wantItem(t, got["a2"], item{"pk": s("a2"), "v": n("2")})
		if len(g.Responses[bt]) != 1 {
			t.Fatalf("table b returned %d items, want 1", len(g.Responses[bt]))
		}
		wantItem(t, g.Responses[bt][0], item{"v": s("y")})
	})
}

func TestBatchLimits(t *testing.T) {
	each(t, func(t *testing.T, tg *target) {
		table := hashTable(t, tg)
		t.Run("BatchWriteItem 25 requests", func(t *testing.T) {
			doc(t, pageBatchWrite, `A single call to BatchWriteItem can transmit up to 16MB of data over the network, consisting of up to 25 item put or delete operations.`)
			var reqs []types.WriteRequest
			for i := range 25 {
				reqs = append(reqs, putReq(item{"pk": s(fmt.Sprint("w", i))}))
			}
			_, err := tg.client.BatchWriteItem(ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: reqs}})
			noErr(t, err, "25 requests")
			reqs = append(reqs, putReq(item{"pk": s("w25")}))
			_, err = tg.client.BatchWriteItem(ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: reqs}})
			wantValidation(t, err, "1 validation error detected: ", "Member must have length less than or equal to 25")
		})
		t.Run("BatchWriteItem duplicate keys", func(t *testing.T) {
			doc(t, pageBatchWrite, `The entire batch write operation is rejected (ValidationException) if: ... There are two or more identical PutRequest/DeleteRequest for the same item (you try to perform multiple operations on the same item in the same BatchWriteItem request).`)
			_, err := tg.client.BatchWriteItem(ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: {
				putReq(item{"pk": s("dup"), "v": s("1")}), delReq(item{"pk": s("dup")}),
			}}})
			wantValidation(t, err, "Provided list of item keys contains duplicates")
			if it := get(t, tg, table, item{"pk": s("dup")}); it != nil {
				t.Errorf("rejected batch wrote %s", show(it))
			}
		})
		t.Run("BatchWriteItem item over 400 KB", func(t *testing.T) {
			doc(t, pageBatchWrite, `The entire batch write operation is rejected if ... An individual item in a batch exceeds 400 KB.`)
			_, err := tg.client.BatchWriteItem(ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: {
				putReq(item{"pk": s("small")}), putReq(item{"pk": s("big"), "d": s(strings.Repeat("x", 400*1024))}),
			}}})
			wantValidation(t, err, "Item size has exceeded the maximum allowed size")
			if it := get(t, tg, table, item{"pk": s("small")}); it != nil {
				t.Errorf("rejected batch wrote %s", show(it))
			}
		})
		t.Run("BatchWriteItem missing table", func(t *testing.T) {
			doc(t, pageBatchWrite, `The entire batch write operation is rejected if one or more tables specified in the BatchWriteItem request does not exist (ResourceNotFoundException).`)
			_, err := tg.client.BatchWriteItem(ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
				table: {putReq(item{"pk": s("x1")})}, table + "-missing": {putReq(item{"pk": s("x")})},
			}})
			wantErr(t, err, "ResourceNotFoundException", "Requested resource not found")
			if it := get(t, tg, table, item{"pk": s("x1")}); it != nil {
				t.Errorf("rejected batch wrote %s", show(it))
			}
		})
		t.Run("BatchWriteItem key mismatch", func(t *testing.T) {
			doc(t, pageBatchWrite, `The entire batch write operation is rejected if primary key attributes specified on an item in the request do not match those in the corresponding table's primary key schema.`)
			_, err := tg.client.BatchWriteItem(ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: {putReq(item{"pk": n("5")})}}})
			wantValidation(t, err, "The provided key element does not match the schema")
		})
		t.Run("BatchGetItem 100 keys", func(t *testing.T) {
			doc(t, pageBatchGet, `A single operation can retrieve up to 16 MB of data, which can contain as many as 100 items. If you request more than 100 items, BatchGetItem returns a ValidationException with the message "Too many items requested for the BatchGetItem call."`)
			var keys []item
			for i := range 100 {
				keys = append(keys, item{"pk": s(fmt.Sprint("k", i))})
			}
			_, err := tg.client.BatchGetItem(ctx(t), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{table: {Keys: keys}}})
			noErr(t, err, "100 keys")
			keys = append(keys, item{"pk": s("k100")})
			_, err = tg.client.BatchGetItem(ctx(t), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{table: {Keys: keys}}})
			wantValidationOneOf(t, err, "Too many items requested for the BatchGetItem call", "Member must have length less than or equal to 100")
		})
		t.Run("BatchGetItem duplicate keys", func(t *testing.T) {
			doc(t, pageBatchGet, `Keys: the primary keys of the items to retrieve; a key may appear only once ("Provided list of item keys contains duplicates").`)
			_, err := tg.client.BatchGetItem(ctx(t), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{table: {Keys: []item{{"pk": s("d")}, {"pk": s("d")}}}}})
			wantValidation(t, err, "Provided list of item keys contains duplicates")
		})
	})
}

func TestBatchGetSixteenMegabytes(t *testing.T) {
	doc(t, pageBatchGet, `A single operation can retrieve up to 16 MB of data. BatchGetItem returns a partial result if the response size limit is exceeded; the remaining keys are returned in UnprocessedKeys, and the caller retries them.`)
	each(t, func(t *testing.T, tg *target) {
		table := hashTable(t, tg)
		big := strings.Repeat("x", 390*1024)
		var keys []item
		const count = 44 // 44 x 390 KB = 16.8 MB, just over one response
		for i := range count {
			k := item{"pk": s(fmt.Sprint("big", i))}
			put(t, tg, table, item{"pk": k["pk"], "d": s(big)})
			keys = append(keys, k)
		}
		req := map[string]types.KeysAndAttributes{table: {Keys: keys}}
		total, calls := 0, 0
		for len(req) > 0 {
			calls++
			if calls > 50 {
				t.Fatalf("BatchGetItem never finished")
			}
			out, err := tg.client.BatchGetItem(ctx(t), &dynamodb.BatchGetItemInput{RequestItems: req})
			noErr(t, err, "BatchGetItem")
			got := len(out.Responses[table])
			if got*390*1024 > 16*1024*1024+390*1024 {
				t.Errorf("one response held %d items of 390 KB, over 16 MB", got)
			}
			total += got
			req = out.UnprocessedKeys
		}
		if total != count {
			t.Errorf("retrieved %d items in all, want %d", total, count)
		}
		if calls < 2 {
			t.Errorf("16.8 MB came back in %d call(s), want a partial result first", calls)
		}
	})
}

func TestBatchUnprocessedFaults(t *testing.T) {
	doc(t, pageBatchWrite+" / "+pageBatchGet, `If any requested operations fail because the table's provisioned throughput is exceeded or an internal processing failure occurs, the failed operations are returned in UnprocessedItems (BatchGetItem: UnprocessedKeys), in the same form as the request, ready to be resent.`)
	eachEngine(t, nil, func(t *testing.T, tg *target) {
		table := hashTable(t, tg)
		tg.engine.SetFaults(table, ddblocal.Faults{UnprocessedRate: 1})
		reqs := []types.WriteRequest{putReq(item{"pk": s("u1")}), putReq(item{"pk": s("u2")})}
		out, err := tg.client.BatchWriteItem(ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: reqs}})
		noErr(t, err, "BatchWriteItem")
		if len(out.UnprocessedItems[table]) != 2 {
			t.Fatalf("UnprocessedItems = %v, want both requests", out.UnprocessedItems)
		}
		tg.engine.ClearFaults(table)
		if it := get(t, tg, table, item{"pk": s("u1")}); it != nil {
			t.Errorf("unprocessed item was written: %s", show(it))
		}
		out, err = tg.client.BatchWriteItem(ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: out.UnprocessedItems})
		noErr(t, err, "resend UnprocessedItems")
		if len(out.UnprocessedItems) != 0 {
			t.Errorf("resend left %v", out.UnprocessedItems)
		}
		tg.engine.SetFaults(table, ddblocal.Faults{UnprocessedRate: 1})
		g, err := tg.client.BatchGetItem(ctx(t), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{table: {Keys: []item{{"pk": s("u1")}, {"pk": s("u2")}}}}})
		noErr(t, err, "BatchGetItem")
		if len(g.UnprocessedKeys[table].Keys) != 2 || len(g.Responses[table]) != 0 {
			t.Errorf("UnprocessedKeys %v, Responses %v, want both keys unprocessed", g.UnprocessedKeys, g.Responses)
		}
		tg.engine.ClearFaults(table)
		g, err = tg.client.BatchGetItem(ctx(t), &dynamodb.BatchGetItemInput{RequestItems: g.UnprocessedKeys})
		noErr(t, err, "resend UnprocessedKeys")
		if len(g.Responses[table]) != 2 {
			t.Errorf("resent keys returned %d items, want 2", len(g.Responses[table]))
		}
	})
}
