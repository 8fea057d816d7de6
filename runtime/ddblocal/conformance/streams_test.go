package conformance_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	st "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
)

const (
	pageStreams    = "Change data capture for DynamoDB Streams (Developer Guide)"
	pageStreamsAPI = "Amazon DynamoDB Streams API Reference (GetShardIterator, GetRecords, DescribeStream, ListStreams)"
	pageStreamsTTL = "DynamoDB Streams and Time to Live (Developer Guide)"
	pageStreamSpec = "UpdateTable and CreateTable (DynamoDB API Reference), StreamSpecification"
)

// streamsClient is a DynamoDB Streams client for the target: the engine's
// own in process, or one over HTTP.
func streamsClient(tg *target) *dynamodbstreams.Client {
	switch {
	case tg.engine != nil && tg.url == "":
		return tg.engine.StreamsClient()
	case tg.engine != nil:
		return ddblocal.StreamsEndpointClient(tg.url)
	}
	creds := tg.creds
	return dynamodbstreams.New(dynamodbstreams.Options{
		Region: tg.region, BaseEndpoint: aws.String(tg.url),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) { return creds, nil }),
	})
}

// streamTable creates a table keyed by pk (S) with a stream of view type
// and returns it with its stream's ARN.
func streamTable(t *testing.T, tg *target, view types.StreamViewType) (string, string) {
	t.Helper()
	in := tableInput(keyDef{"pk", types.ScalarAttributeTypeS}, nil)
	in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: view}
	table := createTable(t, tg, in)
	out, err := tg.client.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	noErr(t, err, "DescribeTable")
	if out.Table.LatestStreamArn == nil {
		t.Fatalf("DescribeTable of a table with a stream has no LatestStreamArn")
	}
	return table, *out.Table.LatestStreamArn
}

// readStream reads every record of the stream from TRIM_HORIZON. Against
// an external endpoint it polls until want records arrived.
func readStream(t *testing.T, tg *target, arn string, want int) []st.Record {
	t.Helper()
	sc := streamsClient(tg)
	deadline := time.Now().Add(30 * time.Second)
	for {
		var all []st.Record
		desc, err := sc.DescribeStream(ctx(t), &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
		noErr(t, err, "DescribeStream")
		for _, sh := range desc.StreamDescription.Shards {
			it, err := sc.GetShardIterator(ctx(t), &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn),
				ShardId: sh.ShardId, ShardIteratorType: st.ShardIteratorTypeTrimHorizon})
			noErr(t, err, "GetShardIterator")
			all = append(all, drain(t, sc, it.ShardIterator, 0)...)
		}
		if len(all) >= want || !tg.external() || time.Now().After(deadline) {
			return all
		}
		time.Sleep(time.Second)
	}
}

// drain reads from iter until a page is empty or the shard ends, limit
// records per page (0: the default).
func drain(t *testing.T, sc *dynamodbstreams.Client, iter *string, limit int32) []st.Record {
	t.Helper()
	var all []st.Record
	for iter != nil {
		in := &dynamodbstreams.GetRecordsInput{ShardIterator: iter}
		if limit > 0 {
			in.Limit = aws.Int32(limit)
		}
		out, err := sc.GetRecords(ctx(t), in)
		noErr(t, err, "GetRecords")
		all = append(all, out.Records...)
		if len(out.Records) == 0 {
			break
		}
		iter = out.NextShardIterator
	}
	return all
}

// str is a string attribute of a stream image, "" when absent.
func str(img map[string]st.AttributeValue, name string) string {
	if v, ok := img[name].(*st.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

// summary is a record as "EVENT pk old->new" for comparing sequences.
func summary(r st.Record) string {
	d := r.Dynamodb
	return fmt.Sprintf("%s %s %s->%s", r.EventName, str(d.Keys, "pk"), str(d.OldImage, "v"), str(d.NewImage, "v"))
}

func summaries(recs []st.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = summary(r)
	}
	return out
}

func wantSummaries(t *testing.T, got []st.Record, want ...string) {
	t.Helper()
	g := summaries(got)
	if fmt.Sprint(g) != fmt.Sprint(want) {
		t.Errorf("stream records:\n got %q\nwant %q", g, want)
	}
}

func TestStreamSpecificationValidation(t *testing.T) {
	doc(t, pageStreamSpec, `StreamViewType is required when StreamEnabled is true and must not be given when it is false; it is one of KEYS_ONLY, NEW_IMAGE, OLD_IMAGE, NEW_AND_OLD_IMAGES. Enabling a stream on a table that already has one, or disabling a stream on a table that has none, is a ValidationException.`)
	each(t, func(t *testing.T, tg *target) {
		create := func(spec *types.StreamSpecification) error {
			in := tableInput(keyDef{"pk", types.ScalarAttributeTypeS}, nil)
			in.TableName = aws.String(tableName(t))
			in.StreamSpecification = spec
			_, err := tg.client.CreateTable(ctx(t), in)
			if err == nil {
				t.Cleanup(func() {
					_, _ = tg.client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: in.TableName})
				})
			}
			return err
		}
		wantValidation(t, create(&types.StreamSpecification{StreamEnabled: aws.Bool(true)}), "UpdateViewType is required")
		wantValidation(t, create(&types.StreamSpecification{StreamEnabled: aws.Bool(false), StreamViewType: types.StreamViewTypeKeysOnly}), "UpdateViewType should not be specified")
		wantValidation(t, create(&types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: "EVERYTHING"}), "streamSpecification.streamViewType")

		table := hashTable(t, tg)
		update := func(spec *types.StreamSpecification) error {
			_, err := tg.client.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: aws.String(table), StreamSpecification: spec})
			return err
		}
		wantValidation(t, update(&types.StreamSpecification{StreamEnabled: aws.Bool(false)}), "Table has no stream to disable")
		wantValidation(t, update(&types.StreamSpecification{StreamEnabled: aws.Bool(true)}), "If stream is being enabled then UpdateViewType is required")
		noErr(t, update(&types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewImage}), "UpdateTable enabling the stream")
		if tg.external() {
			waitTable(t, tg, table, true)
		}
		wantValidation(t, update(&types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeOldImage}), "Table already has an enabled stream")
		wantValidation(t, update(&types.StreamSpecification{StreamEnabled: aws.Bool(false), StreamViewType: types.StreamViewTypeNewImage}), "UpdateViewType must not be specified")
	})
}

func TestStreamOneRecordPerItemChange(t *testing.T) {
	doc(t, pageStreams, `DynamoDB Streams writes a stream record whenever an item is added (INSERT), updated (MODIFY) or deleted (REMOVE), exactly once, in the order of the modifications to that item. A PutItem or UpdateItem that does not change any data in an item writes no stream record. Each record carries eventSource aws:dynamodb, the region, a sequence number and the record size.`)
	each(t, func(t *testing.T, tg *target) {
		table, arn := streamTable(t, tg, types.StreamViewTypeNewAndOldImages)
		c := tg.client
		put(t, tg, table, item{"pk": s("a"), "v": s("1")})
		put(t, tg, table, item{"pk": s("a"), "v": s("1")}) // no change
		_, err := c.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: item{"pk": s("a")},
			UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: item{":v": s("2")}})
		noErr(t, err, "UpdateItem")
		_, err = c.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: item{"pk": s("a")},
			UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: item{":v": s("2")}}) // no change
		noErr(t, err, "UpdateItem to the same value")
		_, err = c.DeleteItem(ctx(t), &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: item{"pk": s("a")}})
		noErr(t, err, "DeleteItem")
		_, err = c.DeleteItem(ctx(t), &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: item{"pk": s("missing")}})
		noErr(t, err, "DeleteItem of a missing item")
		_, err = c.BatchWriteItem(ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: {
			{PutRequest: &types.PutRequest{Item: item{"pk": s("b"), "v": s("1")}}},
			{PutRequest: &types.PutRequest{Item: item{"pk": s("c"), "v": s("1")}}},
		}}})
		noErr(t, err, "BatchWriteItem")
		_, err = c.TransactWriteItems(ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Update: &types.Update{TableName: aws.String(table), Key: item{"pk": s("b")}, UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: item{":v": s("2")}}},
			{Delete: &types.Delete{TableName: aws.String(table), Key: item{"pk": s("c")}}},
			{ConditionCheck: &types.ConditionCheck{TableName: aws.String(table), Key: item{"pk": s("zz")}, ConditionExpression: aws.String("attribute_not_exists(pk)")}},
			{Put: &types.Put{TableName: aws.String(table), Item: item{"pk": s("d"), "v": s("1")}}},
		}})
		noErr(t, err, "TransactWriteItems")

		recs := readStream(t, tg, arn, 7)
		wantSummaries(t, recs, "INSERT a ->1", "MODIFY a 1->2", "REMOVE a 2->",
			"INSERT b ->1", "INSERT c ->1", "MODIFY b 1->2", "REMOVE c 1->", "INSERT d ->1")
		prev := ""
		for _, r := range recs {
			d := r.Dynamodb
			if aws.ToString(r.EventSource) != "aws:dynamodb" || aws.ToString(r.AwsRegion) == "" || aws.ToString(r.EventID) == "" || aws.ToString(r.EventVersion) == "" {
				t.Errorf("record %s: eventSource %q, awsRegion %q, eventID %q, eventVersion %q", summary(r),
					aws.ToString(r.EventSource), aws.ToString(r.AwsRegion), aws.ToString(r.EventID), aws.ToString(r.EventVersion))
			}
			if d.ApproximateCreationDateTime == nil || time.Since(*d.ApproximateCreationDateTime) > time.Hour || aws.ToInt64(d.SizeBytes) <= 0 {
				t.Errorf("record %s: ApproximateCreationDateTime %v, SizeBytes %d", summary(r), d.ApproximateCreationDateTime, aws.ToInt64(d.SizeBytes))
			}
			if d.StreamViewType != st.StreamViewTypeNewAndOldImages || r.UserIdentity != nil {
				t.Errorf("record %s: StreamViewType %s, userIdentity %v", summary(r), d.StreamViewType, r.UserIdentity)
			}
			seq := aws.ToString(d.SequenceNumber)
			if len(seq) < len(prev) || (len(seq) == len(prev) && seq <= prev) {
				t.Errorf("sequence number %s after %s, want increasing", seq, prev)
			}
			prev = seq
		}
	})
}

func TestStreamViewTypes(t *testing.T) {
	doc(t, pageStreams, `StreamViewType decides what is written to the stream: KEYS_ONLY only the key attributes; NEW_IMAGE the item as it appears after it was modified; OLD_IMAGE the item as it appeared before; NEW_AND_OLD_IMAGES both. Keys are always present.`)
	each(t, func(t *testing.T, tg *target) {
		for _, c := range []struct {
			view types.StreamViewType
			want []string
		}{
			{types.StreamViewTypeKeysOnly, []string{"INSERT a ->", "MODIFY a ->", "REMOVE a ->"}},
			{types.StreamViewTypeNewImage, []string{"INSERT a ->1", "MODIFY a ->2", "REMOVE a ->"}},
			{types.StreamViewTypeOldImage, []string{"INSERT a ->", "MODIFY a 1->", "REMOVE a 2->"}},
			{types.StreamViewTypeNewAndOldImages, []string{"INSERT a ->1", "MODIFY a 1->2", "REMOVE a 2->"}},
		} {
			t.Run(string(c.view), func(t *testing.T) {
				table, arn := streamTable(t, tg, c.view)
				put(t, tg, table, item{"pk": s("a"), "v": s("1")})
				put(t, tg, table, item{"pk": s("a"), "v": s("2")})
				_, err := tg.client.DeleteItem(ctx(t), &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: item{"pk": s("a")}})
				noErr(t, err, "DeleteItem")
				recs := readStream(t, tg, arn, 3)
				wantSummaries(t, recs, c.want...)
				for _, r := range recs {
					if str(r.Dynamodb.Keys, "pk") != "a" || len(r.Dynamodb.Keys) != 1 {
						t.Errorf("%s: Keys %v, want only pk", summary(r), r.Dynamodb.Keys)
					}
				}
			})
		}
	})
}

func TestStreamDisableAndEnableMakesANewStream(t *testing.T) {
	doc(t, pageStreams, `If you disable a stream, the stream stays readable for 24 hours; its shard is closed. Enabling a stream again creates a new stream with a different stream label and ARN. DescribeTable then omits StreamSpecification while the stream is disabled.`)
	each(t, func(t *testing.T, tg *target) {
		table, first := streamTable(t, tg, types.StreamViewTypeNewImage)
		put(t, tg, table, item{"pk": s("a"), "v": s("1")})
		_, err := tg.client.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: aws.String(table),
			StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(false)}})
		noErr(t, err, "UpdateTable disabling the stream")
		if tg.external() {
			waitTable(t, tg, table, true)
		}
		desc, err := tg.client.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		noErr(t, err, "DescribeTable")
		if desc.Table.StreamSpecification != nil || aws.ToString(desc.Table.LatestStreamArn) != first {
			t.Errorf("after disabling: StreamSpecification %v, LatestStreamArn %s, want none and %s", desc.Table.StreamSpecification, aws.ToString(desc.Table.LatestStreamArn), first)
		}
		put(t, tg, table, item{"pk": s("b"), "v": s("1")}) // no stream: recorded nowhere
		sc := streamsClient(tg)
		old, err := sc.DescribeStream(ctx(t), &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(first)})
		noErr(t, err, "DescribeStream of the disabled stream")
		if old.StreamDescription.StreamStatus != st.StreamStatusDisabled && old.StreamDescription.StreamStatus != st.StreamStatusDisabling {
			t.Errorf("disabled stream's status %s, want DISABLED", old.StreamDescription.StreamStatus)
		}
		wantSummaries(t, readStream(t, tg, first, 1), "INSERT a ->1")

		_, err = tg.client.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: aws.String(table),
			StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeKeysOnly}})
		noErr(t, err, "UpdateTable enabling the stream again")
		if tg.external() {
			waitTable(t, tg, table, true)
		}
		desc, err = tg.client.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		noErr(t, err, "DescribeTable")
		second := aws.ToString(desc.Table.LatestStreamArn)
		if second == first || desc.Table.StreamSpecification == nil || desc.Table.StreamSpecification.StreamViewType != types.StreamViewTypeKeysOnly {
			t.Fatalf("after enabling again: LatestStreamArn %s (first %s), StreamSpecification %v", second, first, desc.Table.StreamSpecification)
		}
		put(t, tg, table, item{"pk": s("c"), "v": s("1")})
		wantSummaries(t, readStream(t, tg, second, 1), "INSERT c ->")
		wantSummaries(t, readStream(t, tg, first, 1), "INSERT a ->1")

		list, err := sc.ListStreams(ctx(t), &dynamodbstreams.ListStreamsInput{TableName: aws.String(table)})
		noErr(t, err, "ListStreams")
		found := map[string]bool{}
		for _, s := range list.Streams {
			found[aws.ToString(s.StreamArn)] = aws.ToString(s.TableName) == table
		}
		if !found[first] || !found[second] {
			t.Errorf("ListStreams for %s lists %v, want both %s and %s", table, found, first, second)
		}
	})
}

func TestStreamClosedShardEnds(t *testing.T) {
	doc(t, pageStreamsAPI, `A shard that is closed (it has an EndingSequenceNumber) returns no NextShardIterator once every record has been read; an open shard always returns one. LATEST starts after the most recent record; AT_SEQUENCE_NUMBER and AFTER_SEQUENCE_NUMBER start at or after a given record; Limit caps the records per call.`)
	each(t, func(t *testing.T, tg *target) {
		table, arn := streamTable(t, tg, types.StreamViewTypeNewImage)
		for i := range 5 {
			put(t, tg, table, item{"pk": s(fmt.Sprint("k", i)), "v": s("1")})
		}
		sc := streamsClient(tg)
		recs := readStream(t, tg, arn, 5)
		if len(recs) != 5 {
			t.Fatalf("read %d records, want 5", len(recs))
		}
		desc, err := sc.DescribeStream(ctx(t), &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
		noErr(t, err, "DescribeStream")
		shard := desc.StreamDescription.Shards[0]
		if aws.ToString(shard.SequenceNumberRange.StartingSequenceNumber) == "" || shard.SequenceNumberRange.EndingSequenceNumber != nil {
			t.Errorf("open shard's range %+v, want a start and no end", shard.SequenceNumberRange)
		}
		iter := func(typ st.ShardIteratorType, seq *string) *string {
			out, err := sc.GetShardIterator(ctx(t), &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: shard.ShardId, ShardIteratorType: typ, SequenceNumber: seq})
			noErr(t, err, "GetShardIterator "+string(typ))
			return out.ShardIterator
		}
		third := recs[2].Dynamodb.SequenceNumber
		wantSummaries(t, drain(t, sc, iter(st.ShardIteratorTypeAtSequenceNumber, third), 2), summaries(recs[2:])...)
		wantSummaries(t, drain(t, sc, iter(st.ShardIteratorTypeAfterSequenceNumber, third), 1), summaries(recs[3:])...)
		latest := iter(st.ShardIteratorTypeLatest, nil)
		page, err := sc.GetRecords(ctx(t), &dynamodbstreams.GetRecordsInput{ShardIterator: latest})
		noErr(t, err, "GetRecords from LATEST")
		if len(page.Records) != 0 || page.NextShardIterator == nil {
			t.Errorf("LATEST read %d records, NextShardIterator %v; want none and an iterator", len(page.Records), page.NextShardIterator)
		}
		put(t, tg, table, item{"pk": s("late"), "v": s("1")})
		wantSummaries(t, drain(t, sc, page.NextShardIterator, 0), "INSERT late ->1")
		_, err = sc.GetShardIterator(ctx(t), &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: shard.ShardId, ShardIteratorType: st.ShardIteratorTypeAtSequenceNumber})
		wantValidation(t, err)

		_, err = tg.client.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: aws.String(table),
			StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(false)}})
		noErr(t, err, "UpdateTable disabling the stream")
		if tg.external() {
			return // the shard closes asynchronously in DynamoDB
		}
		desc, err = sc.DescribeStream(ctx(t), &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
		noErr(t, err, "DescribeStream")
		if desc.StreamDescription.Shards[0].SequenceNumberRange.EndingSequenceNumber == nil {
			t.Errorf("closed shard has no EndingSequenceNumber")
		}
		out, err := sc.GetRecords(ctx(t), &dynamodbstreams.GetRecordsInput{ShardIterator: iter(st.ShardIteratorTypeTrimHorizon, nil)})
		noErr(t, err, "GetRecords")
		if len(out.Records) != 6 || out.NextShardIterator != nil {
			t.Errorf("closed shard read %d records with NextShardIterator %v, want 6 and none", len(out.Records), out.NextShardIterator)
		}
	})
}

func TestStreamTTLDeletionsNameTheService(t *testing.T) {
	doc(t, pageStreamsTTL, `Items deleted by the Time to Live process appear in the stream as REMOVE records whose userIdentity has Type "Service" and PrincipalId "dynamodb.amazonaws.com", so they can be told from deletions by a user.`)
	clock := newFakeClock(time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC))
	eachEngine(t, []func(*ddblocal.Options){clock.option(), func(o *ddblocal.Options) { o.TTLSweepInterval = -1 }}, func(t *testing.T, tg *target) {
		table, arn := streamTable(t, tg, types.StreamViewTypeNewAndOldImages)
		_, err := tg.client.UpdateTimeToLive(ctx(t), &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(table),
			TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}})
		noErr(t, err, "UpdateTimeToLive")
		put(t, tg, table, item{"pk": s("expires"), "v": s("1"), "exp": n(fmt.Sprint(clock.Now().Unix() - 1))})
		put(t, tg, table, item{"pk": s("user"), "v": s("1")})
		_, err = tg.client.DeleteItem(ctx(t), &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: item{"pk": s("user")}})
		noErr(t, err, "DeleteItem")
		if got, err := tg.engine.SweepTTL(ctx(t)); err != nil || got != 1 {
			t.Fatalf("SweepTTL deleted %d items (%v), want 1", got, err)
		}
		recs := readStream(t, tg, arn, 4)
		wantSummaries(t, recs, "INSERT expires ->1", "INSERT user ->1", "REMOVE user 1->", "REMOVE expires 1->")
		for i, r := range recs {
			id := r.UserIdentity
			if i < 3 && id != nil {
				t.Errorf("%s: userIdentity %+v, want none", summary(r), id)
			}
			if i == 3 && (id == nil || aws.ToString(id.Type) != "Service" || aws.ToString(id.PrincipalId) != "dynamodb.amazonaws.com") {
				t.Errorf("TTL deletion's userIdentity %+v, want Service dynamodb.amazonaws.com", id)
			}
		}
	})
}

func TestStreamRetentionAndIteratorExpiry(t *testing.T) {
	doc(t, pageStreamsAPI, `Stream records are kept for 24 hours, then removed: reading past the oldest record is TrimmedDataAccessException. A shard iterator expires 15 minutes after it is returned: using it then is ExpiredIteratorException.`)
	clock := newFakeClock(time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC))
	eachEngine(t, []func(*ddblocal.Options){clock.option()}, func(t *testing.T, tg *target) {
		table, arn := streamTable(t, tg, types.StreamViewTypeNewImage)
		put(t, tg, table, item{"pk": s("old"), "v": s("1")})
		sc := streamsClient(tg)
		desc, err := sc.DescribeStream(ctx(t), &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
		noErr(t, err, "DescribeStream")
		horizon := func() *string {
			out, err := sc.GetShardIterator(ctx(t), &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn),
				ShardId: desc.StreamDescription.Shards[0].ShardId, ShardIteratorType: st.ShardIteratorTypeTrimHorizon})
			noErr(t, err, "GetShardIterator")
			return out.ShardIterator
		}
		stale := horizon()
		clock.Advance(16 * time.Minute)
		_, err = sc.GetRecords(ctx(t), &dynamodbstreams.GetRecordsInput{ShardIterator: stale})
		wantErr(t, err, "ExpiredIteratorException")

		clock.Advance(23*time.Hour + 34*time.Minute) // 23h50m after "old"
		put(t, tg, table, item{"pk": s("new"), "v": s("1")})
		early := horizon()
		wantSummaries(t, drain(t, sc, horizon(), 0), "INSERT old ->1", "INSERT new ->1")
		clock.Advance(11 * time.Minute) // "old" is older than 24 hours; early is 11 minutes old
		wantSummaries(t, drain(t, sc, horizon(), 0), "INSERT new ->1")
		_, err = sc.GetRecords(ctx(t), &dynamodbstreams.GetRecordsInput{ShardIterator: early})
		wantErr(t, err, "TrimmedDataAccessException")
	})
}

func TestStreamDelayFault(t *testing.T) {
	doc(t, "runtime/ddblocal Faults.StreamDelay", `StreamDelay holds back stream records from GetRecords until they are this old, the lag a stream consumer sees in production.`)
	clock := newFakeClock(time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC))
	eachEngine(t, []func(*ddblocal.Options){clock.option()}, func(t *testing.T, tg *target) {
		table, arn := streamTable(t, tg, types.StreamViewTypeNewImage)
		tg.engine.SetFaults(table, ddblocal.Faults{StreamDelay: 2 * time.Second})
		put(t, tg, table, item{"pk": s("a"), "v": s("1")})
		if got := readStream(t, tg, arn, 0); len(got) != 0 {
			t.Errorf("read %d records before the delay passed, want 0", len(got))
		}
		clock.Advance(2 * time.Second)
		wantSummaries(t, readStream(t, tg, arn, 1), "INSERT a ->1")
	})
}

func TestStreamPersistsWithDataDir(t *testing.T) {
	if os.Getenv("DYNAMODB_ENDPOINT") != "" {
		t.Skip("persistence is a feature of the embedded engine; DYNAMODB_ENDPOINT is set")
	}
	doc(t, "runtime/ddblocal Options.Dir", `Streams and their records are kept in the data directory with the tables.`)
	dir := t.TempDir()
	open := func() *target {
		e, err := ddblocal.Open(func(o *ddblocal.Options) { o.Dir = dir; o.TTLSweepInterval = -1 })
		if err != nil {
			t.Fatalf("Open(%s): %v", dir, err)
		}
		return &target{name: "inproc", engine: e, client: e.Client(clientOptions)}
	}
	tg := open()
	in := tableInput(keyDef{"pk", types.ScalarAttributeTypeS}, nil)
	in.TableName = aws.String(tableName(t))
	in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}
	out, err := tg.client.CreateTable(ctx(t), in)
	noErr(t, err, "CreateTable")
	arn := aws.ToString(out.TableDescription.LatestStreamArn)
	put(t, tg, *in.TableName, item{"pk": s("a"), "v": s("1")})
	put(t, tg, *in.TableName, item{"pk": s("a"), "v": s("2")})
	noErr(t, tg.engine.Close(), "Close")

	tg = open()
	defer tg.engine.Close()
	put(t, tg, *in.TableName, item{"pk": s("a"), "v": s("3")})
	recs := readStream(t, tg, arn, 3)
	wantSummaries(t, recs, "INSERT a ->1", "MODIFY a 1->2", "MODIFY a 2->3")
	if len(recs) == 3 && aws.ToString(recs[2].Dynamodb.SequenceNumber) <= aws.ToString(recs[1].Dynamodb.SequenceNumber) {
		t.Errorf("sequence number after restart %s, not after %s", aws.ToString(recs[2].Dynamodb.SequenceNumber), aws.ToString(recs[1].Dynamodb.SequenceNumber))
	}
}

func TestStreamImagesOutliveReusedItems(t *testing.T) {
	doc(t, pageStreams, `Each stream record holds the item's images as they were at the time of that modification.`)
	each(t, func(t *testing.T, tg *target) {
		table, arn := streamTable(t, tg, types.StreamViewTypeNewAndOldImages)
		put(t, tg, table, item{"pk": s("a"), "n": n("0")})
		const updates = 100
		for range updates {
			// No ReturnValues and no index: the engine updates the decoded
			// item in place and reuses its map.
			_, err := tg.client.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: item{"pk": s("a")},
				UpdateExpression: aws.String("ADD n :one"), ExpressionAttributeValues: item{":one": n("1")}})
			noErr(t, err, "UpdateItem")
		}
		recs := readStream(t, tg, arn, updates+1)
		if len(recs) != updates+1 {
			t.Fatalf("read %d records, want %d", len(recs), updates+1)
		}
		num := func(img map[string]st.AttributeValue) string {
			if v, ok := img["n"].(*st.AttributeValueMemberN); ok {
				return v.Value
			}
			return ""
		}
		for i, r := range recs[1:] {
			if old, next := num(r.Dynamodb.OldImage), num(r.Dynamodb.NewImage); old != fmt.Sprint(i) || next != fmt.Sprint(i+1) {
				t.Fatalf("record %d: n %s -> %s, want %d -> %d", i+1, old, next, i, i+1)
			}
		}
	})
}

func TestStreamPartiQLWrites(t *testing.T) {
	doc(t, pageStreams, `Stream records are written for every modification of an item, whichever API made it: PartiQL INSERT, UPDATE and DELETE statements included.`)
	each(t, func(t *testing.T, tg *target) {
		table, arn := streamTable(t, tg, types.StreamViewTypeNewAndOldImages)
		for _, stmt := range []struct {
			text   string
			params []types.AttributeValue
		}{
			{fmt.Sprintf(`INSERT INTO "%s" VALUE {'pk': ?, 'v': ?}`, table), []types.AttributeValue{s("p"), s("1")}},
			{fmt.Sprintf(`UPDATE "%s" SET v = ? WHERE pk = ?`, table), []types.AttributeValue{s("2"), s("p")}},
			{fmt.Sprintf(`DELETE FROM "%s" WHERE pk = ?`, table), []types.AttributeValue{s("p")}},
		} {
			_, err := tg.client.ExecuteStatement(ctx(t), &dynamodb.ExecuteStatementInput{Statement: aws.String(stmt.text), Parameters: stmt.params})
			noErr(t, err, stmt.text)
		}
		wantSummaries(t, readStream(t, tg, arn, 3), "INSERT p ->1", "MODIFY p 1->2", "REMOVE p 2->")
	})
}
