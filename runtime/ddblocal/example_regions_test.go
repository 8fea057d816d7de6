package ddblocal_test

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/oncetable/oncetable/runtime/ddblocal"
)

// An engine with two Regions: each Region's client reaches its own
// tables, as a client configured for that Region reaches DynamoDB's.
func ExampleEngine_Region() {
	ctx := context.Background()
	eng := ddblocal.New(func(o *ddblocal.Options) {
		o.Regions = []string{"us-east-1", "eu-west-1"}
	})
	defer eng.Close()
	east := eng.Region("us-east-1").Client()
	west := eng.Region("eu-west-1").Client()

	if err := createUsers(ctx, east); err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range eng.Regions() {
		db := map[string]*dynamodb.Client{"us-east-1": east, "eu-west-1": west}[r]
		out, err := db.ListTables(ctx, &dynamodb.ListTablesInput{})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(r, out.TableNames)
	}
	// Output:
	// us-east-1 [users]
	// eu-west-1 []
}
