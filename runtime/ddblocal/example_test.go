package ddblocal_test

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
)

func ExampleEngine_Client() {
	ctx := context.Background()
	eng := ddblocal.New()
	defer eng.Close()
	db := eng.Client()

	if err := ddblocal.EnsureTable(ctx, db, "oncetable"); err != nil {
		fmt.Println(err)
		return
	}
	_, err := db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String("oncetable"),
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
		TableName: aws.String("oncetable"),
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
