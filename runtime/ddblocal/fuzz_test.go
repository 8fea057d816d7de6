package ddblocal_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/oncetable/oncetable/runtime/ddblocal"
)

var fuzzOps = []string{"PutItem", "GetItem", "UpdateItem", "DeleteItem", "Query", "Scan", "BatchGetItem",
	"BatchWriteItem", "TransactWriteItems", "TransactGetItems", "CreateTable", "UpdateTable", "DescribeTable"}

// FuzzHandler sends arbitrary bodies to every operation: the engine must
// answer with a DynamoDB JSON body, never panic, and stay usable.
func FuzzHandler(f *testing.F) {
	seeds := []struct {
		op   int
		body string
	}{
		{0, `{"TableName":"tbl","Item":{"PK":{"S":"a"},"SK":{"S":"b"},"n":{"N":"1"}},"ConditionExpression":"attribute_not_exists(PK)"}`},
		{1, `{"TableName":"tbl","Key":{"PK":{"S":"a"},"SK":{"S":"b"}},"ProjectionExpression":"n, #x","ExpressionAttributeNames":{"#x":"x"}}`},
		{2, `{"TableName":"tbl","Key":{"PK":{"S":"a"},"SK":{"S":"b"}},"UpdateExpression":"SET n = n + :one REMOVE GSI1PK","ExpressionAttributeValues":{":one":{"N":"1"}},"ReturnValues":"ALL_NEW"}`},
		{4, `{"TableName":"tbl","IndexName":"GSI1","KeyConditionExpression":"GSI1PK = :p AND begins_with(GSI1SK, :s)","ExpressionAttributeValues":{":p":{"S":"x"},":s":{"S":""}},"Limit":1}`},
		{5, `{"TableName":"tbl","Segment":0,"TotalSegments":3,"FilterExpression":"size(n) > :z","ExpressionAttributeValues":{":z":{"N":"0"}}}`},
		{7, `{"RequestItems":{"tbl":[{"PutRequest":{"Item":{"PK":{"S":"c"},"SK":{"S":"d"}}}},{"DeleteRequest":{"Key":{"PK":{"S":"a"},"SK":{"S":"b"}}}}]}}`},
		{8, `{"TransactItems":[{"ConditionCheck":{"TableName":"tbl","Key":{"PK":{"S":"a"},"SK":{"S":"b"}},"ConditionExpression":"attribute_exists(PK)"}},{"Put":{"TableName":"tbl","Item":{"PK":{"S":"e"},"SK":{"S":"f"}}}}],"ClientRequestToken":"t1"}`},
		{9, `{"TransactItems":[{"Get":{"TableName":"tbl","Key":{"PK":{"S":"a"},"SK":{"S":"b"}}}}]}`},
		{10, `{"TableName":"other","AttributeDefinitions":[{"AttributeName":"k","AttributeType":"B"}],"KeySchema":[{"AttributeName":"k","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}`},
		{3, `{"TableName":"tbl","Key":{"PK":{"S":"a"}}}`},
		{6, `{"RequestItems":{"tbl":{"Keys":[{"PK":{"S":"a"},"SK":{"S":"b"}},{"PK":{"S":"a"},"SK":{"S":"b"}}]}}}`},
		{0, `{"TableName":"tbl","Item":{"PK":{"N":"1e400"},"SK":{"SS":[]}}}`},
		{0, `not json`},
	}
	for _, s := range seeds {
		f.Add(s.op, s.body)
	}
	eng := ddblocal.New(func(o *ddblocal.Options) { o.TTLSweepInterval = -1 })
	f.Cleanup(func() { _ = eng.Close() })
	h := eng.Handler()
	call := func(t *testing.T, op, body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	create := `{"TableName":"tbl","AttributeDefinitions":[{"AttributeName":"PK","AttributeType":"S"},{"AttributeName":"SK","AttributeType":"S"},{"AttributeName":"GSI1PK","AttributeType":"S"},{"AttributeName":"GSI1SK","AttributeType":"S"}],"KeySchema":[{"AttributeName":"PK","KeyType":"HASH"},{"AttributeName":"SK","KeyType":"RANGE"}],"GlobalSecondaryIndexes":[{"IndexName":"GSI1","KeySchema":[{"AttributeName":"GSI1PK","KeyType":"HASH"},{"AttributeName":"GSI1SK","KeyType":"RANGE"}],"Projection":{"ProjectionType":"ALL"}}],"BillingMode":"PAY_PER_REQUEST"}`
	if rec := call(nil, "CreateTable", create); rec.Code != 200 {
		f.Fatalf("create table: %d %s", rec.Code, rec.Body)
	}
	f.Fuzz(func(t *testing.T, op int, body string) {
		if op < 0 {
			op = -op
		}
		name := fuzzOps[op%len(fuzzOps)]
		rec := call(t, name, body)
		if rec.Code != 200 && rec.Code != 400 {
			t.Fatalf("%s %q: status %d %s", name, body, rec.Code, rec.Body)
		}
		var out map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
			t.Fatalf("%s %q: response is not JSON: %v: %s", name, body, err, rec.Body)
		}
		// The table must still answer: no lock may be left held.
		if rec := call(t, "GetItem", `{"TableName":"tbl","Key":{"PK":{"S":"a"},"SK":{"S":"b"}}}`); rec.Code != 200 {
			t.Fatalf("after %s %q: GetItem %d %s", name, body, rec.Code, rec.Body)
		}
	})
}
