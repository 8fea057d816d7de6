package streampoll_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/streampoll"
)

// A consumer reads the stream and checkpoints; after it is gone, a new
// one with the same Checkpoints reads only what came after.
func ExampleMemoryCheckpoints() {
	eng := ddblocal.New()
	defer eng.Close()
	ctx, db := context.Background(), eng.Client()
	out, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String("items"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		StreamSpecification:  &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeKeysOnly},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	arn := aws.ToString(out.TableDescription.LatestStreamArn)
	put := func(k string) {
		_, _ = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("items"), Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: k}}})
	}
	show := func(_ context.Context, b events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
		var keys []string
		for _, r := range b.Records {
			keys = append(keys, r.Change.Keys["pk"].String())
		}
		fmt.Println(strings.Join(keys, " "))
		return events.DynamoDBEventResponse{}, nil
	}
	cps := &streampoll.MemoryCheckpoints{}
	withCheckpoints := func(o *streampoll.Options) { o.Checkpoints = cps }

	put("a")
	put("b")
	_, _ = streampoll.New(eng.StreamsClient(), arn, show, withCheckpoints).Poll(ctx)
	put("c")
	_, _ = streampoll.New(eng.StreamsClient(), arn, show, withCheckpoints).Poll(ctx)
	// Output:
	// a b
	// c
}
