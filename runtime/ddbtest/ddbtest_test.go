package ddbtest_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddbtest"
)

func TestClientCountsEveryRequest(t *testing.T) {
	var c ddbtest.Counter
	db, _ := ddbtest.Client(t, nil, c.Option)
	ctx := context.Background()
	for range 2 {
		if _, err := db.ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name      string
		got, want int
	}{
		{"ListTables", c.Count("ListTables"), 2},
		{"GetItem", c.Count("GetItem"), 0},
		{"total", c.Total(), 2},
		{"snapshot", len(c.Snapshot()), 1},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %d, want %d", tt.name, tt.got, tt.want)
		}
	}
	c.Reset()
	if c.Total() != 0 {
		t.Errorf("Total after Reset = %d, want 0", c.Total())
	}
}

func TestTableNameIsFresh(t *testing.T) {
	a, b := ddbtest.TableName("wallets"), ddbtest.TableName("wallets")
	if a == b || !strings.HasPrefix(a, "wallets-") || len(a) != len("wallets-")+8 {
		t.Errorf("TableName = %q, %q; want two distinct wallets-<8 hex>", a, b)
	}
}

func TestCapacity(t *testing.T) {
	var c ddbtest.Capacity
	db, _ := ddbtest.Client(t, nil, c.Option)
	table := ddbtest.TableName("capacity")
	ctx := context.Background()
	if _, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String(table), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("k"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("k"), KeyType: types.KeyTypeHash}}}); err != nil {
		t.Fatal(err)
	}
	ddbtest.DeleteAfter(t, db, table)
	if err := dynamodb.NewTableExistsWaiter(db).Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)}, time.Minute); err != nil {
		t.Fatal(err)
	}
	c.Reset()
	key := map[string]types.AttributeValue{"k": &types.AttributeValueMemberS{Value: "a"}}
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: key}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key, ConsistentRead: aws.Bool(true)}); err != nil {
		t.Fatal(err)
	}
	if w, r := c.Units(); w != 1 || r != 1 {
		t.Errorf("units %v WCU %v RCU, want 1 and 1 (a small item, written and read consistently)", w, r)
	}
	if ddbtest.AskCapacity(&dynamodb.DescribeTableInput{}) || ddbtest.ConsumedCapacity(&dynamodb.DescribeTableOutput{}) != nil {
		t.Error("a control-plane operation has no capacity to ask for")
	}
}
