package ddblocal

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
)

// TestStrongConflict: an MRSC write while another Region's write holds
// its replica fails with ReplicatedWriteConflictException and writes
// nothing anywhere.
func TestStrongConflict(t *testing.T) {
	ctx := context.Background()
	eng := New(func(o *Options) {
		o.Regions = []string{"us-east-1", "us-east-2", "us-west-2"}
		o.ManualReplication = true
	})
	defer eng.Close()
	db := eng.Client(func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 })
	_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("tab"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("tab"), MultiRegionConsistency: types.MultiRegionConsistencyStrong,
		ReplicaUpdates: []types.ReplicationGroupUpdate{
			{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String("us-east-2")}},
			{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String("us-west-2")}},
		}})
	if err != nil {
		t.Fatal(err)
	}
	peer := eng.Region("us-west-2").anyStatus("tab")
	peer.mu.Lock() // a write in us-west-2 in progress
	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tab"), Item: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "k"}}})
	peer.mu.Unlock()
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != "ReplicatedWriteConflictException" {
		t.Fatalf("err = %v, want ReplicatedWriteConflictException", err)
	}
	for _, r := range eng.Regions() {
		if n := eng.Region(r).anyStatus("tab").items.Len(); n != 0 {
			t.Errorf("%s holds %d items after the refused write", r, n)
		}
	}
}

// TestStrongConflictPerItem: while us-west-2 writes item k, a write of k
// from us-east-1 is refused with ReplicatedWriteConflictException, and a
// write of another item goes through.
func TestStrongConflictPerItem(t *testing.T) {
	ctx := context.Background()
	eng := New(func(o *Options) {
		o.Regions = []string{"us-east-1", "us-east-2", "us-west-2"}
		o.ManualReplication = true
	})
	defer eng.Close()
	db := eng.Client(func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 })
	_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("tab"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("tab"), MultiRegionConsistency: types.MultiRegionConsistencyStrong,
		ReplicaUpdates: []types.ReplicationGroupUpdate{
			{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String("us-east-2")}},
			{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String("us-west-2")}},
		}})
	if err != nil {
		t.Fatal(err)
	}
	key, err := eng.anyStatus("tab").keyOf(attr.Item{"PK": attr.Str("k")})
	if err != nil {
		t.Fatal(err)
	}
	eng.global.mu.Lock()
	eng.global.inflight = map[string]string{"tab\x00" + string(key): "us-west-2"} // us-west-2 is writing k
	eng.global.mu.Unlock()
	putPK := func(pk string) error {
		_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tab"), Item: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: pk}}})
		return err
	}
	var ae smithy.APIError
	if err := putPK("k"); !errors.As(err, &ae) || ae.ErrorCode() != "ReplicatedWriteConflictException" {
		t.Errorf("writing k: err = %v, want ReplicatedWriteConflictException", err)
	}
	if err := putPK("j"); err != nil {
		t.Errorf("writing another item: %v", err)
	}
	for _, r := range eng.Regions() {
		if n := eng.Region(r).anyStatus("tab").items.Len(); n != 1 {
			t.Errorf("%s holds %d items, want j alone", r, n)
		}
	}
}

// TestStrongConcurrentWriters: two Regions writing the same items at once
// never deadlock; every write either succeeds or fails with
// ReplicatedWriteConflictException, and the replicas end identical.
func TestStrongConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	eng := New(func(o *Options) {
		o.Regions = []string{"us-east-1", "us-east-2", "us-west-2"}
		o.ManualReplication = true
	})
	defer eng.Close()
	db := eng.Client()
	_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("tab"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("tab"), MultiRegionConsistency: types.MultiRegionConsistencyStrong,
		ReplicaUpdates: []types.ReplicationGroupUpdate{
			{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String("us-east-2")}},
			{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String("us-west-2")}},
		}})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 400)
	for _, region := range []string{"us-east-1", "us-east-2"} {
		c := eng.Region(region).Client(func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 })
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tab"), Item: map[string]types.AttributeValue{
					"PK": &types.AttributeValueMemberS{Value: fmt.Sprint("k", i%3)}, "by": &types.AttributeValueMemberS{Value: region}}})
				var ae smithy.APIError
				if err != nil && (!errors.As(err, &ae) || ae.ErrorCode() != "ReplicatedWriteConflictException") {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if q := eng.Replication().WaitQuiet(); !q.Identical {
		t.Errorf("replicas differ: %v", q.Differences)
	}
}
