package idempotency_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/txn"
)

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func n(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }

// move is a balance Update of one wallet on a table keyed id/kind.
func move(table, wallet, delta string, guard bool) types.TransactWriteItem {
	u := &types.Update{TableName: aws.String(table),
		Key:                       map[string]types.AttributeValue{"id": s("wallet#" + wallet), "kind": s("wallet")},
		UpdateExpression:          aws.String("ADD balance :d"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":d": n(delta)},
		ConditionExpression:       aws.String("attribute_exists(id)"),
	}
	if guard {
		u.ConditionExpression = aws.String("balance >= :need")
		u.ExpressionAttributeValues[":need"] = n(delta[1:])
	}
	return types.TransactWriteItem{Update: u}
}

// A wallet-to-wallet transfer on a table of its own (keys id/kind, TTL
// purge_at), made exactly-once by the transactional mode.
func ExampleTable_Do() {
	ctx := context.Background()
	eng := ddblocal.New()
	defer eng.Close()
	db := eng.Client()
	names := idempotency.Attributes{PartitionKey: "id", SortKey: "kind", TTL: "purge_at"}
	db.CreateTable(ctx, idempotency.CreateTableInput("wallets", names))
	db.UpdateTimeToLive(ctx, idempotency.TimeToLiveInput("wallets", names))
	for _, w := range []string{"alice", "bob"} {
		db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("wallets"),
			Item: map[string]types.AttributeValue{"id": s("wallet#" + w), "kind": s("wallet"), "balance": n("100")}})
	}

	records := idempotency.NewTable(db, "wallets", func(o *idempotency.Options) { o.Attributes = names })
	transfer := func(key, body string, amount string) {
		fp, _ := idempotency.Fingerprint("POST", "/transfers", []byte(body))
		req := idempotency.Request{Scope: idempotency.Scope{Caller: "alice", Operation: "transfer"},
			Key: key, Fingerprint: fp}
		resp, err := records.Do(ctx, req, func(now time.Time) (*idempotency.Effect, error) {
			eff := &idempotency.Effect{Status: 201, Body: map[string]string{"amount": amount, "at": now.Format(time.RFC3339)}}
			eff.Items.Add("debit", move("wallets", "alice", "-"+amount, true))
			eff.Items.Add("credit", move("wallets", "bob", amount, false))
			return eff, nil
		})
		var c *txn.CancelledError
		switch {
		case errors.As(err, &c) && c.Failed("debit"):
			fmt.Println(key, "insufficient funds")
		case errors.Is(err, idempotency.ErrKeyReused):
			fmt.Println(key, "422:", err)
		case err != nil:
			fmt.Println(key, err)
		default:
			fmt.Println(key, resp.Status, "replayed:", resp.Replayed)
		}
	}
	transfer("k1", `{"to":"bob","amount":30}`, "30")
	transfer("k1", `{"to":"bob","amount":30}`, "30")
	transfer("k1", `{"to":"bob","amount":31}`, "31")
	transfer("k2", `{"to":"bob","amount":500}`, "500")
	// Output:
	// k1 201 replayed: false
	// k1 201 replayed: true
	// k1 422: idempotency: key reused with a different request
	// k2 insufficient funds
}
