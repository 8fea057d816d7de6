package ddblocal_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func BenchmarkZZHarnessOnly(b *testing.B) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.ReadAll(r.Body); w.WriteHeader(200) })
	const body = `{"TableName":"bench","Key":{"PK":{"S":"HOT"},"SK":{"S":"X"}},"UpdateExpression":"SET n = n + :one","ConditionExpression":"n >= :zero","ExpressionAttributeValues":{":one":{"N":"1"},":zero":{"N":"0"}}}`
	b.SetParallelism(8)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
			req.Header.Set("X-Amz-Target", "DynamoDB_20120810.UpdateItem")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
		}
	})
}
