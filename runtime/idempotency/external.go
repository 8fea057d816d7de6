package idempotency

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/retry"
)

// ErrLockLost is returned by [Pending.Complete] and [Pending.Release] when
// the pending record is no longer this call's: its in-progress window
// passed and another call took the key, or the record was removed. The
// external effect may then have run twice unless the external system
// deduplicated it by [Pending.ForwardKey].
var ErrLockLost = errors.New("idempotency: pending record lost (in-progress window passed)")

// Pending is a key held by one external-mode call, from [Table.Begin]
// until [Pending.Complete] or [Pending.Release].
type Pending struct {
	t     *Table
	rec   Record
	owner string
}

// ForwardKey is the key to hand to the external system (a card processor's
// own Idempotency-Key, an email's Message-ID) so that it can deduplicate a
// call that is made again after the window. It is the same for every call
// with the same scope and key, and does not reveal the key.
func (p *Pending) ForwardKey() string { return p.rec.SK[len(p.t.o.KeyPrefix):] }

// Until is when the pending record stops blocking its key.
func (p *Pending) Until() time.Time { return time.Unix(p.rec.LockedUntil, 0) }

// Begin claims req's key for an effect outside DynamoDB (the lock-first
// protocol) with one conditional PutItem of a pending record, which blocks
// the key until now + window; choose window longer than the external call
// can take, independent of any Lambda timeout. The outcomes are:
//
//   - the key is free (or its record expired): a *Pending the caller holds;
//   - a completed, unexpired record with the same fingerprint: its stored
//     response with Replayed set and a nil *Pending;
//   - a record with another fingerprint: [ErrKeyReused];
//   - a pending record inside its window: *[InProgressError] (HTTP 409).
//
// After the window a pending record counts as absent: a duplicate then
// claims the key and runs the effect again, which is safe only if the
// external system deduplicates by [Pending.ForwardKey].
func (t *Table) Begin(ctx context.Context, req Request, window time.Duration) (Response, *Pending, error) {
	if err := ValidateKey(req.Key); err != nil {
		return Response{}, nil, err
	}
	if window <= 0 {
		return Response{}, nil, fmt.Errorf("idempotency: in-progress window %v must be positive", window)
	}
	now := t.o.Clock()
	until := now.Add(window + time.Second - 1).Unix()
	recKey := t.recordKey(req.Partition, req.Scope.Hash(req.Key))
	rec := Record{PK: recKey.PK, SK: recKey.SK, EntityType: EntityType, Operation: req.Scope.Operation,
		Fingerprint: req.Fingerprint, CreatedAt: keys.Timestamp(now), ExpiresAt: until,
		State: StatePending, LockedUntil: until, Owner: keys.NewID("own")}
	put, err := t.o.Attributes.put(t.name, rec, now)
	if err != nil {
		return Response{}, nil, err
	}
	err = retry.Do(ctx, t.o.Retry, func(int) error {
		_, err := t.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: put.TableName, Item: put.Item,
			ConditionExpression: put.ConditionExpression, ExpressionAttributeNames: put.ExpressionAttributeNames,
			ExpressionAttributeValues: put.ExpressionAttributeValues, ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld})
		return err
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		resp, err := t.replayBlocked(ctx, recKey, ccf.Item, req.Fingerprint)
		return resp, nil, err
	}
	if err != nil {
		return Response{}, nil, err
	}
	return Response{}, &Pending{t: t, rec: rec, owner: rec.Owner}, nil
}

// Complete stores the external call's response: one conditional
// UpdateItem that turns the pending record into a completed one, which
// blocks the key for the table's Expiry and answers every replay.
func (p *Pending) Complete(ctx context.Context, status int, body any) (Response, error) {
	raw, err := marshalBody(body)
	if err != nil {
		return Response{}, err
	}
	a := p.t.o.Attributes
	now := p.t.o.Clock()
	upd := expression.Set(expression.Name(a.Status), expression.Value(status)).
		Set(expression.Name(a.Body), expression.Value(string(raw))).
		Set(expression.Name(a.TTL), expression.Value(now.Add(p.t.o.Expiry).Unix())).
		Remove(expression.Name(a.State)).Remove(expression.Name(a.LockedUntil)).Remove(expression.Name(a.Owner))
	if err := p.conditional(ctx, func(cond expression.ConditionBuilder) error {
		expr, err := expression.NewBuilder().WithUpdate(upd).WithCondition(cond).Build()
		if err != nil {
			return err
		}
		_, err = p.t.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(p.t.name), Key: a.key(p.key()),
			UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
			ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values()})
		return err
	}); err != nil {
		return Response{}, err
	}
	return Response{Status: status, Body: raw}, nil
}

// Release gives the key back after an external call that certainly did not
// take effect, so that a retry may run at once: one conditional DeleteItem.
func (p *Pending) Release(ctx context.Context) error {
	return p.conditional(ctx, func(cond expression.ConditionBuilder) error {
		expr, err := expression.NewBuilder().WithCondition(cond).Build()
		if err != nil {
			return err
		}
		_, err = p.t.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(p.t.name), Key: p.t.o.Attributes.key(p.key()),
			ConditionExpression: expr.Condition(), ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values()})
		return err
	})
}

func (p *Pending) key() keys.Key { return keys.Key{PK: p.rec.PK, SK: p.rec.SK} }

// conditional runs write under the condition that the record is still this
// call's pending record, and maps a failed condition to ErrLockLost.
func (p *Pending) conditional(ctx context.Context, write func(expression.ConditionBuilder) error) error {
	a := p.t.o.Attributes
	cond := expression.Name(a.Owner).Equal(expression.Value(p.owner)).
		And(expression.Name(a.State).Equal(expression.Value(StatePending)))
	err := retry.Do(ctx, p.t.o.Retry, func(int) error { return write(cond) })
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return ErrLockLost
	}
	return err
}
