package migrate_test

import (
	"context"
	"fmt"
	"hash/fnv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/migrate"
	"github.com/oncetable/oncetable/runtime/schema/provision"
	"github.com/oncetable/oncetable/runtime/txn"
)

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

func Example() {
	ctx := context.Background()
	engine := ddblocal.New()
	defer engine.Close()
	client := engine.Client()
	if err := provision.EnsureTable(ctx, client, "shop"); err != nil {
		panic(err)
	}
	client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("shop"), Item: map[string]types.AttributeValue{
		"PK": s("ORDER#o1"), "SK": s("ORDER#o1"), "EntityType": s("Order"), "orderId": s("o1"), "status": s("created"),
		"GSI1PK": s("ORDERSTATUS#created"), "GSI1SK": s("2026-12-01T10:00:00Z#o1")}})

	// Orders gain a shard derived from their id and lose GSI1PK/GSI1SK.
	shard := migrate.Migration{
		Name: "orders-shard", From: 1, To: 2,
		Match: func(it migrate.Item) bool { return migrate.Equal(it["EntityType"], s("Order")) },
		Transform: func(old migrate.Item) (migrate.Item, error) {
			id, ok := old["orderId"].(*types.AttributeValueMemberS)
			if !ok {
				return nil, fmt.Errorf("no orderId")
			}
			h := fnv.New32a()
			h.Write([]byte(id.Value))
			return migrate.Item{"shard": &types.AttributeValueMemberN{Value: fmt.Sprint(h.Sum32() % 4)}}, nil
		},
		Retire: []string{"GSI1PK", "GSI1SK"},
	}
	mg, err := migrate.New(client, "shop", shard, func(o *migrate.Options) { o.Holder = "example" })
	if err != nil {
		panic(err)
	}
	if _, err := mg.Run(ctx, migrate.Mirror); err != nil {
		panic(err)
	}

	// A writer in any phase: the fence makes a stale phase retry.
	fence := migrate.NewFence(client, "shop", "orders-shard")
	err = fence.Write(ctx, func(st migrate.State, tx *txn.Items) error {
		item, err := mg.Shape(st.Phase, map[string]types.AttributeValue{
			"PK": s("ORDER#o2"), "SK": s("ORDER#o2"), "EntityType": s("Order"), "orderId": s("o2"), "status": s("created"),
			"GSI1PK": s("ORDERSTATUS#created"), "GSI1SK": s("2026-12-01T10:01:00Z#o2")})
		tx.Add("order", types.TransactWriteItem{Put: &types.Put{TableName: aws.String("shop"), Item: item}})
		return err
	})
	if err != nil {
		panic(err)
	}

	st, err := mg.Run(ctx, migrate.Done)
	fmt.Println(st.Phase, err)
	out, _ := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("shop"), Key: map[string]types.AttributeValue{"PK": s("ORDER#o1"), "SK": s("ORDER#o1")}})
	_, hasShard := out.Item["shard"]
	_, hasGSI1 := out.Item["GSI1PK"]
	fmt.Println("shard:", hasShard, "GSI1PK:", hasGSI1)
	// Output:
	// done <nil>
	// shard: true GSI1PK: false
}
