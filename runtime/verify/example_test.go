package verify_test

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/schema/provision"
	"github.com/oncetable/oncetable/runtime/verify"
)

// A table whose only user has a balance of 100 and no ledger entry: the
// balance was written without its ledger entry.
func ExampleTable() {
	eng := ddblocal.New()
	defer eng.Close()
	ctx := context.Background()
	db := eng.Client()
	if err := provision.EnsureTable(ctx, db, "restored"); err != nil {
		panic(err)
	}
	db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("restored"), Item: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "USER#alice"}, "SK": &types.AttributeValueMemberS{Value: "PROFILE"},
		"EntityType": &types.AttributeValueMemberS{Value: "User"}, "userId": &types.AttributeValueMemberS{Value: "alice"},
		"balance": &types.AttributeValueMemberN{Value: "100"},
	}})

	rep, err := verify.Table(ctx, db, func(o *verify.Options) {
		o.Table = "restored"
		o.Segments = 2 // parallel Scan segments
		o.MaxRCU = 50  // read units per second, at most, on average
	})
	if err != nil {
		panic(err)
	}
	// rep.WriteText(os.Stdout) and rep.WriteJSON(os.Stdout) print the whole report.
	fmt.Println(rep.OK, rep.Items, rep.Counts[verify.BalanceMismatch])
	for _, v := range rep.Violations {
		fmt.Println(v.Kind, v.Keys[0].PK, v.Keys[0].SK)
		fmt.Println(v.Detail)
	}
	// Output:
	// false 1 1
	// balance-mismatch USER#alice PROFILE
	// user alice: balance 100, the legs on user:alice sum to 0 over 0 entries (off by 100)
}
