package provision_test

import (
	"context"
	"fmt"
	"sort"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/schema/provision"
)

// TestEnsureTable creates the table the schema describes, with TTL on, and
// is idempotent.
func TestEnsureTable(t *testing.T) {
	eng := ddblocal.New()
	defer eng.Close()
	db := eng.Client()
	ctx := context.Background()
	for range 2 {
		if err := provision.EnsureTable(ctx, db, "t-ensure"); err != nil {
			t.Fatal(err)
		}
	}
	d, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("t-ensure")})
	if err != nil {
		t.Fatal(err)
	}
	var got, want []string
	for _, ix := range d.Table.GlobalSecondaryIndexes {
		got = append(got, fmt.Sprintf("%s(%s,%s)%s", aws.ToString(ix.IndexName), aws.ToString(ix.KeySchema[0].AttributeName),
			aws.ToString(ix.KeySchema[1].AttributeName), ix.Projection.ProjectionType))
	}
	for _, ix := range schema.Indexes() {
		want = append(want, fmt.Sprintf("%s(%s,%s)%s", ix.Name, ix.PartitionKey, ix.SortKey, ix.Projection))
	}
	sort.Strings(got)
	sort.Strings(want)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("indexes: got %v, want %v", got, want)
	}
	ttl, err := db.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("t-ensure")})
	if err != nil {
		t.Fatal(err)
	}
	if d := ttl.TimeToLiveDescription; d.TimeToLiveStatus != types.TimeToLiveStatusEnabled || aws.ToString(d.AttributeName) != schema.TTLAttribute {
		t.Errorf("TTL: got %s on %q, want ENABLED on %q", d.TimeToLiveStatus, aws.ToString(d.AttributeName), schema.TTLAttribute)
	}
}

func ExampleEnsureTable() {
	eng := ddblocal.New()
	defer eng.Close()
	db := eng.Client()
	if err := provision.EnsureTable(context.Background(), db, schema.DefaultTableName); err != nil {
		fmt.Println(err)
		return
	}
	d, _ := db.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(schema.DefaultTableName)})
	fmt.Println(d.Table.TableStatus, len(d.Table.GlobalSecondaryIndexes))
	// Output: ACTIVE 3
}
