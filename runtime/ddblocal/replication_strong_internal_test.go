package ddblocal

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
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
