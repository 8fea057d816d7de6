package home_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/home"
	"github.com/oncetable/oncetable/runtime/idempotency"
)

// A caller of the exactly-once library (runtime/idempotency) fences its own
// effect: home.Fence among the effect's items, home.FenceError on what Do
// returns. Here the cell's ownership item names eu-west-1, so a writer of
// us-east-1 is refused, and nothing is written, its record included.
func ExampleFenceError() {
	ctx := context.Background()
	eng := ddblocal.New()
	defer eng.Close()
	db := eng.Client()
	names := idempotency.Attributes{}
	db.CreateTable(ctx, idempotency.CreateTableInput("money", names))
	cell := home.CellOf("alice", 64)
	// The cell's home: the ownership item as the Region's replica holds it.
	home.Claim(ctx, db, "money", home.Lease{Cell: cell, Region: "eu-west-1", Epoch: 1})

	lease := home.Lease{Cell: cell, Region: "us-east-1", Epoch: 1} // what this writer believes
	records := idempotency.NewTable(db, "money")
	fp, _ := idempotency.Fingerprint("POST", "/debits", []byte(`{"amount":40}`))
	req := idempotency.Request{Scope: idempotency.Scope{Caller: "alice", Operation: "debit"}, Key: "k-1", Fingerprint: fp}
	_, err := records.Do(ctx, req, func(now time.Time) (*idempotency.Effect, error) {
		eff := &idempotency.Effect{Status: 201, Body: map[string]int{"amount": 40}}
		eff.Items.Add("entry", types.TransactWriteItem{Put: &types.Put{TableName: aws.String("money"),
			Item: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: home.PK(cell)},
				"SK": &types.AttributeValueMemberS{Value: "ENTRY#1"}}}})
		return eff, home.Fence(&eff.Items, "money", lease)
	})
	err = home.FenceError(err, nil, lease)
	var no *home.NotOwnerError
	fmt.Println(errors.As(err, &no), no.Owner.Region, no.Owner.Epoch)
	items, _ := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("money")})
	fmt.Println(items.Count, "item: the ownership item")
	// Output:
	// true eu-west-1 1
	// 1 item: the ownership item
}
