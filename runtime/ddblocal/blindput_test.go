package ddblocal_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
)

// TestPutWithoutConditionOnPlainTable covers PutItem on a table without
// indexes or TTL, where the engine writes without reading the item first
// and takes what it replaced from the write itself: the capacity is still
// that of the larger item, the table's size and count follow the
// replacement, and the stream's MODIFY record carries the old image (a
// put that changes nothing writes no record, as in DynamoDB Streams).
func TestPutWithoutConditionOnPlainTable(t *testing.T) {
	eng := ddblocal.New()
	t.Cleanup(func() { _ = eng.Close() })
	db, ctx := eng.Client(), context.Background()
	_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("plain"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
		StreamSpecification:  &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages},
	})
	if err != nil {
		t.Fatal(err)
	}
	item := func(pk string, note int) map[string]av {
		return map[string]av{"PK": s(pk), "note": s(strings.Repeat("n", note))}
	}
	steps := []struct {
		name      string
		item      map[string]av
		wantUnits float64
		wantCount int64
		wantBytes int64
	}{
		{"new item of 1,507 bytes", item("A", 1500), 2, 1, 1507},
		{"replaced by 107 bytes: the larger item counts", item("A", 100), 2, 1, 107},
		{"replaced by the same item", item("A", 100), 1, 1, 107},
		{"a second item of 17 bytes", item("B", 10), 1, 2, 124},
	}
	for _, st := range steps {
		out, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("plain"), Item: st.item, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if got := aws.ToFloat64(out.ConsumedCapacity.CapacityUnits); got != st.wantUnits {
			t.Errorf("%s: %v write units, want %v", st.name, got, st.wantUnits)
		}
		d, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("plain")})
		if err != nil {
			t.Fatal(err)
		}
		if c, b := aws.ToInt64(d.Table.ItemCount), aws.ToInt64(d.Table.TableSizeBytes); c != st.wantCount || b != st.wantBytes {
			t.Errorf("%s: ItemCount %d, TableSizeBytes %d; want %d, %d", st.name, c, b, st.wantCount, st.wantBytes)
		}
	}
	records := streamRecords(t, eng, "plain")
	if len(records) != 3 {
		t.Fatalf("%d stream records, want 3 (INSERT, MODIFY, INSERT)", len(records))
	}
	modify := records[1].Dynamodb
	if records[1].EventName != streamtypes.OperationTypeModify || len(modify.OldImage["note"].(*streamtypes.AttributeValueMemberS).Value) != 1500 ||
		len(modify.NewImage["note"].(*streamtypes.AttributeValueMemberS).Value) != 100 {
		t.Errorf("second record: %s, want MODIFY from the 1,500-byte note to the 100-byte one", records[1].EventName)
	}
}

// streamRecords reads every record of the table's stream so far.
func streamRecords(t *testing.T, eng *ddblocal.Engine, table string) []streamtypes.Record {
	t.Helper()
	ctx := context.Background()
	d, err := eng.Client().DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		t.Fatal(err)
	}
	sc := eng.StreamsClient()
	sd, err := sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: d.Table.LatestStreamArn})
	if err != nil {
		t.Fatal(err)
	}
	var out []streamtypes.Record
	for _, sh := range sd.StreamDescription.Shards {
		it, err := sc.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: d.Table.LatestStreamArn,
			ShardId: sh.ShardId, ShardIteratorType: streamtypes.ShardIteratorTypeTrimHorizon})
		if err != nil {
			t.Fatal(err)
		}
		got, err := sc.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it.ShardIterator})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, got.Records...)
	}
	return out
}
