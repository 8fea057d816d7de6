package conformance_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
)

const (
	pageTransactWrite = "TransactWriteItems (DynamoDB API Reference)"
	pageTransactGet   = "TransactGetItems (DynamoDB API Reference)"
	pageTransactions  = "Amazon DynamoDB Transactions: How it works (Developer Guide)"
)

func txPut(table string, it item) types.TransactWriteItem {
	return types.TransactWriteItem{Put: &types.Put{TableName: aws.String(table), Item: it}}
}

func txCheck(table string, key item, cond string, vals item) types.TransactWriteItem {
	return types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: aws.String(table), Key: key, ConditionExpression: aws.String(cond), ExpressionAttributeValues: vals}}
}

func txUpdate(table string, key item, update string, vals item) types.TransactWriteItem {
	return types.TransactWriteItem{Update: &types.Update{TableName: aws.String(table), Key: key, UpdateExpression: aws.String(update), ExpressionAttributeValues: vals}}
}

func txDelete(table string, key item) types.TransactWriteItem {
	return types.TransactWriteItem{Delete: &types.Delete{TableName: aws.String(table), Key: key}}
}

func cancelled(t *testing.T, err error) *types.TransactionCanceledException {
	t.Helper()
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		t.Fatalf("got %v, want *types.TransactionCanceledException", err)
	}
	return tce
}

func reasonCodes(tce *types.TransactionCanceledException) []string {
	codes := make([]string, len(tce.CancellationReasons))
	for i, r := range tce.CancellationReasons {
		codes[i] = aws.ToString(r.Code)
	}
	return codes
}

func TestTransactWriteAtomic(t *testing.T) {
	doc(t, pageTransactWrite, `TransactWriteItems is a synchronous write operation that groups up to 100 action requests (Put, Update, Delete, ConditionCheck), which can target items in different tables. The actions are completed atomically so that either all of them succeed, or all of them fail.`)
	each(t, func(t *testing.T, tg *target) {
		a := hashTable(t, tg)
		bt := compositeTable(t, tg, types.ScalarAttributeTypeS)
		put(t, tg, a, item{"pk": s("acct"), "bal": n("100")})
		put(t, tg, a, item{"pk": s("old")})
		put(t, tg, bt, item{"pk": s("c"), "sk": s("1"), "ok": boolv(true)})
		_, err := tg.client.TransactWriteItems(ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			txUpdate(a, item{"pk": s("acct")}, "SET bal = bal - :v", item{":v": n("30")}),
			txPut(bt, item{"pk": s("c"), "sk": s("2"), "amount": n("30")}),
			txDelete(a, item{"pk": s("old")}),
			txCheck(bt, item{"pk": s("c"), "sk": s("1")}, "ok = :t", item{":t": boolv(true)}),
		}})
		noErr(t, err, "TransactWriteItems")
		wantItem(t, get(t, tg, a, item{"pk": s("acct")}), item{"pk": s("acct"), "bal": n("70")})
		wantItem(t, get(t, tg, bt, item{"pk": s("c"), "sk": s("2")}), item{"pk": s("c"), "sk": s("2"), "amount": n("30")})
		if it := get(t, tg, a, item{"pk": s("old")}); it != nil {
			t.Errorf("Delete in transaction left %s", show(it))
		}
	})
}

func TestTransactWriteCancellation(t *testing.T) {
	doc(t, pageTransactWrite, `TransactionCanceledException: The entire transaction request was canceled. CancellationReasons: a list of cancellation reasons, one per item in the request, in the same order as the TransactItems; the Code is None if the item raised no error, ConditionalCheckFailed if its condition was not met (Message "The conditional request failed"). If ReturnValuesOnConditionCheckFailure is ALL_OLD on an action, the reason carries the item (Item) as it was. Message: "Transaction cancelled, please refer cancellation reasons for specific reasons [None, ConditionalCheckFailed, ...]".`)
	each(t, func(t *testing.T, tg *target) {
		table := hashTable(t, tg)
		put(t, tg, table, item{"pk": s("a"), "bal": n("10")})
		put(t, tg, table, item{"pk": s("b"), "bal": n("5"), "tag": s("B")})
		put(t, tg, table, item{"pk": s("c"), "bal": n("1")})
		items := []types.TransactWriteItem{
			txUpdate(table, item{"pk": s("a")}, "SET bal = bal + :v", item{":v": n("1")}),
			{Update: &types.Update{TableName: aws.String(table), Key: item{"pk": s("b")}, UpdateExpression: aws.String("SET bal = bal - :v"),
				ConditionExpression: aws.String("bal >= :v"), ExpressionAttributeValues: item{":v": n("6")},
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}},
			{ConditionCheck: &types.ConditionCheck{TableName: aws.String(table), Key: item{"pk": s("c")},
				ConditionExpression: aws.String("attribute_not_exists(pk)")}},
			txPut(table, item{"pk": s("d")}),
		}
		_, err := tg.client.TransactWriteItems(ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: items})
		tce := cancelled(t, err)
		want := []string{"None", "ConditionalCheckFailed", "ConditionalCheckFailed", "None"}
		got := reasonCodes(tce)
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("CancellationReasons codes = %q, want %q", got, want)
		}
		wantErr(t, err, "TransactionCanceledException", "Transaction cancelled, please refer cancellation reasons for specific reasons [None, ConditionalCheckFailed, ConditionalCheckFailed, None]")
		if m := aws.ToString(tce.CancellationReasons[1].Message); m != "The conditional request failed" {
			t.Errorf("reason[1].Message = %q, want The conditional request failed", m)
		}
		wantItem(t, tce.CancellationReasons[1].Item, item{"pk": s("b"), "bal": n("5"), "tag": s("B")})
		if it := tce.CancellationReasons[2].Item; len(it) != 0 {
			t.Errorf("reason[2] without ALL_OLD carries item %s", show(it))
		}
		if it := tce.CancellationReasons[0].Item; len(it) != 0 {
			t.Errorf("reason[0] (None) carries item %s", show(it))
		}
		// Nothing was applied.
		wantItem(t, get(t, tg, table, item{"pk": s("a")}), item{"pk": s("a"), "bal": n("10")})
		if it := get(t, tg, table, item{"pk": s("d")}); it != nil {
			t.Errorf("cancelled transaction wrote %s", show(it))
		}
	})
}

func TestTransactWriteLimits(t *testing.T) {
	each(t, func(t *testing.T, tg *target) {
		table := hashTable(t, tg)
		t.Run("100 actions", func(t *testing.T) {
			doc(t, pageTransactWrite, `TransactItems: Array Members: Minimum number of 1 item. Maximum number of 100 items.`)
			var items []types.TransactWriteItem
			for i := range 100 {
				items = append(items, txPut(table, item{"pk": s(fmt.Sprint("t", i))}))
			}
			_, err := tg.client.TransactWriteItems(ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: items})
			noErr(t, err, "100 actions")
			items = append(items, txPut(table, item{"pk": s("t100")}))
			_, err = tg.client.TransactWriteItems(ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: items})
			wantValidation(t, err, "1 validation error detected: ", "Member must have length less than or equal to 100")
		})
		t.Run("empty", func(t *testing.T) {
			doc(t, pageTransactWrite, `TransactItems: Minimum number of 1 item.`)
			_, err := tg.client.TransactWriteItems(ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{}})
			wantValidation(t, err, "Member must have length greater than or equal to 1")
		})
		t.Run("one action per item", func(t *testing.T) {
			doc(t, pageTransactWrite, `You can't target the same item with multiple operations within the same transaction. For example, you can't perform a ConditionCheck and also an Update action on the same item in the same transaction. ValidationException: "Transaction request cannot include multiple operations on one item".`)
			_, err := tg.client.TransactWriteItems(ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				txCheck(table, item{"pk": s("same")}, "attribute_not_exists(pk)", nil),
				txPut(table, item{"pk": s("same")}),
			}})
			wantValidation(t, err, "Transaction request cannot include multiple operations on one item")
		})
		t.Run("4 MB aggregate", func(t *testing.T) {
			doc(t, pageTransactions, `The aggregate size of the items in the transaction cannot exceed 4 MB (ValidationException; the exact message is not documented, so only the code is checked).`)
			big := strings.Repeat("x", 390*1024)
			var items []types.TransactWriteItem
			for i := range 11 { // 11 x 390 KB > 4 MB
				items = append(items, txPut(table, item{"pk": s(fmt.Sprint("big", i)), "d": s(big)}))
			}
			_, err := tg.client.TransactWriteItems(ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: items})
			wantErr(t, err, "ValidationException")
			if it := get(t, tg, table, item{"pk": s("big0")}); it != nil {
				t.Errorf("rejected transaction wrote big0")
			}
			_, err = tg.client.TransactWriteItems(ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: items[:10]})
			noErr(t, err, "10 x 390 KB (under 4 MB)")
		})
		t.Run("missing table", func(t *testing.T) {
			doc(t, pageTransactWrite, `ResourceNotFoundException: The operation tried to access a nonexistent table or index.`)
			_, err := tg.client.TransactWriteItems(ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{txPut(table+"-missing", item{"pk": s("x")})}})
			wantErr(t, err, "ResourceNotFoundException", "Requested resource not found")
		})
		t.Run("key type mismatch in Put", func(t *testing.T) {
			doc(t, pageTransactWrite, `A Put whose key does not match the table's schema cancels the transaction with a ValidationError reason.`)
			_, err := tg.client.TransactWriteItems(ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{txPut(table, item{"pk": n("5")})}})
			tce := cancelled(t, err)
			if got := reasonCodes(tce); len(got) != 1 || got[0] != "ValidationError" {
				t.Errorf("codes = %q, want [ValidationError]", got)
			} else if m := aws.ToString(tce.CancellationReasons[0].Message); m != "One or more parameter values were invalid: Type mismatch for key pk expected: S actual: N" {
				t.Errorf("reason message = %q", m)
			}
		})
	})
}

func TestTransactGet(t *testing.T) {
	doc(t, pageTransactGet, `TransactGetItems is a synchronous operation that atomically retrieves multiple items from one or more tables. Responses: An ordered array of up to 100 ItemResponse objects, each of which corresponds to the TransactGetItem object in the same position in the TransactItems array; if a requested item could not be retrieved, the corresponding ItemResponse object is null (no Item).`)
	each(t, func(t *testing.T, tg *target) {
		table := hashTable(t, tg)
		put(t, tg, table, item{"pk": s("a"), "v": n("1"), "w": s("x")})
		put(t, tg, table, item{"pk": s("b"), "v": n("2")})
		out, err := tg.client.TransactGetItems(ctx(t), &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
			{Get: &types.Get{TableName: aws.String(table), Key: item{"pk": s("b")}}},
			{Get: &types.Get{TableName: aws.String(table), Key: item{"pk": s("missing")}}},
			{Get: &types.Get{TableName: aws.String(table), Key: item{"pk": s("a")}, ProjectionExpression: aws.String("w")}},
		}})
		noErr(t, err, "TransactGetItems")
		if len(out.Responses) != 3 {
			t.Fatalf("%d responses, want 3", len(out.Responses))
		}
		wantItem(t, out.Responses[0].Item, item{"pk": s("b"), "v": n("2")})
		if len(out.Responses[1].Item) != 0 {
			t.Errorf("missing item response = %s, want no item", show(out.Responses[1].Item))
		}
		wantItem(t, out.Responses[2].Item, item{"w": s("x")})

		t.Run("100 items", func(t *testing.T) {
			doc(t, pageTransactGet, `TransactItems: Minimum number of 1 item. Maximum number of 100 items.`)
			var gets []types.TransactGetItem
			for i := range 101 {
				gets = append(gets, types.TransactGetItem{Get: &types.Get{TableName: aws.String(table), Key: item{"pk": s(fmt.Sprint("g", i))}}})
			}
			_, err := tg.client.TransactGetItems(ctx(t), &dynamodb.TransactGetItemsInput{TransactItems: gets[:100]})
			noErr(t, err, "100 gets")
			_, err = tg.client.TransactGetItems(ctx(t), &dynamodb.TransactGetItemsInput{TransactItems: gets})
			wantValidation(t, err, "Member must have length less than or equal to 100")
		})
		t.Run("same item twice", func(t *testing.T) {
			doc(t, pageTransactGet, `A transaction cannot include multiple operations on one item.`)
			_, err := tg.client.TransactGetItems(ctx(t), &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
				{Get: &types.Get{TableName: aws.String(table), Key: item{"pk": s("a")}}},
				{Get: &types.Get{TableName: aws.String(table), Key: item{"pk": s("a")}}},
			}})
			wantValidation(t, err, "Transaction request cannot include multiple operations on one item")
		})
	})
}

func TestClientRequestTokenIdempotency(t *testing.T) {
	doc(t, pageTransactWrite, `ClientRequestToken: Providing a ClientRequestToken makes the call to TransactWriteItems idempotent, meaning that multiple identical calls have the same effect as one single call. A client request token is valid for 10 minutes after the first request that uses it is completed. After 10 minutes, any request with the same client token is treated as a new request. If you submit a request with the same client token but a change in other parameters within the 10-minute idempotency window, DynamoDB returns an IdempotentParameterMismatch exception.`)
	input := func(table, token string, amount string) *dynamodb.TransactWriteItemsInput {
		return &dynamodb.TransactWriteItemsInput{
			ClientRequestToken: aws.String(token),
			TransactItems:      []types.TransactWriteItem{txUpdate(table, item{"pk": s("ctr")}, "ADD n :v", item{":v": n(amount)})},
		}
	}
	counter := func(t *testing.T, tg *target, table string) string {
		t.Helper()
		it := get(t, tg, table, item{"pk": s("ctr")})
		if it == nil {
			return "<none>"
		}
		return it["n"].(*types.AttributeValueMemberN).Value
	}
	t.Run("within the window", func(t *testing.T) {
		each(t, func(t *testing.T, tg *target) {
			table := hashTable(t, tg)
			token := fmt.Sprintf("tok-%d-%s", time.Now().UnixNano(), tg.name)
			_, err := tg.client.TransactWriteItems(ctx(t), input(table, token, "1"))
			noErr(t, err, "first request")
			// Another writer changes the item between the two calls.
			_, err = tg.client.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: item{"pk": s("ctr")},
				UpdateExpression: aws.String("ADD n :v"), ExpressionAttributeValues: item{":v": n("10")}})
			noErr(t, err, "interleaved update")
			_, err = tg.client.TransactWriteItems(ctx(t), input(table, token, "1"))
			noErr(t, err, "replay")
			if got := counter(t, tg, table); got != "11" {
				t.Errorf("after a replay n = %s, want 11 (the replay must not apply again)", got)
			}
			_, err = tg.client.TransactWriteItems(ctx(t), input(table, token, "2"))
			var ipm *types.IdempotentParameterMismatchException
			if !errors.As(err, &ipm) {
				t.Fatalf("same token, different request: got %v, want *types.IdempotentParameterMismatchException", err)
			}
			wantErr(t, err, "IdempotentParameterMismatchException")
			if got := counter(t, tg, table); got != "11" {
				t.Errorf("after a mismatched request n = %s, want 11", got)
			}
		})
	})
	t.Run("after ten minutes", func(t *testing.T) {
		clock := newFakeClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
		eachEngine(t, []func(*ddblocal.Options){clock.option()}, func(t *testing.T, tg *target) {
			table := hashTable(t, tg)
			_, err := tg.client.TransactWriteItems(ctx(t), input(table, "tok-window", "1"))
			noErr(t, err, "first")
			clock.Advance(9*time.Minute + 59*time.Second)
			_, err = tg.client.TransactWriteItems(ctx(t), input(table, "tok-window", "1"))
			noErr(t, err, "replay at 9m59s")
			if got := counter(t, tg, table); got != "1" {
				t.Errorf("replay inside the window applied: n = %s, want 1", got)
			}
			clock.Advance(2 * time.Second)
			_, err = tg.client.TransactWriteItems(ctx(t), input(table, "tok-window", "1"))
			noErr(t, err, "same token after 10 minutes")
			if got := counter(t, tg, table); got != "2" {
				t.Errorf("after 10 minutes the token must be a new request: n = %s, want 2", got)
			}
			clock.Advance(11 * time.Minute)
			_, err = tg.client.TransactWriteItems(ctx(t), input(table, "tok-window", "5"))
			noErr(t, err, "different request with an expired token")
			if got := counter(t, tg, table); got != "7" {
				t.Errorf("n = %s, want 7", got)
			}
		})
	})
}
