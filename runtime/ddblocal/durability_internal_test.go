package ddblocal

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	bolt "go.etcd.io/bbolt"
)

var errDiskFull = errors.New("no space left on device (injected)")

// durableFixture is an engine on a data directory with two fixture tables,
// "tab-a" (with a stream) and "tab-b", and a client that does not retry.
type durableFixture struct {
	t    *testing.T
	dir  string
	e    *Engine
	db   *dynamodb.Client
	fail atomic.Bool
	now  atomic.Int64
}

func newDurableFixture(t *testing.T) *durableFixture {
	f := &durableFixture{t: t, dir: t.TempDir()}
	f.now.Store(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).UnixNano())
	f.open()
	ctx := context.Background()
	in := FixtureTableInput("tab-a")
	in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}
	for _, in := range []*dynamodb.CreateTableInput{in, FixtureTableInput("tab-b")} {
		if _, err := f.db.CreateTable(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func (f *durableFixture) open() {
	e, err := Open(func(o *Options) {
		o.Dir = f.dir
		o.Clock = func() time.Time { return time.Unix(0, f.now.Load()) }
		o.TTLSweepInterval = -1
	})
	if err != nil {
		f.t.Fatal(err)
	}
	e.commitFault = func() error {
		if f.fail.Load() {
			return errDiskFull
		}
		return nil
	}
	f.e, f.db = e, e.Client(func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 })
	f.t.Cleanup(func() { _ = e.Close() })
}

// restart closes the engine and opens the directory again.
func (f *durableFixture) restart() {
	if err := f.e.Close(); err != nil {
		f.t.Fatal(err)
	}
	f.open()
}

// item returns the item of pk in table, nil when absent, by a consistent
// GetItem and by a query of GSI1 (which must agree).
func (f *durableFixture) item(table, pk string) map[string]types.AttributeValue {
	f.t.Helper()
	ctx := context.Background()
	out, err := f.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"PK": str(pk), "SK": str("S")}})
	if err != nil {
		f.t.Fatal(err)
	}
	q, err := f.db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("GSI1"),
		KeyConditionExpression: aws.String("GSI1PK = :p"), ExpressionAttributeValues: map[string]types.AttributeValue{":p": str("G" + pk)}})
	if err != nil {
		f.t.Fatal(err)
	}
	if (out.Item == nil) != (len(q.Items) == 0) {
		f.t.Fatalf("%s/%s: table has item %v, GSI1 has %d rows", table, pk, out.Item != nil, len(q.Items))
	}
	return out.Item
}

func str(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }

func num(s string) types.AttributeValue { return &types.AttributeValueMemberN{Value: s} }

func fixtureItem(pk, n string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"PK": str(pk), "SK": str("S"), "GSI1PK": str("G" + pk), "GSI1SK": str("x"), "n": num(n)}
}

func wantInternalError(t *testing.T, err error) {
	t.Helper()
	var ie *types.InternalServerError
	if !errors.As(err, &ie) {
		t.Fatalf("got %v, want InternalServerError", err)
	}
}

// TestFailedCommitLeavesNoTrace fails the store's commit of every kind of
// write, as a full disk would: the client gets a 500, and neither readers
// (items, index rows, stream records) nor the next process see the write.
func TestFailedCommitLeavesNoTrace(t *testing.T) {
	f := newDurableFixture(t)
	ctx := context.Background()
	for _, pk := range []string{"p1", "p2"} {
		if _, err := f.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tab-a"), Item: fixtureItem(pk, "1")}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tab-b"), Item: fixtureItem("p1", "1")}); err != nil {
		t.Fatal(err)
	}
	records := f.streamRecords()

	f.fail.Store(true)
	key := map[string]types.AttributeValue{"PK": str("p1"), "SK": str("S")}
	writes := map[string]func() error{
		"PutItem new": func() error {
			_, err := f.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tab-a"), Item: fixtureItem("new", "1")})
			return err
		},
		"PutItem replace": func() error {
			it := fixtureItem("p1", "9")
			it["GSI1PK"] = str("Gmoved")
			_, err := f.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tab-a"), Item: it})
			return err
		},
		"UpdateItem": func() error {
			_, err := f.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("tab-a"), Key: key,
				UpdateExpression: aws.String("ADD n :one REMOVE GSI1PK"), ExpressionAttributeValues: map[string]types.AttributeValue{":one": num("1")}})
			return err
		},
		"DeleteItem": func() error {
			_, err := f.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("tab-a"), Key: key})
			return err
		},
		"BatchWriteItem": func() error {
			_, err := f.db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
				"tab-a": {{DeleteRequest: &types.DeleteRequest{Key: key}}, {PutRequest: &types.PutRequest{Item: fixtureItem("new", "1")}}}}})
			return err
		},
		"TransactWriteItems across tables": func() error {
			_, err := f.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{ClientRequestToken: aws.String("tok-1"),
				TransactItems: []types.TransactWriteItem{
					{Update: &types.Update{TableName: aws.String("tab-a"), Key: key, UpdateExpression: aws.String("ADD n :m"),
						ExpressionAttributeValues: map[string]types.AttributeValue{":m": num("-1")}}},
					{Update: &types.Update{TableName: aws.String("tab-b"), Key: key, UpdateExpression: aws.String("ADD n :p"),
						ExpressionAttributeValues: map[string]types.AttributeValue{":p": num("1")}}},
					{Delete: &types.Delete{TableName: aws.String("tab-a"), Key: map[string]types.AttributeValue{"PK": str("p2"), "SK": str("S")}}},
					{Put: &types.Put{TableName: aws.String("tab-b"), Item: fixtureItem("new", "1")}},
				}})
			return err
		},
	}
	check := func(when string) {
		t.Helper()
		for _, c := range []struct{ table, pk, n string }{{"tab-a", "p1", "1"}, {"tab-a", "p2", "1"}, {"tab-b", "p1", "1"}, {"tab-a", "new", ""}, {"tab-b", "new", ""}} {
			it := f.item(c.table, c.pk)
			got := ""
			if it != nil {
				got = it["n"].(*types.AttributeValueMemberN).Value
			}
			if got != c.n {
				t.Fatalf("%s: %s/%s n = %q, want %q", when, c.table, c.pk, got, c.n)
			}
		}
		if _, err := f.db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("tab-a"), IndexName: aws.String("GSI1"),
			KeyConditionExpression: aws.String("GSI1PK = :p"), ExpressionAttributeValues: map[string]types.AttributeValue{":p": str("Gmoved")}}); err != nil {
			t.Fatal(err)
		}
		if got := f.streamRecords(); got != records {
			t.Fatalf("%s: %d stream records, want %d", when, got, records)
		}
	}
	for name, write := range writes {
		wantInternalError(t, write())
		check("after a failed " + name)
	}
	f.fail.Store(false)
	f.restart()
	check("after a restart")

	// The failed transaction's token was not remembered: its retry runs.
	if err := writes["TransactWriteItems across tables"](); err != nil {
		t.Fatal(err)
	}
	if n := f.item("tab-b", "p1")["n"].(*types.AttributeValueMemberN).Value; n != "2" {
		t.Fatalf("b/p1 n = %s after the retry, want 2", n)
	}
}

// streamRecords counts the records readable from table a's stream.
func (f *durableFixture) streamRecords() int {
	f.t.Helper()
	ctx := context.Background()
	sc := f.e.StreamsClient()
	desc, err := f.db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("tab-a")})
	if err != nil {
		f.t.Fatal(err)
	}
	sd, err := sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: desc.Table.LatestStreamArn})
	if err != nil {
		f.t.Fatal(err)
	}
	n := 0
	for _, sh := range sd.StreamDescription.Shards {
		it, err := sc.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: desc.Table.LatestStreamArn,
			ShardId: sh.ShardId, ShardIteratorType: streamtypes.ShardIteratorTypeTrimHorizon})
		if err != nil {
			f.t.Fatal(err)
		}
		out, err := sc.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it.ShardIterator})
		if err != nil {
			f.t.Fatal(err)
		}
		n += len(out.Records)
	}
	return n
}

// TestSweepReportsFailedCommit checks that a TTL sweep whose deletions
// cannot be saved returns the error and keeps the items, and that the next
// sweep deletes them.
func TestSweepReportsFailedCommit(t *testing.T) {
	f := newDurableFixture(t)
	ctx := context.Background()
	if _, err := f.db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("tab-a"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	it := fixtureItem("old", "1")
	it["exp"] = num(strconv.FormatInt(time.Unix(0, f.now.Load()).Unix()-60, 10))
	if _, err := f.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tab-a"), Item: it}); err != nil {
		t.Fatal(err)
	}
	f.fail.Store(true)
	n, err := f.e.SweepTTL(ctx)
	if !errors.Is(err, errDiskFull) || n != 0 {
		t.Fatalf("SweepTTL = %d, %v; want 0 and the commit error", n, err)
	}
	if f.item("tab-a", "old") == nil {
		t.Fatal("a failed sweep deleted the item")
	}
	f.fail.Store(false)
	if n, err := f.e.SweepTTL(ctx); n != 1 || err != nil {
		t.Fatalf("SweepTTL = %d, %v after the fault; want 1, nil", n, err)
	}
	f.restart()
	if f.item("tab-a", "old") != nil {
		t.Fatal("swept item back after a restart")
	}
}

// TestTokensSurviveRestart checks that a ClientRequestToken is kept with
// the data directory for the whole idempotency window: a replay after a
// restart answers without applying again, other parameters with the same
// token fail, and after the window the token is new again.
func TestTokensSurviveRestart(t *testing.T) {
	f := newDurableFixture(t)
	ctx := context.Background()
	key := map[string]types.AttributeValue{"PK": str("c"), "SK": str("S")}
	tx := func(delta string) (*dynamodb.TransactWriteItemsOutput, error) {
		return f.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{ClientRequestToken: aws.String("settle-1"),
			ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
			TransactItems: []types.TransactWriteItem{
				{Update: &types.Update{TableName: aws.String("tab-a"), Key: key, UpdateExpression: aws.String("ADD n :d"),
					ExpressionAttributeValues: map[string]types.AttributeValue{":d": num(delta)}}},
				{Update: &types.Update{TableName: aws.String("tab-b"), Key: key, UpdateExpression: aws.String("ADD n :d"),
					ExpressionAttributeValues: map[string]types.AttributeValue{":d": num(delta)}}},
			}})
	}
	counter := func(table string) string {
		out, err := f.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key, ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatal(err)
		}
		return out.Item["n"].(*types.AttributeValueMemberN).Value
	}
	if _, err := tx("1"); err != nil {
		t.Fatal(err)
	}
	f.now.Add(int64(9 * time.Minute))
	f.restart()
	out, err := tx("1")
	if err != nil {
		t.Fatalf("replay after a restart: %v", err)
	}
	if len(out.ConsumedCapacity) != 2 {
		t.Fatalf("replay reports capacity of %d tables, want 2", len(out.ConsumedCapacity))
	}
	if a, b := counter("tab-a"), counter("tab-b"); a != "1" || b != "1" {
		t.Fatalf("replay after a restart applied again: a=%s b=%s", a, b)
	}
	var mismatch *types.IdempotentParameterMismatchException
	if _, err := tx("2"); !errors.As(err, &mismatch) {
		t.Fatalf("other parameters with the token after a restart: %v, want IdempotentParameterMismatchException", err)
	}
	f.now.Add(int64(2 * time.Minute))
	f.restart()
	if _, err := tx("1"); err != nil {
		t.Fatal(err)
	}
	if a := counter("tab-a"); a != "2" {
		t.Fatalf("after the window the token applied %s times, want 2", a)
	}
}

// TestOpenAfterCrash checks what Open does with the run file a crashed
// engine leaves: a killed process (same boot) opens as it was; after a
// machine crash (another boot) the file is checked and, when it is not a
// database, set aside so that the engine still opens.
func TestOpenAfterCrash(t *testing.T) {
	f := newDurableFixture(t)
	ctx := context.Background()
	if _, err := f.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tab-a"), Item: fixtureItem("kept", "1")}); err != nil {
		t.Fatal(err)
	}
	if err := f.e.Close(); err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(f.dir, runFile)
	if _, err := os.Stat(run); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Close left the run file: %v", err)
	}

	// Another boot: checked, intact, opened as it was.
	if err := os.WriteFile(run, []byte("another-boot\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.open()
	if f.e.Recovery() != "" || f.item("tab-a", "kept") == nil {
		t.Fatalf("intact file after a machine crash: recovery %q, item lost", f.e.Recovery())
	}
	if err := f.e.Close(); err != nil {
		t.Fatal(err)
	}

	// Pages that check out, a table that does not load: set aside too.
	db, err := bolt.Open(filepath.Join(f.dir, DataFile), 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { return tx.Bucket(metaBucket).Put([]byte("tab-x"), []byte("{garbage")) }); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(run, []byte("another-boot\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.open()
	if !strings.Contains(f.e.Recovery(), "set aside") {
		t.Fatalf("Recovery() = %q after a table that does not load, want the file set aside", f.e.Recovery())
	}
	if err := f.e.Close(); err != nil {
		t.Fatal(err)
	}
	old, _ := filepath.Glob(filepath.Join(f.dir, DataFile) + ".corrupt-*")
	for _, p := range old {
		_ = os.Remove(p)
	}

	// A torn file: set aside, and the engine opens empty.
	data := filepath.Join(f.dir, DataFile)
	raw, err := os.ReadFile(data)
	if err != nil {
		t.Fatal(err)
	}
	for i := range raw[:min(len(raw), 8192)] {
		raw[i] = 0xA5
	}
	if err := os.WriteFile(data, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(run, []byte("another-boot\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.open()
	if !strings.Contains(f.e.Recovery(), "set aside") {
		t.Fatalf("Recovery() = %q, want the file set aside", f.e.Recovery())
	}
	aside, _ := filepath.Glob(data + ".corrupt-*")
	if len(aside) != 1 {
		t.Fatalf("set-aside files: %v", aside)
	}
	if out, err := f.db.ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil || len(out.TableNames) != 0 {
		t.Fatalf("ListTables after recovery: %v, %v", out, err)
	}
}
