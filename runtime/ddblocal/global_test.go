package ddblocal_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/aws/smithy-go"

	"github.com/oncetable/oncetable/runtime/ddblocal"
)

// globalEngine opens an engine of the given Regions, replicating only when
// the test delivers, and creates "users" (with a NEW_AND_OLD_IMAGES
// stream) in the first Region.
func globalEngine(t *testing.T, regions ...string) *ddblocal.Engine {
	t.Helper()
	eng := ddblocal.New(func(o *ddblocal.Options) {
		o.Regions = regions
		o.ManualReplication = true
	})
	t.Cleanup(func() { eng.Close() })
	_, err := eng.Region(regions[0]).Client().CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName:            aws.String("users"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
		StreamSpecification:  &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages},
	})
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

func addReplica(t *testing.T, eng *ddblocal.Engine, from, to string) {
	t.Helper()
	_, err := eng.Region(from).Client().UpdateTable(context.Background(), &dynamodb.UpdateTableInput{
		TableName:      aws.String("users"),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String(to)}}},
	})
	if err != nil {
		t.Fatal(err)
	}
}

func putV(t *testing.T, db *dynamodb.Client, pk, v string) {
	t.Helper()
	_, err := db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("users"), Item: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: pk}, "v": &types.AttributeValueMemberS{Value: v}}})
	if err != nil {
		t.Fatal(err)
	}
}

// value reads v of an item with a strongly consistent read, "" when the
// item is absent.
func value(t *testing.T, db *dynamodb.Client, pk string) string {
	t.Helper()
	out, err := db.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String("users"), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: pk}}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Item == nil {
		return ""
	}
	return out.Item["v"].(*types.AttributeValueMemberS).Value
}

// TestGlobalTableReplicates: a replica created by UpdateTable holds the
// table's items, appears in its Region's ListTables and DescribeTable,
// and receives later writes only when they are delivered; reads, even
// strongly consistent ones, see the local replica only.
func TestGlobalTableReplicates(t *testing.T) {
	ctx := context.Background()
	eng := globalEngine(t, "us-east-1", "eu-west-1")
	east, west := eng.Region("us-east-1").Client(), eng.Region("eu-west-1").Client()
	putV(t, east, "a", "1")
	addReplica(t, eng, "us-east-1", "eu-west-1")
	if got := value(t, west, "a"); got != "1" {
		t.Errorf("eu-west-1 after the replica's creation: a = %q, want 1", got)
	}
	lt, err := west.ListTables(ctx, &dynamodb.ListTablesInput{})
	if err != nil || len(lt.TableNames) != 1 {
		t.Fatalf("eu-west-1 ListTables = %v, %v", lt, err)
	}
	putV(t, east, "b", "2")
	if got := value(t, west, "b"); got != "" {
		t.Errorf("eu-west-1 before delivery: b = %q, want absent", got)
	}
	if rep := eng.Replication().WaitQuiet(); !rep.Identical || rep.Pending != 0 {
		t.Errorf("WaitQuiet = %+v, want identical and nothing pending", rep)
	}
	if got := value(t, west, "b"); got != "2" {
		t.Errorf("eu-west-1 after delivery: b = %q, want 2", got)
	}
	for region, other := range map[string]string{"us-east-1": "eu-west-1", "eu-west-1": "us-east-1"} {
		d, err := eng.Region(region).Client().DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("users")})
		if err != nil {
			t.Fatal(err)
		}
		tb := d.Table
		if aws.ToString(tb.GlobalTableVersion) != "2019.11.21" || tb.MultiRegionConsistency != types.MultiRegionConsistencyEventual ||
			len(tb.Replicas) != 1 || aws.ToString(tb.Replicas[0].RegionName) != other || tb.Replicas[0].ReplicaStatus != types.ReplicaStatusActive {
			t.Errorf("%s DescribeTable: version %v, consistency %v, replicas %+v", region, aws.ToString(tb.GlobalTableVersion), tb.MultiRegionConsistency, tb.Replicas)
		}
	}
	if s := eng.Replication().ReplicationLatency("users", "us-east-1", "eu-west-1"); s.Count != 1 {
		t.Errorf("ReplicationLatency = %+v, want one write", s)
	}
}

// TestGlobalTableLastWriterWins: the same item written in two Regions
// before either write replicates ends, in both, as the later write.
func TestGlobalTableLastWriterWins(t *testing.T) {
	eng := globalEngine(t, "us-east-1", "eu-west-1")
	addReplica(t, eng, "us-east-1", "eu-west-1")
	east, west := eng.Region("us-east-1").Client(), eng.Region("eu-west-1").Client()
	eng.Replication().SetClockSkew("us-east-1", time.Minute) // us-east-1's writes are later
	putV(t, east, "k", "east")
	putV(t, west, "k", "west")
	if rep := eng.Replication().WaitQuiet(); !rep.Identical {
		t.Fatalf("not identical: %v", rep.Differences)
	}
	if a, b := value(t, east, "k"), value(t, west, "k"); a != "east" || b != "east" {
		t.Errorf("k = %q in us-east-1, %q in eu-west-1; want east (the later clock) in both", a, b)
	}
}

// TestGlobalTableFaults: a partition holds writes back until it heals; a
// crashed Region resets its connections and, with its backlog dropped,
// never sends what it had not sent.
func TestGlobalTableFaults(t *testing.T) {
	eng := globalEngine(t, "us-east-1", "eu-west-1")
	addReplica(t, eng, "us-east-1", "eu-west-1")
	rep := eng.Replication()
	east, west := eng.Region("us-east-1").Client(), eng.Region("eu-west-1").Client()
	rep.Partition("us-east-1", "eu-west-1")
	putV(t, east, "p", "1")
	if q := rep.WaitQuiet(); q.Pending != 1 || q.Identical {
		t.Errorf("partitioned: %+v, want one pending write and different replicas", q)
	}
	rep.Heal("us-east-1", "eu-west-1")
	if q := rep.WaitQuiet(); q.Pending != 0 || !q.Identical || value(t, west, "p") != "1" {
		t.Errorf("healed: %+v", q)
	}
	rep.Pause()
	putV(t, east, "paused", "1")
	if q := rep.WaitQuiet(); q.Pending != 1 || value(t, west, "paused") != "" {
		t.Errorf("paused: %+v, want the write held back", q)
	}
	rep.Resume()
	if q := rep.WaitQuiet(); q.Pending != 0 || !q.Identical {
		t.Errorf("resumed: %+v", q)
	}
	putV(t, east, "lost", "1")
	rep.Crash("us-east-1", false)
	_, err := east.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String("users"),
		Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "p"}}}, func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 })
	if !ddblocal.IsConnectionReset(err) {
		t.Errorf("a crashed Region answered %v, want a reset connection", err)
	}
	rep.Restart("us-east-1")
	if q := rep.WaitQuiet(); q.Identical || value(t, west, "lost") != "" {
		t.Errorf("a dropped backlog reached eu-west-1: %+v", q)
	}
}

// TestGlobalTableControlPlaneErrors: the preconditions of ReplicaUpdates.
func TestGlobalTableControlPlaneErrors(t *testing.T) {
	ctx := context.Background()
	eng := ddblocal.New(func(o *ddblocal.Options) { o.Regions = []string{"us-east-1", "eu-west-1"} })
	defer eng.Close()
	east := eng.Region("us-east-1").Client()
	if err := createUsers(ctx, east); err != nil {
		t.Fatal(err)
	}
	update := func(region string) error {
		_, err := east.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("users"),
			ReplicaUpdates: []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String(region)}}}})
		return err
	}
	for name, region := range map[string]string{"no stream": "eu-west-1", "own Region": "us-east-1", "unknown Region": "ap-south-1"} {
		var ae smithy.APIError
		if err := update(region); !errors.As(err, &ae) || ae.ErrorCode() != "ValidationException" {
			t.Errorf("%s: err = %v, want ValidationException", name, err)
		}
	}
}

// strongEngine opens three Regions of the US Region set with "users", an
// MRSC global table of three replicas.
func strongEngine(t *testing.T) *ddblocal.Engine {
	t.Helper()
	ctx := context.Background()
	eng := ddblocal.New(func(o *ddblocal.Options) {
		o.Regions = []string{"us-east-1", "us-east-2", "us-west-2"}
		o.ManualReplication = true
	})
	t.Cleanup(func() { eng.Close() })
	east := eng.Region("us-east-1").Client()
	if _, err := east.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("users"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	}); err != nil {
		t.Fatal(err)
	}
	_, err := east.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("users"),
		MultiRegionConsistency: types.MultiRegionConsistencyStrong,
		ReplicaUpdates: []types.ReplicationGroupUpdate{
			{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String("us-east-2")}},
			{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String("us-west-2")}},
		}})
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

func errCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

// TestGlobalTableStrong: under MRSC an acknowledged write is read at once
// in every Region; transactions and TTL are refused; a Region cut off
// from every other cannot write, while the majority can.
func TestGlobalTableStrong(t *testing.T) {
	ctx := context.Background()
	eng := strongEngine(t)
	e1, e2, w2 := eng.Region("us-east-1").Client(), eng.Region("us-east-2").Client(), eng.Region("us-west-2").Client()
	putV(t, e1, "a", "1")
	for name, db := range map[string]*dynamodb.Client{"us-east-2": e2, "us-west-2": w2} {
		if got := value(t, db, "a"); got != "1" {
			t.Errorf("%s right after the write: a = %q, want 1", name, got)
		}
	}
	d, err := w2.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("users")})
	if err != nil || d.Table.MultiRegionConsistency != types.MultiRegionConsistencyStrong || len(d.Table.Replicas) != 2 {
		t.Errorf("DescribeTable in us-west-2: %+v, %v", d, err)
	}
	_, err = e1.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{Put: &types.Put{
		TableName: aws.String("users"), Item: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "tx"}}}}}})
	if errCode(err) != "ValidationException" {
		t.Errorf("TransactWriteItems: %v, want ValidationException", err)
	}
	if got := value(t, e2, "tx"); got != "" {
		t.Errorf("a refused transaction wrote tx = %q", got)
	}
	_, err = e2.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{{Get: &types.Get{
		TableName: aws.String("users"), Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "a"}}}}}})
	if errCode(err) != "ValidationException" {
		t.Errorf("TransactGetItems: %v, want ValidationException", err)
	}
	_, err = e1.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("users"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}})
	if errCode(err) != "ValidationException" {
		t.Errorf("UpdateTimeToLive: %v, want ValidationException", err)
	}
	rep := eng.Replication()
	rep.Partition("us-east-1", "us-east-2")
	rep.Partition("us-east-1", "us-west-2")
	_, err = e1.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("users"), Item: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "cut"}}}, func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 })
	if errCode(err) != "InternalServerError" {
		t.Errorf("a write in a cut-off Region: %v, want InternalServerError", err)
	}
	if got := value(t, e1, "cut"); got != "" {
		t.Errorf("the refused write is in us-east-1: %q", got)
	}
	putV(t, e2, "b", "2") // us-east-2 and us-west-2 are a majority
	if got := value(t, w2, "b"); got != "2" {
		t.Errorf("us-west-2: b = %q, want 2", got)
	}
	rep.Heal("us-east-1", "us-east-2")
	rep.Heal("us-east-1", "us-west-2")
	if q := rep.WaitQuiet(); !q.Identical {
		t.Errorf("after healing: %v", q.Differences)
	}
}

// TestGlobalTableStrongRequirements: MRSC's documented requirements.
func TestGlobalTableStrongRequirements(t *testing.T) {
	ctx := context.Background()
	eng := ddblocal.New(func(o *ddblocal.Options) {
		o.Regions = []string{"us-east-1", "us-east-2", "us-west-2", "eu-west-1"}
	})
	defer eng.Close()
	east := eng.Region("us-east-1").Client()
	if _, err := east.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("users"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	}); err != nil {
		t.Fatal(err)
	}
	create := func(regions ...string) []types.ReplicationGroupUpdate {
		var out []types.ReplicationGroupUpdate
		for _, r := range regions {
			out = append(out, types.ReplicationGroupUpdate{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String(r)}})
		}
		return out
	}
	for name, in := range map[string]*dynamodb.UpdateTableInput{
		"two Regions":        {ReplicaUpdates: create("us-east-2")},
		"another Region set": {ReplicaUpdates: create("us-east-2", "eu-west-1")},
		"four Regions":       {ReplicaUpdates: create("us-east-2", "us-west-2"), GlobalTableWitnessUpdates: []types.GlobalTableWitnessGroupUpdate{{Create: &types.CreateGlobalTableWitnessGroupMemberAction{RegionName: aws.String("eu-west-1")}}}},
	} {
		in.TableName, in.MultiRegionConsistency = aws.String("users"), types.MultiRegionConsistencyStrong
		if _, err := east.UpdateTable(ctx, in); errCode(err) != "ValidationException" {
			t.Errorf("%s: %v, want ValidationException", name, err)
		}
	}
	putV(t, east, "x", "1")
	_, err := east.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("users"), MultiRegionConsistency: types.MultiRegionConsistencyStrong,
		ReplicaUpdates: create("us-east-2", "us-west-2")})
	if errCode(err) != "ValidationException" {
		t.Errorf("a table with items: %v, want ValidationException", err)
	}
	if _, err := east.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("users"), Key: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "x"}}}); err != nil {
		t.Fatal(err)
	}
	_, err = east.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("users"), MultiRegionConsistency: types.MultiRegionConsistencyStrong,
		ReplicaUpdates:            create("us-east-2"),
		GlobalTableWitnessUpdates: []types.GlobalTableWitnessGroupUpdate{{Create: &types.CreateGlobalTableWitnessGroupMemberAction{RegionName: aws.String("us-west-2")}}}})
	if err != nil {
		t.Fatalf("two replicas and a witness on the empty table: %v", err)
	}
	d, err := eng.Region("us-east-2").Client().DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("users")})
	if err != nil || len(d.Table.GlobalTableWitnesses) != 1 || aws.ToString(d.Table.GlobalTableWitnesses[0].RegionName) != "us-west-2" {
		t.Errorf("DescribeTable in us-east-2: witnesses %+v, %v", d.Table.GlobalTableWitnesses, err)
	}
}

// TestGlobalTableTransactionArrivesItemByItem: a transaction is atomic in
// its Region only; elsewhere its items arrive one at a time.
func TestGlobalTableTransactionArrivesItemByItem(t *testing.T) {
	ctx := context.Background()
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	eng := ddblocal.New(func(o *ddblocal.Options) {
		o.Regions = []string{"us-east-1", "eu-west-1"}
		o.ManualReplication = true
		o.Clock = func() time.Time { return clock }
	})
	defer eng.Close()
	east, west := eng.Region("us-east-1").Client(), eng.Region("eu-west-1").Client()
	_, err := east.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("users"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
		StreamSpecification:  &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages},
	})
	if err != nil {
		t.Fatal(err)
	}
	addReplica(t, eng, "us-east-1", "eu-west-1")
	lags := []time.Duration{10 * time.Millisecond, 500 * time.Millisecond}
	eng.Replication().SetFaults(ddblocal.ReplicationFaults{Lag: func(*rand.Rand) time.Duration { d := lags[0]; lags = lags[1:]; return d }})
	var items []types.TransactWriteItem
	for _, pk := range []string{"debit", "credit"} {
		items = append(items, types.TransactWriteItem{Put: &types.Put{TableName: aws.String("users"),
			Item: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: pk}, "v": &types.AttributeValueMemberS{Value: "1"}}}})
	}
	if _, err := east.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items}); err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(100 * time.Millisecond)
	if n := eng.Replication().Deliver(); n != 1 {
		t.Errorf("Deliver after 100 ms applied %d writes, want 1", n)
	}
	if d, c := value(t, west, "debit"), value(t, west, "credit"); d != "1" || c != "" {
		t.Errorf("eu-west-1 mid-way: debit %q, credit %q; want the debit alone", d, c)
	}
	clock = clock.Add(time.Second)
	eng.Replication().Deliver()
	if c := value(t, west, "credit"); c != "1" {
		t.Errorf("eu-west-1 at the end: credit %q, want 1", c)
	}
	if s := eng.Replication().ReplicationLatency("users", "us-east-1", "eu-west-1"); s.Count != 2 || s.Maximum != 1100*time.Millisecond {
		t.Errorf("ReplicationLatency = %+v, want 2 writes, the slowest 1.1 s", s)
	}
}

// TestGlobalTableStreamsAndTTL: each replica's stream carries every
// write applied to it, replicated ones once each; a TTL deletion in one
// Region reaches the other as a deletion by the service; ClientRequestTokens
// are per Region.
func TestGlobalTableStreamsAndTTL(t *testing.T) {
	ctx := context.Background()
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	eng := ddblocal.New(func(o *ddblocal.Options) {
		o.Regions = []string{"us-east-1", "eu-west-1"}
		o.ManualReplication = true
		o.Clock = func() time.Time { return clock }
		o.TTLSweepInterval = -1
	})
	defer eng.Close()
	east, west := eng.Region("us-east-1").Client(), eng.Region("eu-west-1").Client()
	_, err := east.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("users"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
		StreamSpecification:  &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := east.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("users"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	addReplica(t, eng, "us-east-1", "eu-west-1")
	putV(t, east, "a", "1")
	putV(t, west, "b", "2")
	_, err = east.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("users"), Item: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "old"}, "exp": &types.AttributeValueMemberN{Value: fmt.Sprint(clock.Add(-time.Hour).Unix())}}})
	if err != nil {
		t.Fatal(err)
	}
	eng.Replication().WaitQuiet()
	if n, err := eng.Region("us-east-1").SweepTTL(ctx); err != nil || n != 1 {
		t.Fatalf("SweepTTL in us-east-1 = %d, %v", n, err)
	}
	eng.Replication().WaitQuiet()
	for _, r := range eng.Regions() {
		recs := streamRecords(t, eng.Region(r), "users")
		if len(recs) != 4 {
			t.Errorf("%s's stream: %d records, want 4 (a, b, old, old's deletion): %v", r, len(recs), recs)
			continue
		}
		last := recs[3]
		if last.EventName != "REMOVE" || last.UserIdentity == nil || aws.ToString(last.UserIdentity.PrincipalId) != "dynamodb.amazonaws.com" {
			t.Errorf("%s: the TTL deletion's record is %+v", r, last)
		}
	}
	if got := value(t, west, "old"); got != "" {
		t.Errorf("eu-west-1 still holds the expired item")
	}
	tx := func(db *dynamodb.Client, v string) error {
		_, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{ClientRequestToken: aws.String("tok"),
			TransactItems: []types.TransactWriteItem{{Put: &types.Put{TableName: aws.String("users"),
				Item: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "t-" + v}}}}}})
		return err
	}
	if err := tx(east, "east"); err != nil {
		t.Fatal(err)
	}
	if err := tx(west, "west"); err != nil {
		t.Errorf("the same token with another request in eu-west-1: %v, want accepted (tokens are per Region)", err)
	}
}

// TestGlobalTableBackgroundReplication: without ManualReplication a
// goroutine applies each write once its lag has passed, while both
// Regions write concurrently.
func TestGlobalTableBackgroundReplication(t *testing.T) {
	ctx := context.Background()
	eng := ddblocal.New(func(o *ddblocal.Options) { o.Regions = []string{"us-east-1", "eu-west-1"} })
	defer eng.Close()
	east, west := eng.Region("us-east-1").Client(), eng.Region("eu-west-1").Client()
	_, err := east.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("users"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
		StreamSpecification:  &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages},
	})
	if err != nil {
		t.Fatal(err)
	}
	addReplica(t, eng, "us-east-1", "eu-west-1")
	eng.Replication().SetFaults(ddblocal.ReplicationFaults{Seed: 3, Lag: ddblocal.ExponentialLag(2 * time.Millisecond)})
	done := make(chan error, 1)
	go func() { // t.Fatal belongs to the test's goroutine
		for i := 0; i < 100; i++ {
			if _, err := west.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("users"), Item: map[string]types.AttributeValue{
				"PK": &types.AttributeValueMemberS{Value: fmt.Sprint("w", i)}, "v": &types.AttributeValueMemberS{Value: "west"}}}); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	for i := 0; i < 100; i++ {
		putV(t, east, fmt.Sprint("e", i), "east")
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for value(t, west, "e99") == "" || value(t, east, "w99") == "" {
		if time.Now().After(deadline) {
			t.Fatal("the background replication did not deliver within 10 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if q := eng.Replication().WaitQuiet(); !q.Identical || q.Pending != 0 {
		t.Errorf("after quiet: %+v", q)
	}
	if s := eng.Replication().ReplicationLatency("users", "eu-west-1", "us-east-1"); s.Count != 100 {
		t.Errorf("ReplicationLatency eu-west-1 to us-east-1: %+v, want 100 writes", s)
	}
}

// TestGlobalTableSettingsAligned: a global secondary index and TTL
// enabled on one replica reach the others.
func TestGlobalTableSettingsAligned(t *testing.T) {
	ctx := context.Background()
	eng := globalEngine(t, "us-east-1", "eu-west-1")
	addReplica(t, eng, "us-east-1", "eu-west-1")
	east, west := eng.Region("us-east-1").Client(), eng.Region("eu-west-1").Client()
	_, err := east.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("users"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("v"), AttributeType: types.ScalarAttributeTypeS}},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName: aws.String("by-v"), KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("v"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := east.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("users"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	putV(t, east, "a", "x")
	eng.Replication().WaitQuiet()
	q, err := west.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("users"), IndexName: aws.String("by-v"),
		KeyConditionExpression: aws.String("v = :v"), ExpressionAttributeValues: map[string]types.AttributeValue{":v": &types.AttributeValueMemberS{Value: "x"}}})
	if err != nil || q.Count != 1 {
		t.Errorf("eu-west-1 Query on the index created in us-east-1: %+v, %v", q, err)
	}
	ttl, err := west.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("users")})
	if err != nil || ttl.TimeToLiveDescription.TimeToLiveStatus != types.TimeToLiveStatusEnabled {
		t.Errorf("eu-west-1 DescribeTimeToLive: %+v, %v", ttl, err)
	}
}

// TestGlobalTableReplicaAddedWhileWritesAreInFlight: a replica created in
// a third Region while another Region's writes are still on their way to
// the source receives them, each once: the new replica is seeded from the
// source's items, and a write that reaches the source after the seeding is
// passed on to it under last writer wins. Its stream holds each write once.
func TestGlobalTableReplicaAddedWhileWritesAreInFlight(t *testing.T) {
	eng := globalEngine(t, "us-east-1", "eu-west-1", "ap-south-1")
	addReplica(t, eng, "us-east-1", "eu-west-1")
	east, west, south := eng.Region("us-east-1").Client(), eng.Region("eu-west-1").Client(), eng.Region("ap-south-1").Client()
	putV(t, east, "seeded", "1")
	putV(t, west, "inflight", "w1") // on its way to us-east-1 only
	putV(t, west, "overwritten", "old")
	eng.Replication().Partition("eu-west-1", "us-east-1") // held back past the replica's creation
	putV(t, west, "held", "w2")
	putV(t, west, "overwritten", "new")
	if got := value(t, east, "inflight"); got != "" {
		t.Fatalf("us-east-1 before delivery: inflight = %q, want absent", got)
	}
	addReplica(t, eng, "us-east-1", "ap-south-1")
	if rep := eng.Replication().WaitQuiet(); rep.Pending == 0 {
		t.Fatalf("WaitQuiet during the partition: %+v, want held writes", rep)
	}
	eng.Replication().Heal("eu-west-1", "us-east-1")
	rep := eng.Replication().WaitQuiet()
	if !rep.Identical || rep.Pending != 0 {
		t.Fatalf("WaitQuiet = %+v, want identical and nothing pending", rep)
	}
	want := map[string]string{"seeded": "1", "inflight": "w1", "held": "w2", "overwritten": "new"}
	for pk, v := range want {
		if got := value(t, south, pk); got != v {
			t.Errorf("ap-south-1: %s = %q, want %q", pk, got, v)
		}
	}
	// ap-south-1's stream holds each write it received once.
	seen := map[string]bool{}
	for _, r := range streamRecords(t, eng.Region("ap-south-1"), "users") {
		img := r.Dynamodb.NewImage
		if img == nil {
			continue
		}
		w := img["PK"].(*streamtypes.AttributeValueMemberS).Value + "=" + img["v"].(*streamtypes.AttributeValueMemberS).Value
		if seen[w] {
			t.Errorf("ap-south-1's stream has the write %s twice", w)
		}
		seen[w] = true
	}
}
