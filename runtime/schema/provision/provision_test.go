package provision_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
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

func TestCreateTableInputWithBothOrderIndexes(t *testing.T) {
	in := provision.CreateTableInputFor("t", schema.Schema{Orders: schema.OrdersBoth})
	var got []string
	for _, ix := range in.GlobalSecondaryIndexes {
		if *ix.IndexName != schema.OrdersByStatus.Name {
			continue
		}
		for _, k := range ix.KeySchema {
			got = append(got, *k.AttributeName+":"+string(k.KeyType))
		}
	}
	if want := "status:HASH shard:HASH createdAt:RANGE orderId:RANGE"; strings.Join(got, " ") != want {
		t.Errorf("OrdersByStatus key schema %v, want %s", got, want)
	}
	defs := map[string]string{}
	for _, d := range in.AttributeDefinitions {
		if _, dup := defs[*d.AttributeName]; dup {
			t.Errorf("attribute %s defined twice", *d.AttributeName)
		}
		defs[*d.AttributeName] = string(d.AttributeType)
	}
	if defs["shard"] != "N" || defs["status"] != "S" {
		t.Errorf("attribute types %v, want shard N and status S", defs)
	}
	db := ddblocal.New().Client()
	if err := provision.EnsureTableFor(context.Background(), db, "orders-both", schema.Schema{Orders: schema.OrdersBoth}); err != nil {
		t.Fatalf("EnsureTableFor on the engine: %v", err)
	}
	out, err := db.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String("orders-both")})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(out.Table.GlobalSecondaryIndexes); n != 4 {
		t.Errorf("the engine's table has %d indexes, want 4", n)
	}
}
