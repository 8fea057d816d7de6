package ddblocal_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
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
