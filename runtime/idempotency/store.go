package idempotency

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/retry"
)

// Store records resp under req's key without an effect: the answer of a
// request that started and was refused by the state it found (a payment
// declined for insufficient funds, an order already paid), so that a retry
// with the same key is answered the same way instead of running again,
// as Stripe stores such answers. It costs one conditional PutItem, on the
// refusal's path only.
//
// The record's condition is the one [Table.Do] writes with, so a key that
// already holds a live record is not overwritten: Store then answers that
// record as Do would (its response with Replayed set, or [ErrKeyReused]
// for another fingerprint). On success it returns resp, not replayed.
//
// Do not store a request that failed validation before it started: a
// corrected retry with the same key must run.
func (t *Table) Store(ctx context.Context, req Request, resp Response) (Response, error) {
	if err := req.check(); err != nil {
		return Response{}, err
	}
	recKey := t.recordKey(req.Scope.Hash(req.Key))
	resp.Replayed = false
	err := retry.Do(ctx, t.o.Retry, func(int) error {
		now := t.o.Clock()
		put, err := t.o.Attributes.put(t.name, newRecord(recKey, req.Scope, req.Fingerprint, resp, now, t.o.Expiry), now)
		if err != nil {
			return err
		}
		_, err = t.db.PutItem(ctx, &dynamodb.PutItemInput{
			TableName: put.TableName, Item: put.Item, ConditionExpression: put.ConditionExpression,
			ExpressionAttributeNames: put.ExpressionAttributeNames, ExpressionAttributeValues: put.ExpressionAttributeValues,
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		})
		return err
	})
	if err == nil {
		return resp, nil
	}
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return t.replayBlocked(ctx, recKey, ccf.Item, req.Fingerprint)
	}
	return Response{}, t.refused(err)
}
