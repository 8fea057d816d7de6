package conformance_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

const (
	pageCapacity   = "DynamoDB read and write operations — Capacity unit consumption (Developer Guide)"
	pageGSICapUnit = "Provisioned throughput considerations for Global Secondary Indexes (Developer Guide)"
)

// sized returns {"pk": pk, "d": ...} whose item size is exactly size bytes:
// len("pk")+len(pk) + len("d")+len(d).
func sized(pk string, size int) item {
	return item{"pk": s(pk), "d": s(strings.Repeat("x", size-2-len(pk)-1))}
}

func wantUnits(t *testing.T, what string, cc *types.ConsumedCapacity, want float64) {
	t.Helper()
	if cc == nil {
		t.Errorf("%s: no ConsumedCapacity, want %g units", what, want)
		return
	}
	if got := aws.ToFloat64(cc.CapacityUnits); got != want {
		t.Errorf("%s: CapacityUnits = %g, want %g", what, got, want)
	}
}

func TestConsumedCapacityWrites(t *testing.T) {
	doc(t, pageCapacity, `One write request unit represents one write for an item up to 1 KB in size; item sizes for writes are rounded up to the next 1 KB multiple. PutItem: the larger of the old and new item. UpdateItem: the larger of the item before and after the update. DeleteItem: the size of the deleted item; deleting or writing an item that does not exist still consumes one write unit. BatchWriteItem: each item separately. Transactional writes require two write units per 1 KB.`)
	each(t, func(t *testing.T, tg *target) {
		table := hashTable(t, tg)
		total := types.ReturnConsumedCapacityTotal
		cases := []struct {
			name string
			call func() (*types.ConsumedCapacity, error)
			want float64
		}{
			{"PutItem 1024 bytes", func() (*types.ConsumedCapacity, error) {
				o, err := tg.client.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(table), Item: sized("a", 1024), ReturnConsumedCapacity: total})
				return capOf(o, err, func() *types.ConsumedCapacity { return o.ConsumedCapacity })
			}, 1},
			{"PutItem 1025 bytes", func() (*types.ConsumedCapacity, error) {
				o, err := tg.client.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(table), Item: sized("b", 1025), ReturnConsumedCapacity: total})
				return capOf(o, err, func() *types.ConsumedCapacity { return o.ConsumedCapacity })
			}, 2},
			{"PutItem replacing a larger item", func() (*types.ConsumedCapacity, error) {
				o, err := tg.client.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(table), Item: sized("b", 100), ReturnConsumedCapacity: total})
				return capOf(o, err, func() *types.ConsumedCapacity { return o.ConsumedCapacity })
			}, 2},
			{"UpdateItem growing 100 to 2500 bytes", func() (*types.ConsumedCapacity, error) {
				o, err := tg.client.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: item{"pk": s("b")},
					UpdateExpression: aws.String("SET d = :d"), ExpressionAttributeValues: item{":d": s(strings.Repeat("y", 2500-4))}, ReturnConsumedCapacity: total})
				return capOf(o, err, func() *types.ConsumedCapacity { return o.ConsumedCapacity })
			}, 3},
			{"DeleteItem of 2500 bytes", func() (*types.ConsumedCapacity, error) {
				o, err := tg.client.DeleteItem(ctx(t), &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: item{"pk": s("b")}, ReturnConsumedCapacity: total})
				return capOf(o, err, func() *types.ConsumedCapacity { return o.ConsumedCapacity })
			}, 3},
			{"DeleteItem of a missing item", func() (*types.ConsumedCapacity, error) {
				o, err := tg.client.DeleteItem(ctx(t), &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: item{"pk": s("nope")}, ReturnConsumedCapacity: total})
				return capOf(o, err, func() *types.ConsumedCapacity { return o.ConsumedCapacity })
			}, 1},
			{"TransactWriteItems two small puts", func() (*types.ConsumedCapacity, error) {
				o, err := tg.client.TransactWriteItems(ctx(t), &dynamodb.TransactWriteItemsInput{ReturnConsumedCapacity: total, TransactItems: []types.TransactWriteItem{
					txPut(table, sized("t1", 500)), txPut(table, sized("t2", 1500)),
				}})
				return capOf(o, err, func() *types.ConsumedCapacity { return firstCap(o.ConsumedCapacity) })
			}, 2*1 + 2*2},
			{"BatchWriteItem rounds each item", func() (*types.ConsumedCapacity, error) {
				o, err := tg.client.BatchWriteItem(ctx(t), &dynamodb.BatchWriteItemInput{ReturnConsumedCapacity: total, RequestItems: map[string][]types.WriteRequest{table: {
					putReq(sized("w1", 500)), putReq(sized("w2", 500)), putReq(sized("w3", 1100)),
				}}})
				return capOf(o, err, func() *types.ConsumedCapacity { return firstCap(o.ConsumedCapacity) })
			}, 1 + 1 + 2},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				cc, err := c.call()
				noErr(t, err, c.name)
				wantUnits(t, c.name, cc, c.want)
				if cc != nil && aws.ToString(cc.TableName) != table {
					t.Errorf("ConsumedCapacity.TableName = %q, want %q", aws.ToString(cc.TableName), table)
				}
			})
		}
		t.Run("NONE", func(t *testing.T) {
			o, err := tg.client.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(table), Item: sized("n", 100)})
			noErr(t, err, "PutItem")
			if o.ConsumedCapacity != nil {
				t.Errorf("ConsumedCapacity without ReturnConsumedCapacity = %+v, want nil", o.ConsumedCapacity)
			}
		})
	})
}

func capOf[T any](o *T, err error, f func() *types.ConsumedCapacity) (*types.ConsumedCapacity, error) {
	if err != nil || o == nil {
		return nil, err
	}
	return f(), nil
}

func firstCap(cs []types.ConsumedCapacity) *types.ConsumedCapacity {
	if len(cs) == 0 {
		return nil
	}
	return &cs[0]
}

func TestConsumedCapacityReads(t *testing.T) {
	doc(t, pageCapacity, `A strongly consistent read of an item up to 4 KB requires one read unit, an eventually consistent read one-half, a transactional read two. GetItem: item size rounded up to the next 4 KB; reading an item that does not exist still consumes capacity (1 strongly, 0.5 eventually). BatchGetItem: each item's size is rounded up to 4 KB before summing (1.5 KB + 6.5 KB = 12 KB). Query and Scan: the sum of the sizes of all items read, rounded up to the next 4 KB, halved for eventually consistent reads.`)
	each(t, func(t *testing.T, tg *target) {
		table := compositeTable(t, tg, types.ScalarAttributeTypeN)
		mk := func(pk string, sk int, size int) item {
			// len(pk)+2 + len(sk)+2 + 1+len(d)
			sks := fmt.Sprint(sk)
			return item{"pk": s(pk), "sk": n(sks), "d": s(strings.Repeat("x", size-2-len(pk)-2-numberSize(sks)-1))}
		}
		put(t, tg, table, mk("g", 1, 4096))
		put(t, tg, table, mk("g", 2, 4097))
		put(t, tg, table, mk("b", 1, 1536))
		put(t, tg, table, mk("b", 2, 6656))
		for i := range 10 {
			put(t, tg, table, mk("q", i+10, 1000))
		}
		total := types.ReturnConsumedCapacityTotal
		getCap := func(key item, consistent bool) (*types.ConsumedCapacity, error) {
			o, err := tg.client.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: aws.String(table), Key: key, ConsistentRead: aws.Bool(consistent), ReturnConsumedCapacity: total})
			return capOf(o, err, func() *types.ConsumedCapacity { return o.ConsumedCapacity })
		}
		queryCap := func(consistent bool) (*types.ConsumedCapacity, error) {
			o, err := tg.client.Query(ctx(t), &dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String("pk = :p"),
				ExpressionAttributeValues: item{":p": s("q")}, ConsistentRead: aws.Bool(consistent), ReturnConsumedCapacity: total})
			return capOf(o, err, func() *types.ConsumedCapacity { return o.ConsumedCapacity })
		}
		cases := []struct {
			name string
			call func() (*types.ConsumedCapacity, error)
			want float64
		}{
			{"GetItem 4096 strong", func() (*types.ConsumedCapacity, error) { return getCap(item{"pk": s("g"), "sk": n("1")}, true) }, 1},
			{"GetItem 4096 eventual", func() (*types.ConsumedCapacity, error) { return getCap(item{"pk": s("g"), "sk": n("1")}, false) }, 0.5},
			{"GetItem 4097 strong", func() (*types.ConsumedCapacity, error) { return getCap(item{"pk": s("g"), "sk": n("2")}, true) }, 2},
			{"GetItem 4097 eventual", func() (*types.ConsumedCapacity, error) { return getCap(item{"pk": s("g"), "sk": n("2")}, false) }, 1},
			{"GetItem missing strong", func() (*types.ConsumedCapacity, error) { return getCap(item{"pk": s("none"), "sk": n("1")}, true) }, 1},
			{"GetItem missing eventual", func() (*types.ConsumedCapacity, error) { return getCap(item{"pk": s("none"), "sk": n("1")}, false) }, 0.5},
			{"Query 10 x 1000 bytes strong", func() (*types.ConsumedCapacity, error) { return queryCap(true) }, 3},
			{"Query 10 x 1000 bytes eventual", func() (*types.ConsumedCapacity, error) { return queryCap(false) }, 1.5},
			{"BatchGetItem 1.5 KB + 6.5 KB strong", func() (*types.ConsumedCapacity, error) {
				o, err := tg.client.BatchGetItem(ctx(t), &dynamodb.BatchGetItemInput{ReturnConsumedCapacity: total, RequestItems: map[string]types.KeysAndAttributes{table: {
					Keys: []item{{"pk": s("b"), "sk": n("1")}, {"pk": s("b"), "sk": n("2")}}, ConsistentRead: aws.Bool(true)}}})
				return capOf(o, err, func() *types.ConsumedCapacity { return firstCap(o.ConsumedCapacity) })
			}, 3},
			{"TransactGetItems two items", func() (*types.ConsumedCapacity, error) {
				o, err := tg.client.TransactGetItems(ctx(t), &dynamodb.TransactGetItemsInput{ReturnConsumedCapacity: total, TransactItems: []types.TransactGetItem{
					{Get: &types.Get{TableName: aws.String(table), Key: item{"pk": s("g"), "sk": n("1")}}},
					{Get: &types.Get{TableName: aws.String(table), Key: item{"pk": s("g"), "sk": n("2")}}},
				}})
				return capOf(o, err, func() *types.ConsumedCapacity { return firstCap(o.ConsumedCapacity) })
			}, 2*1 + 2*2},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				cc, err := c.call()
				noErr(t, err, c.name)
				wantUnits(t, c.name, cc, c.want)
			})
		}
	})
}

// numberSize is DynamoDB's documented size of a small positive integer:
// one byte per two significant digits, plus one byte.
func numberSize(digits string) int {
	return (len(strings.TrimLeft(digits, "0"))+1)/2 + 1
}

func TestConsumedCapacityIndexes(t *testing.T) {
	doc(t, pageGSICapUnit+" / "+pageCapacity, `ReturnConsumedCapacity INDEXES: the response includes the aggregate ConsumedCapacity for the operation, together with ConsumedCapacity for each table and secondary index that was accessed; TOTAL returns only the aggregate. Writing an item that is projected into a GSI costs index write units by the size of the index entry; an item without the index key attributes is not written to the index and costs nothing there; changing an indexed attribute takes two index writes (delete the old entry, put the new).`)
	each(t, func(t *testing.T, tg *target) {
		table := gsiTable(t, tg)
		indexes := types.ReturnConsumedCapacityIndexes
		putCap := func(it item) *types.ConsumedCapacity {
			o, err := tg.client.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(table), Item: it, ReturnConsumedCapacity: indexes})
			noErr(t, err, "PutItem")
			return o.ConsumedCapacity
		}
		gsiUnits := func(cc *types.ConsumedCapacity, index string) float64 {
			if cc == nil || cc.GlobalSecondaryIndexes == nil {
				return 0
			}
			c, ok := cc.GlobalSecondaryIndexes[index]
			if !ok {
				return 0
			}
			return aws.ToFloat64(c.CapacityUnits)
		}
		tableUnits := func(cc *types.ConsumedCapacity) float64 {
			if cc == nil || cc.Table == nil {
				return -1
			}
			return aws.ToFloat64(cc.Table.CapacityUnits)
		}

		cc := putCap(item{"pk": s("1"), "sk": s("a"), "gk": s("open"), "gs": n("1")})
		wantUnits(t, "new item in byG", cc, 2)
		if tableUnits(cc) != 1 || gsiUnits(cc, "byG") != 1 || gsiUnits(cc, "byH") != 0 {
			t.Errorf("INDEXES breakdown: table %g byG %g byH %g, want 1, 1, 0 (%+v)", tableUnits(cc), gsiUnits(cc, "byG"), gsiUnits(cc, "byH"), cc)
		}
		cc = putCap(item{"pk": s("2"), "sk": s("a"), "other": s("x")})
		wantUnits(t, "item in no index", cc, 1)
		if gsiUnits(cc, "byG") != 0 {
			t.Errorf("sparse item charged %g units on byG, want 0", gsiUnits(cc, "byG"))
		}
		o, err := tg.client.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: item{"pk": s("1"), "sk": s("a")},
			UpdateExpression: aws.String("SET gk = :c"), ExpressionAttributeValues: item{":c": s("closed")}, ReturnConsumedCapacity: indexes})
		noErr(t, err, "UpdateItem moving the index key")
		wantUnits(t, "index key change", o.ConsumedCapacity, 3)
		if gsiUnits(o.ConsumedCapacity, "byG") != 2 {
			t.Errorf("index key change charged %g on byG, want 2 (delete + put)", gsiUnits(o.ConsumedCapacity, "byG"))
		}
		// TOTAL carries the aggregate only.
		p, err := tg.client.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(table), Item: item{"pk": s("3"), "sk": s("a"), "gk": s("open"), "gs": n("3")},
			ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
		noErr(t, err, "PutItem TOTAL")
		wantUnits(t, "TOTAL", p.ConsumedCapacity, 2)
		if p.ConsumedCapacity != nil && (p.ConsumedCapacity.Table != nil || len(p.ConsumedCapacity.GlobalSecondaryIndexes) != 0) {
			t.Errorf("TOTAL returned a breakdown: %+v", p.ConsumedCapacity)
		}
		// Query on the index reports the index.
		q, err := tg.client.Query(ctx(t), &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("byG"), KeyConditionExpression: aws.String("gk = :g"),
			ExpressionAttributeValues: item{":g": s("open")}, ReturnConsumedCapacity: indexes})
		noErr(t, err, "Query index")
		wantUnits(t, "eventually consistent index query of one small item", q.ConsumedCapacity, 0.5)
		if gsiUnits(q.ConsumedCapacity, "byG") != 0.5 {
			t.Errorf("index query breakdown = %+v, want byG 0.5", q.ConsumedCapacity)
		}
	})
}
