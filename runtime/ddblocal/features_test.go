package ddblocal_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/oncetable/oncetable/runtime/ddblocal"
)

// clock is a settable time source for Options.Clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func apiCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

func TestProtocolErrorsAndChecksum(t *testing.T) {
	eng := ddblocal.New()
	defer eng.Close()
	srv := httptest.NewServer(eng.Handler())
	defer srv.Close()
	tests := []struct {
		name       string
		target     string
		body       string
		wantStatus int
		wantType   string
	}{
		{"unknown operation", "DynamoDB_20120810.Frobnicate", "{}", 400, "UnknownOperationException"},
		{"missing table", "DynamoDB_20120810.GetItem", `{"TableName":"nope","Key":{"PK":{"S":"a"}}}`, 400, "ResourceNotFoundException"},
		{"bad json", "DynamoDB_20120810.ListTables", `{"Limit":`, 400, "SerializationException"},
		{"empty attribute value", "DynamoDB_20120810.PutItem", `{"TableName":"abc","Item":{"PK":{}}}`, 400, "ValidationException"},
		{"list tables", "DynamoDB_20120810.ListTables", `{}`, 200, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(tc.body))
			req.Header.Set("X-Amz-Target", tc.target)
			req.Header.Set("Content-Type", "application/x-amz-json-1.0")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.wantStatus {
				t.Fatalf("status %d, want %d (%s)", resp.StatusCode, tc.wantStatus, body)
			}
			if got := resp.Header.Get("Content-Type"); got != "application/x-amz-json-1.0" {
				t.Errorf("Content-Type %q", got)
			}
			if got, want := resp.Header.Get("x-amz-crc32"), strconv.FormatUint(uint64(crc32.ChecksumIEEE(body)), 10); got != want {
				t.Errorf("x-amz-crc32 %s, want %s", got, want)
			}
			if resp.Header.Get("x-amzn-RequestId") == "" {
				t.Error("no x-amzn-RequestId")
			}
			if tc.wantType == "" {
				return
			}
			var e struct {
				Type    string `json:"__type"`
				Message string `json:"message"`
			}
			if err := json.Unmarshal(body, &e); err != nil {
				t.Fatal(err)
			}
			if e.Type != "com.amazonaws.dynamodb.v20120810#"+tc.wantType || e.Message == "" {
				t.Fatalf("error body %s, want type %s", body, tc.wantType)
			}
		})
	}
}

func TestSparseIndexAndMovingKeys(t *testing.T) {
	_, db := newTable(t)
	ctx := context.Background()
	put(t, db, map[string]av{"PK": s("PAY#1"), "SK": s("PAY"), "UnprocessedPK": s("U"), "UnprocessedSK": s("1"), "amount": n("5"), "secret": s("x")})
	put(t, db, map[string]av{"PK": s("PAY#2"), "SK": s("PAY")})
	queryIndex := func(index, pkName, pk string) []map[string]av {
		out, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("tbl"), IndexName: aws.String(index),
			KeyConditionExpression: aws.String("#k = :v"), ExpressionAttributeNames: map[string]string{"#k": pkName},
			ExpressionAttributeValues: map[string]av{":v": s(pk)}})
		if err != nil {
			t.Fatal(err)
		}
		return out.Items
	}
	items := queryIndex("Unprocessed", "UnprocessedPK", "U")
	if len(items) != 1 || items[0]["amount"] == nil || items[0]["secret"] != nil {
		t.Fatalf("INCLUDE projection: got %v", items)
	}
	if _, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("tbl"), Key: key("PAY#1", "PAY"),
		UpdateExpression:          aws.String("SET GSI1PK = :g, GSI1SK = :s REMOVE UnprocessedPK, UnprocessedSK"),
		ExpressionAttributeValues: map[string]av{":g": s("G1"), ":s": s("1")}}); err != nil {
		t.Fatal(err)
	}
	if items := queryIndex("Unprocessed", "UnprocessedPK", "U"); len(items) != 0 {
		t.Fatalf("REMOVE left the item in the sparse index: %v", items)
	}
	if _, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("tbl"), Key: key("PAY#1", "PAY"),
		UpdateExpression: aws.String("SET GSI1PK = :g"), ExpressionAttributeValues: map[string]av{":g": s("G2")}}); err != nil {
		t.Fatal(err)
	}
	if a, b := queryIndex("GSI1", "GSI1PK", "G1"), queryIndex("GSI1", "GSI1PK", "G2"); len(a) != 0 || len(b) != 1 {
		t.Fatalf("changed GSI key: old partition %d items, new %d; want 0 and 1", len(a), len(b))
	}
	_, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("tbl"), IndexName: aws.String("GSI1"), ConsistentRead: aws.Bool(true),
		KeyConditionExpression: aws.String("GSI1PK = :v"), ExpressionAttributeValues: map[string]av{":v": s("G2")}})
	if apiCode(err) != "ValidationException" || !strings.Contains(err.Error(), "Consistent reads are not supported on global secondary indexes") {
		t.Fatalf("ConsistentRead on GSI: got %v", err)
	}
}

func TestGSIDelayFault(t *testing.T) {
	clk := &clock{now: time.Unix(1_700_000_000, 0)}
	eng, db := newTable(t, func(o *ddblocal.Options) { o.Clock = clk.Now })
	eng.SetFaults("tbl", ddblocal.Faults{GSIDelay: time.Second})
	put(t, db, map[string]av{"PK": s("A"), "SK": s("1"), "GSI1PK": s("G"), "GSI1SK": s("1")})
	count := func() int32 {
		out, err := db.Query(context.Background(), &dynamodb.QueryInput{TableName: aws.String("tbl"), IndexName: aws.String("GSI1"),
			KeyConditionExpression: aws.String("GSI1PK = :v"), ExpressionAttributeValues: map[string]av{":v": s("G")}, Select: types.SelectCount})
		if err != nil {
			t.Fatal(err)
		}
		return out.Count
	}
	if c := count(); c != 0 {
		t.Fatalf("index visible before the delay: %d", c)
	}
	clk.Add(time.Second)
	if c := count(); c != 1 {
		t.Fatalf("index not visible after the delay: %d", c)
	}
	if eng.FaultCounts().DelayedIndexWrites == 0 {
		t.Fatal("delayed index writes not counted")
	}
}

func TestTTLSweep(t *testing.T) {
	clk := &clock{now: time.Unix(1_700_000_000, 0)}
	eng, db := newTable(t, func(o *ddblocal.Options) { o.Clock = clk.Now; o.TTLSweepInterval = -1 })
	ctx := context.Background()
	exp := strconv.FormatInt(clk.Now().Add(time.Minute).Unix(), 10)
	put(t, db, map[string]av{"PK": s("A"), "SK": s("1"), "expiresAt": n(exp)})
	put(t, db, map[string]av{"PK": s("A"), "SK": s("2"), "expiresAt": s("not a number")})
	put(t, db, map[string]av{"PK": s("A"), "SK": s("3"), "expiresAt": n("1")}) // more than five years ago: ignored
	clk.Add(2 * time.Minute)
	get := func(sk string) bool {
		out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("tbl"), Key: key("A", sk)})
		if err != nil {
			t.Fatal(err)
		}
		return out.Item != nil
	}
	if !get("1") {
		t.Fatal("expired item must stay readable until swept")
	}
	if got, err := eng.SweepTTL(ctx); err != nil || got != 1 {
		t.Fatalf("swept %d items (%v), want 1", got, err)
	}
	if get("1") || !get("2") || !get("3") {
		t.Fatalf("after sweep: 1=%v 2=%v 3=%v, want false true true", get("1"), get("2"), get("3"))
	}
	ttl, err := db.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("tbl")})
	if err != nil || ttl.TimeToLiveDescription.TimeToLiveStatus != types.TimeToLiveStatusEnabled || aws.ToString(ttl.TimeToLiveDescription.AttributeName) != "expiresAt" {
		t.Fatalf("DescribeTimeToLive: %+v %v", ttl, err)
	}
}

func TestPersistenceAcrossRestart(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	eng := ddblocal.New(func(o *ddblocal.Options) { o.Dir = dir })
	db := eng.Client()
	if err := ddblocal.CreateFixtureTable(ctx, db, "tbl"); err != nil {
		t.Fatal(err)
	}
	put(t, db, map[string]av{"PK": s("A"), "SK": s("1"), "GSI1PK": s("G"), "GSI1SK": s("1")})
	put(t, db, map[string]av{"PK": s("A"), "SK": s("2")})
	if _, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("tbl"), Key: key("A", "2")}); err != nil {
		t.Fatal(err)
	}
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	eng = ddblocal.New(func(o *ddblocal.Options) { o.Dir = dir })
	defer eng.Close()
	db = eng.Client()
	out, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("tbl"), IndexName: aws.String("GSI1"),
		KeyConditionExpression: aws.String("GSI1PK = :v"), ExpressionAttributeValues: map[string]av{":v": s("G")}})
	if err != nil || len(out.Items) != 1 {
		t.Fatalf("GSI after restart: %v %v", out, err)
	}
	scan, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("tbl")})
	if err != nil || scan.Count != 1 {
		t.Fatalf("scan after restart: count %d, %v; want 1", scan.Count, err)
	}
	ttl, err := db.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("tbl")})
	if err != nil || ttl.TimeToLiveDescription.TimeToLiveStatus != types.TimeToLiveStatusEnabled {
		t.Fatalf("TTL after restart: %v", err)
	}
}

// A second engine on a directory another one holds fails fast with
// ErrDirInUse instead of bbolt's bare "timeout".
func TestOpenDirInUse(t *testing.T) {
	dir := t.TempDir()
	first, err := ddblocal.Open(func(o *ddblocal.Options) { o.Dir = dir })
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	start := time.Now()
	second, err := ddblocal.Open(func(o *ddblocal.Options) { o.Dir = dir })
	if err == nil {
		second.Close()
		t.Fatal("second Open on a held directory succeeded")
	}
	if !errors.Is(err, ddblocal.ErrDirInUse) || !strings.Contains(err.Error(), dir) {
		t.Errorf("err = %v, want ErrDirInUse naming %s", err, dir)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("waited %v for the lock, want about 1s", d)
	}
}

func TestBatchLimitsAndUnprocessed(t *testing.T) {
	eng, db := newTable(t)
	ctx := context.Background()
	puts := func(k int, dup bool) map[string][]types.WriteRequest {
		var reqs []types.WriteRequest
		for i := range k {
			sk := strconv.Itoa(i)
			if dup {
				sk = "same"
			}
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]av{"PK": s("B"), "SK": s(sk)}}})
		}
		return map[string][]types.WriteRequest{"tbl": reqs}
	}
	tests := []struct {
		name     string
		req      map[string][]types.WriteRequest
		wantCode string
		wantMsg  string
	}{
		{"26 items", puts(26, false), "ValidationException", "Member must have length less than or equal to 25"},
		{"duplicate keys", puts(2, true), "ValidationException", "Provided list of item keys contains duplicates"},
		{"25 items", puts(25, false), "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: tc.req})
			if tc.wantCode == "" {
				if err != nil || len(out.UnprocessedItems) != 0 {
					t.Fatalf("got %v, unprocessed %v", err, out)
				}
				return
			}
			if apiCode(err) != tc.wantCode || !strings.Contains(err.Error(), tc.wantMsg) {
				t.Fatalf("got %v, want %s %q", err, tc.wantCode, tc.wantMsg)
			}
		})
	}
	eng.SetFaults("tbl", ddblocal.Faults{Seed: 7, UnprocessedRate: 0.5})
	out, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: puts(20, false)})
	if err != nil {
		t.Fatal(err)
	}
	got := len(out.UnprocessedItems["tbl"])
	if got == 0 || got == 20 || int64(got) != eng.TableFaultCounts("tbl").Unprocessed {
		t.Fatalf("unprocessed %d of 20, counted %d", got, eng.TableFaultCounts("tbl").Unprocessed)
	}
	var keys []map[string]av
	for i := range 101 {
		keys = append(keys, key("B", strconv.Itoa(i)))
	}
	eng.ClearFaults("tbl")
	_, err = db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"tbl": {Keys: keys}}})
	if apiCode(err) != "ValidationException" || !strings.Contains(err.Error(), "at 'RequestItems.tbl.member.Keys' failed to satisfy constraint: Member must have length less than or equal to 100") {
		t.Fatalf("101 keys: %v", err)
	}
	bg, err := db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"tbl": {Keys: keys[:100]}}})
	if err != nil || len(bg.Responses["tbl"]) != 25 {
		t.Fatalf("BatchGetItem: %d items, %v; want 25", len(bg.Responses["tbl"]), err)
	}
}

func TestLostResponseIsCommitted(t *testing.T) {
	for _, mode := range []ddblocal.LoseMode{ddblocal.LoseAs500, ddblocal.LoseAsReset} {
		t.Run(fmt.Sprint(mode), func(t *testing.T) {
			eng, _ := newTable(t)
			db := eng.Client(func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 })
			eng.SetFaults("tbl", ddblocal.Faults{LoseResponseRate: 1, LoseResponseMode: mode})
			_, err := db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("tbl"), Item: key("L", "1")})
			if err == nil {
				t.Fatal("response was not lost")
			}
			eng.ClearFaults("tbl")
			out, err := db.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String("tbl"), Key: key("L", "1")})
			if err != nil || out.Item == nil {
				t.Fatalf("write with a lost response was not committed: %v", err)
			}
			if eng.FaultCounts().LostResponses != 1 {
				t.Fatalf("lost responses counted %d, want 1", eng.FaultCounts().LostResponses)
			}
		})
	}
}

func TestFaultsThrottleAndConflict(t *testing.T) {
	eng, _ := newTable(t)
	db := eng.Client(func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 })
	ctx := context.Background()
	eng.SetFaults("tbl", ddblocal.Faults{ThrottleRate: 1, ThrottleCode: ddblocal.CodeThrottling})
	_, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("tbl"), Key: key("A", "1")})
	if apiCode(err) != "ThrottlingException" {
		t.Fatalf("got %v, want ThrottlingException", err)
	}
	eng.SetFaults("tbl", ddblocal.Faults{TransactionConflictRate: 1})
	_, err = db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String("tbl"), Item: key("A", "1")}},
		{Put: &types.Put{TableName: aws.String("tbl"), Item: key("A", "2")}},
	}})
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) || !strings.Contains(tce.ErrorMessage(), "TransactionConflict") {
		t.Fatalf("got %v, want TransactionCanceledException with TransactionConflict", err)
	}
	c := eng.FaultCounts()
	if c.Throttled != 1 || c.TransactionConflicts != 1 {
		t.Fatalf("counts %+v", c)
	}
}

func TestUpdateTableBackfillsIndex(t *testing.T) {
	_, db := newTable(t)
	ctx := context.Background()
	for i := range 5 {
		put(t, db, map[string]av{"PK": s("A"), "SK": s(strconv.Itoa(i)), "color": s([]string{"red", "blue"}[i%2])})
	}
	_, err := db.UpdateTable(ctx, &dynamodb.UpdateTableInput{
		TableName:            aws.String("tbl"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("color"), AttributeType: types.ScalarAttributeTypeS}},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName: aws.String("ByColor"), KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("color"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("tbl"), IndexName: aws.String("ByColor"),
		KeyConditionExpression: aws.String("color = :c"), ExpressionAttributeValues: map[string]av{":c": s("red")}})
	if err != nil || out.Count != 3 {
		t.Fatalf("backfilled index: %d items, %v; want 3", out.Count, err)
	}
	if _, err := db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("tbl"),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("ByColor")}}}}); err != nil {
		t.Fatal(err)
	}
	_, err = db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("tbl"), IndexName: aws.String("ByColor"),
		KeyConditionExpression: aws.String("color = :c"), ExpressionAttributeValues: map[string]av{":c": s("red")}})
	if apiCode(err) != "ValidationException" {
		t.Fatalf("query on deleted index: %v", err)
	}
}

func TestScanSegmentsFilterAndLimit(t *testing.T) {
	_, db := newTable(t)
	ctx := context.Background()
	for i := range 40 {
		put(t, db, map[string]av{"PK": s("P" + strconv.Itoa(i)), "SK": s("x"), "n": n(strconv.Itoa(i))})
	}
	seen := map[string]int{}
	for seg := range int32(4) {
		var start map[string]av
		for {
			out, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("tbl"), Segment: aws.Int32(seg), TotalSegments: aws.Int32(4), Limit: aws.Int32(3), ExclusiveStartKey: start})
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range out.Items {
				seen[it["PK"].(*types.AttributeValueMemberS).Value]++
			}
			if out.LastEvaluatedKey == nil {
				break
			}
			start = out.LastEvaluatedKey
		}
	}
	if len(seen) != 40 {
		t.Fatalf("segments saw %d distinct items, want 40", len(seen))
	}
	for k, c := range seen {
		if c != 1 {
			t.Fatalf("%s seen %d times", k, c)
		}
	}
	out, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("tbl"), Limit: aws.Int32(10),
		FilterExpression: aws.String("n < :ten"), ExpressionAttributeValues: map[string]av{":ten": n("10")}, Select: types.SelectCount})
	if err != nil || out.ScannedCount != 10 || out.Count > 10 || out.Items != nil || out.LastEvaluatedKey == nil {
		t.Fatalf("filtered scan: scanned %d count %d lek %v items %v, %v", out.ScannedCount, out.Count, out.LastEvaluatedKey, out.Items, err)
	}
}

func TestConsumedCapacity(t *testing.T) {
	_, db := newTable(t)
	ctx := context.Background()
	big := strings.Repeat("x", 1500)
	out, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tbl"),
		Item:                   map[string]av{"PK": s("C"), "SK": s("1"), "GSI1PK": s("g"), "GSI1SK": s("s"), "big": s(big)},
		ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
	if err != nil {
		t.Fatal(err)
	}
	cc := out.ConsumedCapacity
	if aws.ToFloat64(cc.CapacityUnits) != 4 || aws.ToFloat64(cc.Table.CapacityUnits) != 2 || aws.ToFloat64(cc.GlobalSecondaryIndexes["GSI1"].CapacityUnits) != 2 {
		t.Fatalf("put capacity: total %v table %v gsi %+v; want 4, 2, 2", aws.ToFloat64(cc.CapacityUnits), aws.ToFloat64(cc.Table.CapacityUnits), cc.GlobalSecondaryIndexes)
	}
	g, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("tbl"), Key: key("C", "1"), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if err != nil || aws.ToFloat64(g.ConsumedCapacity.CapacityUnits) != 0.5 {
		t.Fatalf("eventually consistent get: %v, %v; want 0.5", g.ConsumedCapacity, err)
	}
	tx, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
		TransactItems: []types.TransactWriteItem{{Put: &types.Put{TableName: aws.String("tbl"), Item: key("C", "2")}}}})
	if err != nil || len(tx.ConsumedCapacity) != 1 || aws.ToFloat64(tx.ConsumedCapacity[0].CapacityUnits) != 2 {
		t.Fatalf("transaction capacity: %+v, %v; want 2", tx.ConsumedCapacity, err)
	}
}

func TestItemSizeLimit(t *testing.T) {
	_, db := newTable(t)
	_, err := db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("tbl"),
		Item: map[string]av{"PK": s("A"), "SK": s("1"), "x": s(strings.Repeat("x", 400*1024))}})
	if apiCode(err) != "ValidationException" || !strings.Contains(err.Error(), "Item size has exceeded the maximum allowed size") {
		t.Fatalf("got %v", err)
	}
}

func TestListTablesPaginates(t *testing.T) {
	eng := ddblocal.New()
	defer eng.Close()
	db := eng.Client()
	ctx := context.Background()
	for i := range 5 {
		in := ddblocal.FixtureTableInput(fmt.Sprintf("table-%d", i))
		if _, err := db.CreateTable(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	var names []string
	p := dynamodb.NewListTablesPaginator(db, &dynamodb.ListTablesInput{Limit: aws.Int32(2)})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, out.TableNames...)
	}
	if strings.Join(names, ",") != "table-0,table-1,table-2,table-3,table-4" {
		t.Fatalf("got %v", names)
	}
	_, err := db.CreateTable(ctx, ddblocal.FixtureTableInput("table-0"))
	if apiCode(err) != "ResourceInUseException" {
		t.Fatalf("duplicate table: %v", err)
	}
}

// The legacy parameters decode on the fast path (plain JSON) and on the
// encoding/json fallback (an escaped string) alike, and a bad legacy
// operator is refused before anything is written.
func TestLegacyParametersRawBodies(t *testing.T) {
	eng, _ := newTable(t)
	h := eng.Handler()
	tests := []struct {
		name, target, body string
		code               int
		want               string
	}{
		{"put if absent", "PutItem", `{"TableName":"tbl","Item":{"PK":{"S":"a"},"SK":{"S":"b"},"v":{"N":"1"}},"Expected":{"PK":{"Exists":false}}}`, 200, ""},
		{"put if absent again", "PutItem", `{"TableName":"tbl","Item":{"PK":{"S":"a"},"SK":{"S":"b"}},"Expected":{"PK":{"Exists":false}}}`, 400, "ConditionalCheckFailedException"},
		{"escaped (fallback decoder)", "PutItem", `{"TableName":"tbl","Item":{"PK":{"S":"a"},"SK":{"S":"b"}},"Expected":{"\u0050K":{"Exists":false}}}`, 400, "ConditionalCheckFailedException"},
		{"unknown operator", "UpdateItem", `{"TableName":"tbl","Key":{"PK":{"S":"a"},"SK":{"S":"b"}},"AttributeUpdates":{"v":{"Action":"PUT","Value":{"N":"2"}}},"Expected":{"v":{"ComparisonOperator":"EQUALS","AttributeValueList":[{"N":"1"}]}}}`, 400, "Member must satisfy enum value set"},
		{"unknown action", "UpdateItem", `{"TableName":"tbl","Key":{"PK":{"S":"a"},"SK":{"S":"b"}},"AttributeUpdates":{"v":{"Action":"SET","Value":{"N":"2"}}}}`, 400, "attributeUpdates.v.member.action"},
		{"query", "Query", `{"TableName":"tbl","KeyConditions":{"PK":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"a"}]}},"QueryFilter":{"v":{"ComparisonOperator":"EQ","AttributeValueList":[{"N":"1"}]}}}`, 200, `"Count":1`},
		{"scan", "Scan", `{"TableName":"tbl","ScanFilter":{"v":{"ComparisonOperator":"GT","AttributeValueList":[{"N":"1"}]}}}`, 200, `"Count":0`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(tc.body))
			req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+tc.target)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tc.code || !strings.Contains(rec.Body.String(), tc.want) {
				t.Fatalf("got %d %s, want %d with %q", rec.Code, rec.Body, tc.code, tc.want)
			}
		})
	}
}

func TestLostResponseOverTCPResetsConnection(t *testing.T) {
	eng, _ := newTable(t)
	srv := httptest.NewServer(eng.Handler())
	defer srv.Close()
	db := eng.Client(func(o *dynamodb.Options) {
		o.BaseEndpoint = aws.String(srv.URL)
		o.HTTPClient = srv.Client()
		o.RetryMaxAttempts = 1
	})
	eng.SetFaults("tbl", ddblocal.Faults{LoseResponseRate: 1, LoseResponseMode: ddblocal.LoseAsReset})
	_, err := db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("tbl"), Item: key("R", "1")})
	if err == nil || apiCode(err) != "" {
		t.Fatalf("got %v, want a transport error", err)
	}
	eng.ClearFaults("tbl")
	out, err := db.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String("tbl"), Key: key("R", "1")})
	if err != nil || out.Item == nil {
		t.Fatalf("write whose connection was reset was not committed: %v", err)
	}
}

func TestLocalSecondaryIndex(t *testing.T) {
	eng := ddblocal.New()
	defer eng.Close()
	db := eng.Client()
	ctx := context.Background()
	_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String("lsi"),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeN},
			{AttributeName: aws.String("at"), AttributeType: types.ScalarAttributeTypeN},
		},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{{IndexName: aws.String("ByAt"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("at"), KeyType: types.KeyTypeRange}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}},
		BillingMode: types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("lsi"), Item: map[string]av{
			"pk": s("p"), "sk": n(strconv.Itoa(i)), "at": n(strconv.Itoa(100 - i*10)), "body": s("b" + strconv.Itoa(i))}}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name      string
		sel       types.Select
		wantFirst string
		wantBody  bool
	}{
		{"projected keys", types.SelectAllProjectedAttributes, "8", false},
		{"all attributes fetched from the table", types.SelectAllAttributes, "8", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("lsi"), IndexName: aws.String("ByAt"), ConsistentRead: aws.Bool(true),
				KeyConditionExpression: aws.String("pk = :p AND #at > :lo"), ExpressionAttributeNames: map[string]string{"#at": "at"},
				ExpressionAttributeValues: map[string]av{":p": s("p"), ":lo": n("15")}, Select: tc.sel})
			if err != nil {
				t.Fatal(err)
			}
			if out.Count != 9 {
				t.Fatalf("count %d, want 9", out.Count)
			}
			first := out.Items[0]
			if got := first["sk"].(*types.AttributeValueMemberN).Value; got != tc.wantFirst {
				t.Fatalf("first sk %s, want %s (ordered by at ascending)", got, tc.wantFirst)
			}
			if _, has := first["body"]; has != tc.wantBody {
				t.Fatalf("body present %v, want %v", has, tc.wantBody)
			}
		})
	}
}

func TestFaultsLimitedToOperations(t *testing.T) {
	eng, _ := newTable(t)
	db := eng.Client(func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 })
	ctx := context.Background()
	eng.SetFaults("tbl", ddblocal.Faults{ThrottleRate: 1, Operations: []string{"PutItem"}})
	tests := []struct {
		name     string
		call     func() error
		wantCode string
	}{
		{"PutItem is throttled", func() error {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tbl"), Item: key("O", "1")})
			return err
		}, "ProvisionedThroughputExceededException"},
		{"GetItem is not", func() error {
			_, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("tbl"), Key: key("O", "1")})
			return err
		}, ""},
		{"BatchWriteItem is not", func() error {
			_, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
				"tbl": {{PutRequest: &types.PutRequest{Item: key("O", "2")}}}}})
			return err
		}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := apiCode(tc.call()); got != tc.wantCode {
				t.Fatalf("got code %q, want %q", got, tc.wantCode)
			}
		})
	}
}

// TestLargeResponsesOverTCP guards against the SDK body-close race that
// HTTPClient works around (see its doc comment).
func TestLargeResponsesOverTCP(t *testing.T) {
	eng, db := newTable(t)
	for i := range 12 {
		put(t, db, map[string]av{"PK": s("p"), "SK": s(strconv.Itoa(i)), "d": s(strings.Repeat("x", 100*1024))})
	}
	srv := httptest.NewServer(eng.Handler())
	defer srv.Close()
	c := ddblocal.EndpointClient(srv.URL, func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 })
	for i := range 40 {
		out, err := c.Query(context.Background(), &dynamodb.QueryInput{TableName: aws.String("tbl"),
			KeyConditionExpression: aws.String("PK = :p"), ExpressionAttributeValues: map[string]av{":p": s("p")}})
		if err != nil || out.Count < 9 {
			t.Fatalf("request %d: %d items, %v", i, out.Count, err)
		}
	}
}

func TestTags(t *testing.T) {
	_, db := newTable(t)
	ctx := context.Background()
	d, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("tbl")})
	if err != nil {
		t.Fatal(err)
	}
	arn := d.Table.TableArn
	if _, err := db.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: arn, Tags: []types.Tag{
		{Key: aws.String("env"), Value: aws.String("dev")}, {Key: aws.String("team"), Value: aws.String("pay")}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.UntagResource(ctx, &dynamodb.UntagResourceInput{ResourceArn: arn, TagKeys: []string{"team"}}); err != nil {
		t.Fatal(err)
	}
	out, err := db.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: arn})
	if err != nil || len(out.Tags) != 1 || aws.ToString(out.Tags[0].Key) != "env" {
		t.Fatalf("tags %+v, %v; want only env", out, err)
	}
	_, err = db.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String("arn:aws:dynamodb:us-east-1:000000000000:table/missing")})
	if apiCode(err) != "AccessDeniedException" {
		t.Fatalf("missing table: %v", err)
	}
}

func TestQueryFilterOnKeyIsRejected(t *testing.T) {
	_, db := newTable(t)
	_, err := db.Query(context.Background(), &dynamodb.QueryInput{TableName: aws.String("tbl"),
		KeyConditionExpression: aws.String("PK = :p"), FilterExpression: aws.String("begins_with(SK, :s)"),
		ExpressionAttributeValues: map[string]av{":p": s("a"), ":s": s("b")}})
	if apiCode(err) != "ValidationException" || !strings.Contains(err.Error(), "Filter Expression can only contain non-primary key attributes: Primary key attribute: SK") {
		t.Fatalf("got %v", err)
	}
}

func TestPersistenceKeepsTableSettings(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	eng := ddblocal.New(func(o *ddblocal.Options) { o.Dir = dir })
	db := eng.Client()
	if err := ddblocal.CreateFixtureTable(ctx, db, "tbl"); err != nil {
		t.Fatal(err)
	}
	put(t, db, map[string]av{"PK": s("A"), "SK": s("1"), "color": s("red")})
	if _, err := db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("tbl"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("color"), AttributeType: types.ScalarAttributeTypeS}},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName: aws.String("ByColor"), KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("color"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.UpdateContinuousBackups(ctx, &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("tbl"),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	eng = ddblocal.New(func(o *ddblocal.Options) { o.Dir = dir })
	defer eng.Close()
	db = eng.Client()
	q, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("tbl"), IndexName: aws.String("ByColor"),
		KeyConditionExpression: aws.String("color = :c"), ExpressionAttributeValues: map[string]av{":c": s("red")}})
	if err != nil || q.Count != 1 {
		t.Fatalf("index created by UpdateTable after restart: %v, %v", q, err)
	}
	cb, err := db.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String("tbl")})
	if err != nil || cb.ContinuousBackupsDescription.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus != types.PointInTimeRecoveryStatusEnabled {
		t.Fatalf("PITR after restart: %+v, %v", cb, err)
	}
}

func TestQueryStartKeyOutsideBoundaries(t *testing.T) {
	_, db := newTable(t)
	put(t, db, map[string]av{"PK": s("A"), "SK": s("5")})
	tests := []struct {
		name  string
		start map[string]av
		want  string
	}{
		{"other partition", key("B", "5"), "The provided starting key is outside query boundaries based on provided conditions"},
		{"sort key outside the range", key("A", "9"), "The provided starting key is outside query boundaries based on provided conditions"},
		{"inside", key("A", "3"), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := db.Query(context.Background(), &dynamodb.QueryInput{TableName: aws.String("tbl"),
				KeyConditionExpression:    aws.String("PK = :p AND SK BETWEEN :a AND :b"),
				ExpressionAttributeValues: map[string]av{":p": s("A"), ":a": s("1"), ":b": s("6")},
				ExclusiveStartKey:         tc.start})
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if apiCode(err) != "ValidationException" || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}

// TestLostResponsesAreRetriedBySDK checks that the SDK's standard retryer
// treats both kinds of lost response as transient, as it does in production.
func TestLostResponsesAreRetriedBySDK(t *testing.T) {
	for _, mode := range []ddblocal.LoseMode{ddblocal.LoseAs500, ddblocal.LoseAsReset} {
		t.Run(fmt.Sprint(mode), func(t *testing.T) {
			eng, _ := newTable(t)
			db := eng.Client(func(o *dynamodb.Options) { o.RetryMaxAttempts = 10 })
			eng.SetFaults("tbl", ddblocal.Faults{Seed: 3, LoseResponseRate: 0.5, LoseResponseMode: mode})
			for i := range 10 {
				if _, err := db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("tbl"), Item: key("R", strconv.Itoa(i))}); err != nil {
					t.Fatalf("put %d: %v", i, err)
				}
			}
			if eng.FaultCounts().LostResponses == 0 {
				t.Fatal("no response was lost")
			}
		})
	}
}
