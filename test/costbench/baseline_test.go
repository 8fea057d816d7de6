package costbench_test

import (
	"context"
	"errors"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/store"
)

// powertools is the baseline, written only for this benchmark: the
// idempotency sequence of AWS Lambda Powertools. A first call is a
// conditional Put of an INPROGRESS record, the effect, then an Update of
// the record to COMPLETE with the response; a replay is the failed Put plus
// a GetItem of the record; a duplicate that arrives while the first is in
// flight finds INPROGRESS and fails (IdempotencyAlreadyInProgressError). The
// effects are the same transactions oncetable runs, without its record.
type powertools struct {
	db    *dynamodb.Client
	table string
	// guard, if set, replaces the Powertools sequence around the same
	// effects (the library's external mode does).
	guard func(ctx context.Context, partition, keyHash string, effect func(ctx context.Context, now time.Time) (string, error)) (string, bool, error)
}

// errInProgress is Powertools' IdempotencyAlreadyInProgressError.
var errInProgress = errors.New("baseline: idempotency record in progress")

type ptRecord struct {
	PK        string `dynamodbav:"PK"`
	SK        string `dynamodbav:"SK"`
	Status    string `dynamodbav:"status"`
	Data      string `dynamodbav:"data,omitempty"`
	ExpiresAt int64  `dynamodbav:"expiresAt"`
	InFlight  int64  `dynamodbav:"inProgressExpiresAt"`
}

// run guards effect with the Powertools sequence; it returns the stored or
// fresh response and whether it was a replay.
func (p *powertools) run(ctx context.Context, partition, keyHash string, effect func(ctx context.Context, now time.Time) (string, error)) (string, bool, error) {
	if p.guard != nil {
		return p.guard(ctx, partition, keyHash, effect)
	}
	now := time.Now()
	rk := keys.Key{PK: partition, SK: "PTIDEM#" + keyHash}
	item, err := attributevalue.MarshalMap(ptRecord{PK: rk.PK, SK: rk.SK, Status: "INPROGRESS",
		ExpiresAt: now.Add(24 * time.Hour).Unix(), InFlight: now.Add(time.Minute).UnixMilli()})
	if err != nil {
		return "", false, err
	}
	cond := expression.AttributeNotExists(expression.Name(schema.PartitionKey)).
		Or(expression.Name(schema.TTLAttribute).LessThan(expression.Value(now.Unix())))
	ce, err := expression.NewBuilder().WithCondition(cond).Build()
	if err != nil {
		return "", false, err
	}
	_, err = p.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(p.table), Item: item,
		ConditionExpression: ce.Condition(), ExpressionAttributeNames: ce.Names(), ExpressionAttributeValues: ce.Values()})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		out, err := p.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(p.table), Key: store.KeyAV(rk), ConsistentRead: aws.Bool(true)})
		if err != nil {
			return "", false, err
		}
		var rec ptRecord
		if err := attributevalue.UnmarshalMap(out.Item, &rec); err != nil {
			return "", false, err
		}
		if rec.Status != "COMPLETE" {
			return "", false, errInProgress
		}
		return rec.Data, true, nil
	}
	if err != nil {
		return "", false, err
	}
	body, err := effect(ctx, now)
	if err != nil {
		// Powertools deletes the record when the handler raises.
		p.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(p.table), Key: store.KeyAV(rk)})
		return "", false, err
	}
	upd, err := expression.NewBuilder().WithUpdate(expression.Set(expression.Name("status"), expression.Value("COMPLETE")).
		Set(expression.Name("data"), expression.Value(body))).Build()
	if err != nil {
		return "", false, err
	}
	_, err = p.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(p.table), Key: store.KeyAV(rk),
		UpdateExpression: upd.Update(), ExpressionAttributeNames: upd.Names(), ExpressionAttributeValues: upd.Values()})
	return body, false, err
}

func (p *powertools) transact(ctx context.Context, items ...types.TransactWriteItem) error {
	_, err := p.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	return err
}

func guardedDebit(table, userID string, amount int64, now time.Time) (types.TransactWriteItem, error) {
	uk, err := keys.User(userID)
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	bal := expression.Name("balance")
	return store.Update(table, uk,
		expression.Set(bal, bal.Minus(expression.Value(amount))).Set(expression.Name(schema.UpdatedAt), expression.Value(keys.Timestamp(now))),
		store.Exists().And(expression.Name("currency").Equal(expression.Value("EUR"))).And(bal.GreaterThanEqual(expression.Value(amount))))
}

func ledgerEntry(table, userID, entryID, kind string, amount int64, orderID string, now time.Time) (types.TransactWriteItem, error) {
	k, err := keys.Ledger(userID, entryID)
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return store.PutNew(table, store.LedgerEntry{PK: k.PK, SK: k.SK, EntityType: store.TypeLedgerEntry, EntryID: entryID,
		UserID: userID, Kind: kind, Amount: amount, Currency: "EUR", OrderID: orderID, CreatedAt: keys.Timestamp(now)})
}

func payable(total int64) expression.ConditionBuilder {
	return store.Exists().And(expression.Name("status").Equal(expression.Value(store.OrderCreated))).
		And(expression.Name("total").Equal(expression.Value(total))).And(expression.Name("currency").Equal(expression.Value("EUR")))
}

// debit is the guarded debit: balance update and ledger entry.
func (p *powertools) debit(ctx context.Context, keyHash, userID string, amount int64) (string, bool, error) {
	return p.run(ctx, "USER#"+userID, keyHash, func(ctx context.Context, now time.Time) (string, error) {
		id := keys.NewID("db")
		upd, err := guardedDebit(p.table, userID, amount, now)
		if err != nil {
			return "", err
		}
		entry, err := ledgerEntry(p.table, userID, id, store.LedgerDebit, amount, "", now)
		if err != nil {
			return "", err
		}
		return `{"entryId":"` + id + `"}`, p.transact(ctx, upd, entry)
	})
}

// charge gives the order its one payment.
func (p *powertools) charge(ctx context.Context, keyHash, orderID string, total int64) (string, bool, error) {
	return p.run(ctx, "ORDER#"+orderID, keyHash, func(ctx context.Context, now time.Time) (string, error) {
		id := keys.NewID("pay")
		ok, _ := keys.Order(orderID)
		pk, err := keys.Payment(orderID, id)
		if err != nil {
			return "", err
		}
		upd, err := store.Update(p.table, ok, expression.Set(expression.Name("paymentId"), expression.Value(id)),
			payable(total).And(expression.AttributeNotExists(expression.Name("paymentId"))))
		if err != nil {
			return "", err
		}
		put, err := store.PutNew(p.table, store.Payment{PK: pk.PK, SK: pk.SK, EntityType: store.TypePayment,
			UnprocessedPK: keys.UnprocessedPartition, UnprocessedSK: keys.UnprocessedSK(now, id), PaymentID: id, OrderID: orderID,
			Amount: total, Currency: "EUR", Status: store.PaymentCreated, CreatedAt: keys.Timestamp(now)})
		if err != nil {
			return "", err
		}
		return `{"paymentId":"` + id + `"}`, p.transact(ctx, upd, put)
	})
}

// settle reads the order (the request names neither user nor total), then
// pays it from the user's balance.
func (p *powertools) settle(ctx context.Context, keyHash, orderID string) (string, bool, error) {
	return p.run(ctx, "ORDER#"+orderID, keyHash, func(ctx context.Context, now time.Time) (string, error) {
		ok, _ := keys.Order(orderID)
		out, err := p.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(p.table), Key: store.KeyAV(ok), ConsistentRead: aws.Bool(true)})
		if err != nil {
			return "", err
		}
		var o store.Order
		if err := attributevalue.UnmarshalMap(out.Item, &o); err != nil || o.OrderID == "" {
			return "", errors.New("baseline: order not found")
		}
		ts := keys.Timestamp(now)
		upd, err := store.Update(p.table, ok, expression.Set(expression.Name("status"), expression.Value(store.OrderPaid)).
			Set(expression.Name("paidAt"), expression.Value(ts)), payable(o.Total))
		if err != nil {
			return "", err
		}
		debit, err := guardedDebit(p.table, o.UserID, o.Total, now)
		if err != nil {
			return "", err
		}
		uk, _ := keys.User(o.UserID)
		summary, err := store.Update(p.table, keys.Key{PK: uk.PK, SK: o.UserOrderSK},
			expression.Set(expression.Name("status"), expression.Value(store.OrderPaid)), store.Exists())
		if err != nil {
			return "", err
		}
		entry, err := ledgerEntry(p.table, o.UserID, keys.NewID("st"), store.LedgerSettle, o.Total, orderID, now)
		if err != nil {
			return "", err
		}
		return `{"orderId":"` + orderID + `","status":"paid"}`, p.transact(ctx, upd, debit, summary, entry)
	})
}
