package ddblocal_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/oncetable/oncetable/runtime/ddblocal"
)

// partitionBench is benchTable's engine and table with PartitionThroughput
// enabled at the given write units.
func partitionBench(b *testing.B, writeUnits float64) *ddblocal.Engine {
	b.Helper()
	eng := ddblocal.New(func(o *ddblocal.Options) {
		o.TTLSweepInterval = -1
		o.PartitionThroughput = ddblocal.PartitionThroughput{Enabled: true, WriteUnits: writeUnits}
	})
	b.Cleanup(func() { _ = eng.Close() })
	if err := ddblocal.CreateFixtureTable(context.Background(), eng.Client(), "bench"); err != nil {
		b.Fatal(err)
	}
	return eng
}

// BenchmarkHandlerPutItemPartitioned is BenchmarkHandlerPutItem with the
// partition limits on and never reached: the cost of the accounting.
func BenchmarkHandlerPutItemPartitioned(b *testing.B) {
	h := partitionBench(b, 1e12).Handler()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		serve(b, h, "PutItem", `{"TableName":"bench","Item":{"PK":{"S":"USER#`+strconv.Itoa(i)+`"},"SK":{"S":"PROFILE"},"name":{"S":"someone"},"balance":{"N":"100"},"GSI1PK":{"S":"E#`+strconv.Itoa(i)+`"},"GSI1SK":{"S":"USER"}}}`)
	}
}

// BenchmarkHandlerPutItemHotIndexPartition writes items with distinct table
// keys that all share one GSI1 partition, at DynamoDB's default 1,000 write
// units per partition and the real clock: it reports the share throttled
// (IndexWriteKeyRangeThroughputExceeded) and the writes per second admitted.
func BenchmarkHandlerPutItemHotIndexPartition(b *testing.B) {
	eng := partitionBench(b, 0)
	h := eng.Handler()
	b.ReportAllocs()
	ok := 0
	for i := 0; b.Loop(); i++ {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"TableName":"bench","Item":{"PK":{"S":"ORDER#`+strconv.Itoa(i)+`"},"SK":{"S":"ORDER"},"GSI1PK":{"S":"ORDERSTATUS#created"},"GSI1SK":{"S":"`+strconv.Itoa(i)+`"}}}`))
		req.Header.Set("X-Amz-Target", "DynamoDB_20120810.PutItem")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code == http.StatusOK {
			ok++
		}
	}
	throttled := eng.ThrottleCounts()[ddblocal.ReasonIndexWriteKeyRange]
	b.ReportMetric(float64(throttled)/float64(b.N), "throttled/op")
	b.ReportMetric(float64(ok)/b.Elapsed().Seconds(), "admitted/s")
}
