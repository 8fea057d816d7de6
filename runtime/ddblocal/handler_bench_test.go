package ddblocal_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

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
	body := `{"TableName":"bench","KeyConditionExpression":"PK = :p","ExpressionAttributeValues":{":p":{"S":"ORDERS"}}}`
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		req.Header.Set("X-Amz-Target", "DynamoDB_20120810.Query")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 200 {
			b.Fatal(rec.Body.String())
		}
	}
}

func BenchmarkHandlerPutItem(b *testing.B) {
	eng, _ := benchTable(b)
	h := eng.Handler()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		body := `{"TableName":"bench","Item":{"PK":{"S":"USER#` + strconv.Itoa(i) + `"},"SK":{"S":"PROFILE"},"name":{"S":"someone"},"balance":{"N":"100"},"GSI1PK":{"S":"E#` + strconv.Itoa(i) + `"},"GSI1SK":{"S":"USER"}}}`
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		req.Header.Set("X-Amz-Target", "DynamoDB_20120810.PutItem")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 200 {
			b.Fatal(rec.Body.String())
		}
	}
}
