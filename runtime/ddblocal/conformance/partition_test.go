package conformance_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
)

const (
	pagePartitions = "Best practices for designing and using partition keys effectively in DynamoDB (Developer Guide)"
	pageDiagnosing = "Diagnosing throttling / Understanding throttling exceptions (Developer Guide); ThrottlingReason (API Reference)"
)

// partitionEngine runs f against engines whose partition-key values serve
// readUnits and writeUnits per second, with a clock the test moves.
func partitionEngine(t *testing.T, readUnits, writeUnits float64, f func(t *testing.T, tg *target, clock *fakeClock)) {
	t.Helper()
	clock := newFakeClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	limits := func(o *ddblocal.Options) {
		o.PartitionThroughput = ddblocal.PartitionThroughput{Enabled: true, ReadUnits: readUnits, WriteUnits: writeUnits, Burst: time.Second}
	}
	eachEngine(t, []func(*ddblocal.Options){clock.option(), limits}, func(t *testing.T, tg *target) { f(t, tg, clock) })
}

// wantThrottled checks that err is a ProvisionedThroughputExceededException
// whose single ThrottlingReason is reason on resource.
func wantThrottled(t *testing.T, err error, reason, resource string) {
	t.Helper()
	var pe *types.ProvisionedThroughputExceededException
	if !errors.As(err, &pe) {
		t.Fatalf("got %v, want ProvisionedThroughputExceededException", err)
	}
	if len(pe.ThrottlingReasons) != 1 {
		t.Fatalf("got ThrottlingReasons %+v, want one", pe.ThrottlingReasons)
	}
	r := pe.ThrottlingReasons[0]
	if aws.ToString(r.Reason) != reason || aws.ToString(r.Resource) != resource {
		t.Errorf("got ThrottlingReason {%s %s}, want {%s %s}", aws.ToString(r.Reason), aws.ToString(r.Resource), reason, resource)
	}
}

func tableARN(t *testing.T, tg *target, table string) string {
	t.Helper()
	out, err := tg.client.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	noErr(t, err, "DescribeTable")
	return aws.ToString(out.Table.TableArn)
}

func putErr(t *testing.T, tg *target, table string, it item) error {
	t.Helper()
	_, err := tg.client.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(table), Item: it})
	return err
}

func TestPartitionWriteThrottleTable(t *testing.T) {
	doc(t, pagePartitions, `Each partition has a maximum number of write capacity units per second (1,000 WCU); traffic concentrated on one partition key value is throttled even when the table has capacity, while other partition key values are served.`)
	doc(t, pageDiagnosing, `A throttled request's exception carries ThrottlingReasons: reason <ResourceType><OperationType><LimitType> such as TableWriteKeyRangeThroughputExceeded, and resource the table ARN arn:aws:dynamodb:[region]:[account-id]:table/[table-name].`)
	partitionEngine(t, 3000, 10, func(t *testing.T, tg *target, clock *fakeClock) {
		table := compositeTable(t, tg, types.ScalarAttributeTypeS)
		arn := tableARN(t, tg, table)
		for i := range 10 {
			put(t, tg, table, item{"pk": s("hot"), "sk": s(fmt.Sprint(i))})
		}
		err := putErr(t, tg, table, item{"pk": s("hot"), "sk": s("over")})
		wantThrottled(t, err, "TableWriteKeyRangeThroughputExceeded", arn)
		if it := get(t, tg, table, item{"pk": s("hot"), "sk": s("over")}); it != nil {
			t.Errorf("the throttled item was written: %s", show(it))
		}
		put(t, tg, table, item{"pk": s("cold"), "sk": s("0")})
		clock.Advance(time.Second)
		put(t, tg, table, item{"pk": s("hot"), "sk": s("over")})
		if got := tg.engine.ThrottleCounts()[ddblocal.ReasonTableWriteKeyRange]; got != 1 {
			t.Errorf("ThrottleCounts[%s] = %d, want 1", ddblocal.ReasonTableWriteKeyRange, got)
		}
	})
}

func TestPartitionWriteThrottleIndex(t *testing.T) {
	doc(t, pagePartitions, `A global secondary index has partitions of its own with the same per-partition limits; when a GSI is throttled, writes to the base table are throttled too.`)
	doc(t, pageDiagnosing, `The reason IndexWriteKeyRangeThroughputExceeded names as resource the index ARN arn:aws:dynamodb:[region]:[account-id]:table/[table-name]/index/[index-name].`)
	partitionEngine(t, 3000, 5, func(t *testing.T, tg *target, clock *fakeClock) {
		table := createTable(t, tg, &dynamodb.CreateTableInput{
			AttributeDefinitions: attrDefs("id", "S", "status", "S", "shard", "N", "createdAt", "S"),
			KeySchema:            keyElems([]string{"id"}),
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("byStatus"),
				KeySchema: keyElems([]string{"status", "shard"}, "createdAt"), Projection: projectAll}},
		})
		arn := tableARN(t, tg, table) + "/index/byStatus"
		order := func(i, shard int) item {
			return item{"id": s(fmt.Sprint("o", i)), "status": s("created"), "shard": n(fmt.Sprint(shard)), "createdAt": s(fmt.Sprint(i))}
		}
		for i := range 5 {
			put(t, tg, table, order(i, 0))
		}
		// Every item has its own table partition; the index partition
		// (created, 0) is the hot one, and it fails the table write.
		wantThrottled(t, putErr(t, tg, table, order(5, 0)), "IndexWriteKeyRangeThroughputExceeded", arn)
		if it := get(t, tg, table, item{"id": s("o5")}); it != nil {
			t.Errorf("the write throttled on the index reached the table: %s", show(it))
		}
		// The partition of a multi-attribute key is the tuple of its values.
		put(t, tg, table, order(6, 1))
		clock.Advance(time.Second)
		put(t, tg, table, order(5, 0))
		if got := tg.engine.ThrottleCounts()[ddblocal.ReasonIndexWriteKeyRange]; got != 1 {
			t.Errorf("ThrottleCounts[%s] = %d, want 1", ddblocal.ReasonIndexWriteKeyRange, got)
		}
	})
}

func TestPartitionReadThrottle(t *testing.T) {
	doc(t, pagePartitions, `Each partition serves at most 3,000 read capacity units per second; an eventually consistent read of up to 4 KB takes half a unit. Reads and writes are throttled independently.`)
	doc(t, pageDiagnosing, `Reads beyond a partition's limit are throttled with TableReadKeyRangeThroughputExceeded, or IndexReadKeyRangeThroughputExceeded on a global secondary index.`)
	partitionEngine(t, 2, 1000, func(t *testing.T, tg *target, clock *fakeClock) {
		in := tableInput(keyDef{"pk", types.ScalarAttributeTypeS}, nil)
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS})
		in.GlobalSecondaryIndexes = []types.GlobalSecondaryIndex{{IndexName: aws.String("byG"), KeySchema: hashOnly("g"), Projection: projectAll}}
		table := createTable(t, tg, in)
		arn := tableARN(t, tg, table)
		put(t, tg, table, item{"pk": s("a"), "g": s("x")})
		eventual := &dynamodb.GetItemInput{TableName: aws.String(table), Key: item{"pk": s("a")}}
		for i := range 4 {
			_, err := tg.client.GetItem(ctx(t), eventual)
			noErr(t, err, fmt.Sprint("GetItem ", i))
		}
		_, err := tg.client.GetItem(ctx(t), eventual)
		wantThrottled(t, err, "TableReadKeyRangeThroughputExceeded", arn)
		// The write bucket of the same partition is untouched.
		put(t, tg, table, item{"pk": s("a"), "g": s("x"), "v": n("1")})

		q := &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("byG"),
			KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: item{":g": s("x")}}
		for i := range 4 {
			_, err := tg.client.Query(ctx(t), q)
			noErr(t, err, fmt.Sprint("Query ", i))
		}
		_, err = tg.client.Query(ctx(t), q)
		wantThrottled(t, err, "IndexReadKeyRangeThroughputExceeded", arn+"/index/byG")
		clock.Advance(time.Second)
		_, err = tg.client.Query(ctx(t), q)
		noErr(t, err, "Query after a second")
	})
}

func TestPartitionThrottleTransaction(t *testing.T) {
	doc(t, "TransactWriteItems (API Reference)", `A transaction is cancelled with TransactionCanceledException when an item is throttled, with the CancellationReason code ThrottlingError on that item; nothing is written. A transactional write takes twice the write units.`)
	partitionEngine(t, 3000, 4, func(t *testing.T, tg *target, clock *fakeClock) {
		table := compositeTable(t, tg, types.ScalarAttributeTypeS)
		put(t, tg, table, item{"pk": s("hot"), "sk": s("0")})
		put(t, tg, table, item{"pk": s("hot"), "sk": s("1")})
		put(t, tg, table, item{"pk": s("hot"), "sk": s("2")})
		// One unit is left; the transactional put needs two.
		tx := &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: aws.String(table), Item: item{"pk": s("cold"), "sk": s("0")}}},
			{Put: &types.Put{TableName: aws.String(table), Item: item{"pk": s("hot"), "sk": s("3")}}},
		}}
		_, err := tg.client.TransactWriteItems(ctx(t), tx)
		wantCancelReasons(t, err, "[None ThrottlingError]")
		if it := get(t, tg, table, item{"pk": s("cold"), "sk": s("0")}); it != nil {
			t.Errorf("a cancelled transaction wrote %s", show(it))
		}
		clock.Advance(time.Second)
		_, err = tg.client.TransactWriteItems(ctx(t), tx)
		noErr(t, err, "TransactWriteItems after a second")
	})
}

func TestPartitionThrottleTransactGet(t *testing.T) {
	doc(t, "TransactGetItems (API Reference)", `A read transaction is cancelled with TransactionCanceledException, CancellationReason ThrottlingError on the throttled item, when an item's partition has not enough read capacity; a transactional read takes two read units per 4 KB.`)
	partitionEngine(t, 4, 1000, func(t *testing.T, tg *target, clock *fakeClock) {
		table := compositeTable(t, tg, types.ScalarAttributeTypeS)
		put(t, tg, table, item{"pk": s("hot"), "sk": s("0")})
		tx := &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
			{Get: &types.Get{TableName: aws.String(table), Key: item{"pk": s("cold"), "sk": s("0")}}},
			{Get: &types.Get{TableName: aws.String(table), Key: item{"pk": s("hot"), "sk": s("0")}}},
		}}
		get(t, tg, table, item{"pk": s("hot"), "sk": s("0")}) // hot: 3 units left
		_, err := tg.client.TransactGetItems(ctx(t), tx)      // cold: 2 left, hot: 1
		noErr(t, err, "TransactGetItems")
		_, err = tg.client.TransactGetItems(ctx(t), tx)
		wantCancelReasons(t, err, "[None ThrottlingError]")
		clock.Advance(time.Second)
		_, err = tg.client.TransactGetItems(ctx(t), tx)
		noErr(t, err, "TransactGetItems after a second")
	})
}

func TestPartitionThrottleBatchWrite(t *testing.T) {
	doc(t, "BatchWriteItem (API Reference)", `If DynamoDB returns any unprocessed items, you should retry the batch operation on those items; throttled items are returned in UnprocessedItems, and the request fails with ProvisionedThroughputExceededException only when none of the items can be processed.`)
	partitionEngine(t, 3000, 2, func(t *testing.T, tg *target, clock *fakeClock) {
		table := compositeTable(t, tg, types.ScalarAttributeTypeS)
		req := func(pk, sk string) types.WriteRequest {
			return types.WriteRequest{PutRequest: &types.PutRequest{Item: item{"pk": s(pk), "sk": s(sk)}}}
		}
		out, err := tg.client.BatchWriteItem(ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
			table: {req("hot", "0"), req("hot", "1"), req("hot", "2"), req("cold", "0")}}})
		noErr(t, err, "BatchWriteItem")
		if got := len(out.UnprocessedItems[table]); got != 1 {
			t.Fatalf("got %d unprocessed items, want 1", got)
		}
		if get(t, tg, table, item{"pk": s("cold"), "sk": s("0")}) == nil {
			t.Errorf("the item of another partition was not written")
		}
		_, err = tg.client.BatchWriteItem(ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
			table: {req("hot", "3")}}})
		wantThrottled(t, err, "TableWriteKeyRangeThroughputExceeded", tableARN(t, tg, table))
	})
}

func TestPartitionThroughputOffByDefault(t *testing.T) {
	doc(t, pagePartitions, `The embedded engine limits partitions only when Options.PartitionThroughput is enabled.`)
	eachEngine(t, nil, func(t *testing.T, tg *target) {
		table := compositeTable(t, tg, types.ScalarAttributeTypeS)
		for i := range 1200 {
			put(t, tg, table, item{"pk": s("hot"), "sk": s(fmt.Sprint(i))})
		}
		if got := tg.engine.ThrottleCounts(); len(got) != 0 {
			t.Errorf("ThrottleCounts = %v, want none", got)
		}
	})
}

// wantCancelReasons checks that err is a TransactionCanceledException whose
// cancellation reason codes print as want.
func wantCancelReasons(t *testing.T, err error, want string) {
	t.Helper()
	var tc *types.TransactionCanceledException
	if !errors.As(err, &tc) {
		t.Fatalf("got %v, want TransactionCanceledException", err)
	}
	var codes []string
	for _, r := range tc.CancellationReasons {
		codes = append(codes, aws.ToString(r.Code))
	}
	if fmt.Sprint(codes) != want {
		t.Errorf("got cancellation reasons %v, want %s", codes, want)
	}
}

const pageContributorInsights = "Using CloudWatch Contributor Insights for DynamoDB (Developer Guide)"

func TestPartitionThrottledKeys(t *testing.T) {
	doc(t, pageContributorInsights, `Contributor Insights identifies the most throttled keys of a table or global secondary index: the partition key values whose requests were throttled, most throttled first.`)
	partitionEngine(t, 3000, 2, func(t *testing.T, tg *target, clock *fakeClock) {
		table := createTable(t, tg, &dynamodb.CreateTableInput{
			AttributeDefinitions: attrDefs("id", "S", "status", "S", "shard", "N", "createdAt", "S"),
			KeySchema:            keyElems([]string{"id"}),
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("byStatus"),
				KeySchema: keyElems([]string{"status", "shard"}, "createdAt"), Projection: projectAll}},
		})
		arn := tableARN(t, tg, table)
		order := func(i, shard int) item {
			return item{"id": s(fmt.Sprint("o", i)), "status": s("created"), "shard": n(fmt.Sprint(shard)), "createdAt": s(fmt.Sprint(i))}
		}
		for i := range 2 {
			put(t, tg, table, order(i, -25))
		}
		for range 2 {
			if err := putErr(t, tg, table, order(9, -25)); err == nil {
				t.Fatal("the third write of index partition (created, -25) was not throttled")
			}
		}
		for i := range 2 {
			put(t, tg, table, item{"id": s("hot"), "createdAt": s(fmt.Sprint(i))})
		}
		if err := putErr(t, tg, table, item{"id": s("hot"), "createdAt": s("2")}); err == nil {
			t.Fatal("the third write of table partition hot was not throttled")
		}
		want := []ddblocal.ThrottledKey{
			{Resource: arn + "/index/byStatus", Key: "created | -25", Reason: ddblocal.ReasonIndexWriteKeyRange, Count: 2},
			{Resource: arn, Key: "hot", Reason: ddblocal.ReasonTableWriteKeyRange, Count: 1},
		}
		if got := tg.engine.ThrottledKeys(); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("ThrottledKeys =\n %+v\nwant\n %+v", got, want)
		}
	})
}
