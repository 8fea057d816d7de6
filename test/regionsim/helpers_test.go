package regionsim

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// peek reads one attribute of a cell item in a Region's replica, as text.
func (c *Cluster) peek(t *testing.T, region, sk, attr string) string {
	t.Helper()
	out, err := c.DB[region].GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(Table), ConsistentRead: aws.Bool(true), Key: key(cell, sk)})
	if err != nil {
		t.Fatal(err)
	}
	switch v := out.Item[attr].(type) {
	case *types.AttributeValueMemberS:
		return v.Value
	case *types.AttributeValueMemberN:
		return v.Value
	}
	return ""
}
