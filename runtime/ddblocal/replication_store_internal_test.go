package ddblocal

import (
	"context"
	"errors"
	"maps"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestReplicationPersists: with a data directory, the global table, its
// items' versions and the backlog of a partitioned Region survive a
// restart, and the backlog is delivered afterwards, once. A write whose
// commit fails leaves nothing in the backlog.
func TestReplicationPersists(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	open := func() *Engine {
		e, err := Open(func(o *Options) {
			o.Regions, o.Dir, o.ManualReplication, o.TTLSweepInterval = []string{"us-east-1", "eu-west-1"}, dir, true, -1
		})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	putItem := func(e *Engine, region, pk string) error {
		_, err := e.Region(region).Client(func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 }).PutItem(ctx, &dynamodb.PutItemInput{
			TableName: aws.String("gtab"), Item: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: pk}}})
		return err
	}
	eng := open()
	east := eng.Region("us-east-1").Client()
	if _, err := east.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("gtab"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
		StreamSpecification:  &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := east.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("gtab"),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String("eu-west-1")}}}}); err != nil {
		t.Fatal(err)
	}
	if err := putItem(eng, "us-east-1", "a"); err != nil {
		t.Fatal(err)
	}
	eng.Replication().WaitQuiet()
	eng.Replication().Partition("us-east-1", "eu-west-1")
	if err := putItem(eng, "us-east-1", "b"); err != nil {
		t.Fatal(err)
	}
	eng.Region("us-east-1").commitFault = func() error { return errors.New("disk full (injected)") }
	if err := putItem(eng, "us-east-1", "failed"); err == nil {
		t.Fatal("a write whose commit failed succeeded")
	}
	eng.Region("us-east-1").commitFault = nil
	versions := func(e *Engine, region string) map[string]itemVersion {
		tb := e.Region(region).anyStatus("gtab")
		var out map[string]itemVersion
		tb.rlocked(func() { out = maps.Clone(tb.replica.versions) })
		return out
	}
	eastVers, westVers := versions(eng, "us-east-1"), versions(eng, "eu-west-1")
	if q := eng.Replication().WaitQuiet(); q.Pending != 1 {
		t.Fatalf("before the restart: %d pending, want b's write alone", q.Pending)
	}
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}

	eng = open()
	if got := versions(eng, "us-east-1"); !maps.Equal(got, eastVers) {
		t.Errorf("us-east-1's versions after the restart: %v, want %v", got, eastVers)
	}
	if got := versions(eng, "eu-west-1"); !maps.Equal(got, westVers) {
		t.Errorf("eu-west-1's versions after the restart: %v, want %v", got, westVers)
	}
	d, err := eng.Region("eu-west-1").Client().DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("gtab")})
	if err != nil || len(d.Table.Replicas) != 1 || aws.ToString(d.Table.GlobalTableVersion) != globalTableVersion {
		t.Errorf("eu-west-1 DescribeTable after the restart: %+v, %v", d, err)
	}
	if n := eng.Region("eu-west-1").anyStatus("gtab").items.Len(); n != 1 {
		t.Errorf("eu-west-1 holds %d items before delivery, want 1 (a)", n)
	}
	q := eng.Replication().WaitQuiet()
	if !q.Identical || q.Pending != 0 {
		t.Errorf("after the restart: %+v", q)
	}
	if n := eng.Region("eu-west-1").anyStatus("gtab").items.Len(); n != 2 {
		t.Errorf("eu-west-1 holds %d items after delivery, want 2 (a, b)", n)
	}
	if err := putItem(eng, "eu-west-1", "c"); err != nil {
		t.Fatal(err)
	}
	eng.Replication().WaitQuiet()
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	eng = open()
	defer eng.Close()
	if q := eng.Replication().WaitQuiet(); q.Pending != 0 || !q.Identical {
		t.Errorf("a delivered backlog came back after a second restart: %+v", q)
	}
	if n := eng.Region("us-east-1").anyStatus("gtab").items.Len(); n != 3 {
		t.Errorf("us-east-1 holds %d items, want 3", n)
	}
}
