// Command consumer-ddblocal is another team's test setup in a Go module of
// its own (go.mod, with a replace directive to oncetable's engine module): it
// requires only the embedded DynamoDB engine, never oncetable's root module,
// so none of the CDK, jsii or the payments code. Its test runs `go mod graph`
// here and fails on any of them; make test runs it.
package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// run creates a table on the engine, writes an item and reads it back.
func run(w io.Writer) error {
	eng := ddblocal.New()
	defer eng.Close()
	db := eng.Client()
	ctx := context.Background()
	if _, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("shipments"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}}}); err != nil {
		return err
	}
	key := map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "o-1"}}
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("shipments"),
		Item: map[string]types.AttributeValue{"id": key["id"], "carrier": &types.AttributeValueMemberS{Value: "dhl"}}}); err != nil {
		return err
	}
	out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("shipments"), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "carrier:", out.Item["carrier"].(*types.AttributeValueMemberS).Value)
	return nil
}
