package ddblocal_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
)

// createUsers creates a table keyed by the strings PK and SK, as any
// client would.
func createUsers(ctx context.Context, db *dynamodb.Client) error {
	_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String("users"),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("SK"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("SK"), KeyType: types.KeyTypeRange},
		},
		BillingMode: types.BillingModePayPerRequest,
	})
	return err
}

func ExampleEngine_Client() {
	ctx := context.Background()
	eng := ddblocal.New()
	defer eng.Close()
	db := eng.Client()

	if err := createUsers(ctx, db); err != nil {
		fmt.Println(err)
		return
	}
	_, err := db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String("users"),
		Item: map[string]types.AttributeValue{
			"PK":      &types.AttributeValueMemberS{Value: "USER#1"},
			"SK":      &types.AttributeValueMemberS{Value: "PROFILE"},
			"balance": &types.AttributeValueMemberN{Value: "100"},
		},
		ConditionExpression: aws.String("attribute_not_exists(PK)"),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String("users"),
		Key: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: "USER#1"},
			"SK": &types.AttributeValueMemberS{Value: "PROFILE"},
		},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out.Item["balance"].(*types.AttributeValueMemberN).Value)
	// Output: 100
}

// Faults make the engine fail the way DynamoDB does; with retries off the
// client sees the throttling, and FaultCounts reports what was injected.
func ExampleEngine_SetFaults() {
	ctx := context.Background()
	eng := ddblocal.New()
	defer eng.Close()
	db := eng.Client(func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 })
	if err := createUsers(ctx, db); err != nil {
		fmt.Println(err)
		return
	}
	eng.SetFaults("users", ddblocal.Faults{Seed: 1, ThrottleRate: 1, Operations: []string{"PutItem"}})
	_, err := db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String("users"),
		Item: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: "USER#1"},
			"SK": &types.AttributeValueMemberS{Value: "PROFILE"},
		},
	})
	var throttled *types.ProvisionedThroughputExceededException
	fmt.Println(errors.As(err, &throttled), eng.FaultCounts().Throttled)
	// Output: true 1
}
