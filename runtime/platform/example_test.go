package platform_test

import (
	"context"
	"fmt"
	"os"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/outbox"
	"github.com/oncetable/oncetable/runtime/platform"
	"github.com/oncetable/oncetable/runtime/schema/provision"
	"github.com/oncetable/oncetable/runtime/store"
)

// A credit's entry (with its user's profile, as the credit flow writes
// them) reaches the totaller twice (a redelivered stream
// record); platform:funding counts it once.
func ExampleTotaller_Handle() {
	ctx := context.Background()
	eng := ddblocal.New()
	defer eng.Close()
	db := eng.Client()
	if err := provision.EnsureTable(ctx, db, "oncetable"); err != nil {
		panic(err)
	}
	e := store.LedgerEntry{PK: "USER#alice", SK: "LEDGER#2026-12-05T08:00:00.000000000Z#cr_1", EntityType: store.TypeLedgerEntry,
		EntryID: "cr_1", UserID: "alice", Kind: store.LedgerCredit, Amount: 5000, Currency: "EUR"}.WithLegs()
	profile, _ := attributevalue.MarshalMap(store.User{PK: "USER#alice", SK: "PROFILE", EntityType: store.TypeUser, UserID: "alice", Balance: 5000, Currency: "EUR"})
	item, _ := attributevalue.MarshalMap(e)
	for _, it := range []map[string]types.AttributeValue{profile, item} {
		if _, err := db.PutItem(ctx, putOf("oncetable", it)); err != nil {
			panic(err)
		}
	}
	record := events.DynamoDBEventRecord{EventName: "INSERT", Change: events.DynamoDBStreamRecord{SequenceNumber: "1", NewImage: outbox.StreamImage(item)}}
	tot := platform.New(db, func(o *platform.Options) { o.Table = "oncetable" })
	for range 2 {
		if _, err := tot.Handle(ctx, events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{record}}); err != nil {
			panic(err)
		}
	}
	sums, _ := platform.Read(ctx, db, func(o *platform.Options) { o.Table = "oncetable" })
	fmt.Println(store.AccountFunding, sums[store.AccountFunding]["EUR"])
	sheet, _ := platform.Conserve(ctx, db, func(o *platform.Options) { o.Table = "oncetable" })
	_ = sheet.WriteText(os.Stdout)
	// Output:
	// platform:funding -5000
	// account              currency               stored     not yet totalled
	// platform:funding     EUR                     -5000                    0
	// users (posted)       EUR                      5000
	// net                  EUR                         0
	// conserved: users and platform accounts sum to zero in every currency; 0 entries not yet totalled; 3 items read
}
