package ddblocal_test

import (
	"context"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
)

// serve posts body to h as operation target and fails b unless the answer
// is 200. Every handler benchmark pays the same request and recorder cost,
// which BenchmarkHandlerHotUpdateHarness measures on its own.
func serve(b *testing.B, h http.Handler, target, body string) {
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+target)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != 200 {
		b.Fatal(rec.Body.String())
	}
}

// hotUpdate runs body as an UpdateItem from 16 goroutines (8 per CPU).
func hotUpdate(b *testing.B, h http.Handler, body string) {
	b.SetParallelism(8)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			serve(b, h, "UpdateItem", body)
		}
	})
}

// BenchmarkHandlerQuery100 measures the engine alone, without the SDK.
func BenchmarkHandlerQuery100(b *testing.B) {
	eng, db := benchTable(b)
	ctx := context.Background()
	for i := range 100 {
		if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("bench"), Item: map[string]av{
			"PK": s("ORDERS"), "SK": s("O#" + strconv.Itoa(i)), "amount": n("12.5"), "status": s("PAID")}}); err != nil {
			b.Fatal(err)
		}
	}
	h := eng.Handler()
	const body = `{"TableName":"bench","KeyConditionExpression":"PK = :p","ExpressionAttributeValues":{":p":{"S":"ORDERS"}}}`
	b.ReportAllocs()
	for b.Loop() {
		serve(b, h, "Query", body)
	}
}

func BenchmarkHandlerPutItem(b *testing.B) {
	eng, _ := benchTable(b)
	h := eng.Handler()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		serve(b, h, "PutItem", `{"TableName":"bench","Item":{"PK":{"S":"USER#`+strconv.Itoa(i)+`"},"SK":{"S":"PROFILE"},"name":{"S":"someone"},"balance":{"N":"100"},"GSI1PK":{"S":"E#`+strconv.Itoa(i)+`"},"GSI1SK":{"S":"USER"}}}`)
	}
}

// BenchmarkHandlerHotUpdate is a conditional UpdateItem on one item from
// many goroutines, engine only: the cost of the table lock's critical path.
func BenchmarkHandlerHotUpdate(b *testing.B) {
	eng, db := benchTable(b)
	if _, err := db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("bench"), Item: map[string]av{"PK": s("HOT"), "SK": s("X"), "n": n("0")}}); err != nil {
		b.Fatal(err)
	}
	hotUpdate(b, eng.Handler(), `{"TableName":"bench","Key":{"PK":{"S":"HOT"},"SK":{"S":"X"}},"UpdateExpression":"SET n = n + :one","ConditionExpression":"n >= :zero","ExpressionAttributeValues":{":one":{"N":"1"},":zero":{"N":"0"}}}`)
}

// BenchmarkHandlerHotUpdate9 is BenchmarkHandlerHotUpdate on an item of 9
// attributes, like the engine benchmark's: more than 8 map entries, so every
// decoded or cloned item is a full map.
func BenchmarkHandlerHotUpdate9(b *testing.B) {
	eng, db := benchTable(b)
	item := map[string]av{
		"PK": s("HOT"), "SK": s("X"), "EntityType": s("Order"), "status": s("OPEN"), "currency": s("EUR"),
		"amount": n("1234.56"), "createdAt": s("2026-11-29T12:00:00Z"), "cnt": n("0"),
		"note": s(strings.Repeat("note-", 18)),
	}
	if _, err := db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("bench"), Item: item}); err != nil {
		b.Fatal(err)
	}
	hotUpdate(b, eng.Handler(), `{"TableName":"bench","Key":{"PK":{"S":"HOT"},"SK":{"S":"X"}},"UpdateExpression":"SET cnt = cnt + :one","ConditionExpression":"cnt >= :zero","ExpressionAttributeValues":{":one":{"N":"1"},":zero":{"N":"0"}}}`)
}

// BenchmarkHandlerStartup is a new engine's first table through the handler.
func BenchmarkHandlerStartup(b *testing.B) {
	const body = `{"TableName":"bench","AttributeDefinitions":[{"AttributeName":"PK","AttributeType":"S"},{"AttributeName":"SK","AttributeType":"S"}],"KeySchema":[{"AttributeName":"PK","KeyType":"HASH"},{"AttributeName":"SK","KeyType":"RANGE"}],"BillingMode":"PAY_PER_REQUEST"}`
	b.ReportAllocs()
	for b.Loop() {
		eng := ddblocal.New()
		serve(b, eng.Handler(), "CreateTable", body)
		_ = eng.Close()
	}
}

// BenchmarkHandlerHotUpdateHarness is BenchmarkHandlerHotUpdate's request
// and recorder handling around a handler that only reads the body: the
// part of the handler benchmarks that is not the engine.
func BenchmarkHandlerHotUpdateHarness(b *testing.B) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.ReadAll(r.Body); w.WriteHeader(http.StatusOK) })
	hotUpdate(b, h, `{"TableName":"bench","Key":{"PK":{"S":"HOT"},"SK":{"S":"X"}},"UpdateExpression":"SET n = n + :one","ConditionExpression":"n >= :zero","ExpressionAttributeValues":{":one":{"N":"1"},":zero":{"N":"0"}}}`)
}

// BenchmarkHandlerTransact4 is the engine benchmark's transaction without a
// client: four distinct items of a table of 1,000, each a conditional
// counter update, with a fresh ClientRequestToken as the SDK sends. The
// items have the nine attributes of test/enginebench's.
func BenchmarkHandlerTransact4(b *testing.B) {
	eng, db := benchTable(b)
	const items = 1000
	loadOrders(b, db, items)
	h := eng.Handler()
	b.ReportAllocs()
	for seq := 0; b.Loop(); seq++ {
		var picked [4]int
		for k := range picked {
			picked[k] = (seq*4 + k*251) % items
		}
		serve(b, h, "TransactWriteItems", transact4(picked, seq))
	}
}

// BenchmarkHandlerTransactRandom is BenchmarkHandlerTransact4 on four
// distinct random items of tables of 1,000 and 100,000, as the engine
// benchmark picks them: what the size of a table costs a transaction's
// point reads and writes.
func BenchmarkHandlerTransactRandom(b *testing.B) {
	for _, items := range []int{1_000, 100_000} {
		b.Run(strconv.Itoa(items), func(b *testing.B) {
			eng, db := benchTable(b)
			loadOrders(b, db, items)
			h := eng.Handler()
			r := rand.New(rand.NewPCG(1, 2))
			b.ReportAllocs()
			for seq := 0; b.Loop(); seq++ {
				serve(b, h, "TransactWriteItems", transact4(distinct4(r, items), seq))
			}
		})
	}
}

// loadOrders writes count items of nine attributes, USER#i/ORDER#i.
func loadOrders(b *testing.B, db *dynamodb.Client, count int) {
	var reqs []types.WriteRequest
	for i := range count {
		reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]av{
			"PK": s("USER#" + strconv.Itoa(i)), "SK": s("ORDER#" + strconv.Itoa(i)), "cnt": n("0"),
			"EntityType": s("Order"), "status": s("PENDING"), "currency": s("EUR"), "amount": n("1234"),
			"createdAt": s("2026-11-29T20:00:00.000Z"), "note": s(strings.Repeat("n", 60))}}})
		if len(reqs) == 25 || i == count-1 {
			in := &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"bench": reqs}}
			if _, err := db.BatchWriteItem(context.Background(), in); err != nil {
				b.Fatal(err)
			}
			reqs = nil
		}
	}
}

// distinct4 draws four distinct items of n.
func distinct4(r *rand.Rand, n int) [4]int {
	var picked [4]int
	for k := 0; k < 4; {
		i := r.IntN(n)
		if !slices.Contains(picked[:k], i) {
			picked[k] = i
			k++
		}
	}
	return picked
}

// transact4 is the body of a TransactWriteItems that adds one to the
// counter of each of the items, under token tok-seq.
func transact4(items [4]int, seq int) string {
	body := make([]byte, 0, 1024)
	body = append(body, `{"TransactItems":[`...)
	for k, i := range items {
		if k > 0 {
			body = append(body, ',')
		}
		body = append(body, `{"Update":{"TableName":"bench","Key":{"PK":{"S":"USER#`+strconv.Itoa(i)+`"},"SK":{"S":"ORDER#`+strconv.Itoa(i)+
			`"}},"UpdateExpression":"SET cnt = cnt + :one","ConditionExpression":"attribute_exists(PK)","ExpressionAttributeValues":{":one":{"N":"1"}}}}`...)
	}
	return string(append(body, `],"ClientRequestToken":"tok-`+strconv.Itoa(seq)+`"}`...))
}
