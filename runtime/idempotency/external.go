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

	"github.com/oncetable/oncetable/runtime/retry"
	"github.com/oncetable/oncetable/runtime/txn"
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

// window is the in-progress window of a call: w when positive, else up to
// ctx's deadline (a Lambda's remaining time), else Options.Window.
func (t *Table) window(ctx context.Context, w time.Duration, now time.Time) (time.Duration, error) {
	if w > 0 {
		return w, nil
	}
	if dl, ok := ctx.Deadline(); ok {
		if left := dl.Sub(now); left > 0 {
			return left, nil
		}
		return 0, fmt.Errorf("idempotency: the context's deadline %s has passed: %w", dl.UTC().Format(time.RFC3339), context.DeadlineExceeded)
	}
	return t.o.Window, nil
}

// Begin claims req's key for an effect outside DynamoDB (the lock-first
// protocol) with one conditional PutItem of a pending record, which blocks
// the key until now + window. A window of 0 ends at ctx's deadline (a
// Lambda's remaining time, as Powertools does) or, without a deadline,
// after Options.Window. The outcomes are:
//
//   - the key is free (or its record expired): a *Pending the caller holds;
//   - a completed, unexpired record with the same fingerprint: its stored
//     response with Replayed set and a nil *Pending;
//   - a record with another fingerprint: [ErrKeyReused];
//   - a pending record inside its window: *[InProgressError] (HTTP 409).
//
// After the window a pending record counts as absent: a duplicate then
// claims the key and runs the effect again, which is safe only if the
// external system deduplicates by [Pending.ForwardKey]. [Table.Run] wraps
// the three outcomes in one call.
func (t *Table) Begin(ctx context.Context, req Request, window time.Duration) (Response, *Pending, error) {
	if err := req.check(); err != nil {
		return Response{}, nil, err
	}
	now := t.o.Clock()
	window, err := t.window(ctx, window, now)
	if err != nil {
		return Response{}, nil, err
	}
	until := now.Add(window + time.Second - 1).Unix()
	hash := req.Scope.Hash(req.Key)
	recKey := t.recordKey(hash)
	rec := Record{PK: recKey.PK, SK: recKey.SK, Operation: req.Scope.Operation,
		Fingerprint: req.Fingerprint, CreatedAt: timestamp(now), ExpiresAt: until,
		State: statePending, LockedUntil: until, Owner: newID("own")}
	put, err := t.o.Attributes.put(t.name, rec, now)
	if err != nil {
		return Response{}, nil, err
	}
	blocked, item, err := t.claim(ctx, put, t.legacyKey(req, hash), now)
	if err != nil {
		return Response{}, nil, t.refused(err)
	}
	if blocked != (itemKey{}) {
		resp, err := t.replayBlocked(ctx, blocked, item, req.Fingerprint)
		return resp, nil, err
	}
	return Response{}, &Pending{t: t, rec: rec, owner: rec.Owner}, nil
}

// claim writes the pending record: one PutItem, or with a legacy place to
// check one TransactWriteItems of the Put and a ConditionCheck. When a
// record blocks the key it returns that record's key and item.
func (t *Table) claim(ctx context.Context, put *types.Put, legacy itemKey, now time.Time) (itemKey, map[string]types.AttributeValue, error) {
	recKey := itemKey{PK: put.Item[t.o.Attributes.PartitionKey].(*types.AttributeValueMemberS).Value,
		SK: put.Item[t.o.Attributes.SortKey].(*types.AttributeValueMemberS).Value}
	if legacy == (itemKey{}) {
		err := retry.Do(ctx, t.o.Retry, func(int) error {
			_, err := t.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: put.TableName, Item: put.Item,
				ConditionExpression: put.ConditionExpression, ExpressionAttributeNames: put.ExpressionAttributeNames,
				ExpressionAttributeValues: put.ExpressionAttributeValues, ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld})
			return err
		})
		var ccf *types.ConditionalCheckFailedException
		if errors.As(err, &ccf) {
			return recKey, ccf.Item, nil
		}
		return itemKey{}, nil, err
	}
	cc, err := t.o.Attributes.freeCheck(t.name, legacy, now)
	if err != nil {
		return itemKey{}, nil, err
	}
	var items txn.Items
	items.Add(RecordItem, types.TransactWriteItem{Put: put})
	items.Add(legacyItem, types.TransactWriteItem{ConditionCheck: cc})
	err = retry.Do(ctx, t.o.Retry, func(int) error {
		_, err := t.db.TransactWriteItems(ctx, items.Input())
		return err
	})
	c, ok := txn.Cancelled(err, &items)
	switch {
	case !ok:
		return itemKey{}, nil, err
	case c.Failed(RecordItem):
		return recKey, c.Item(RecordItem), nil
	case c.Failed(legacyItem):
		return legacy, c.Item(legacyItem), nil
	}
	return itemKey{}, nil, c
}

// Complete stores the external call's answer (eff's Status, Header and
// Body; eff.Items must be empty): one conditional UpdateItem that turns the
// pending record into a completed one, which blocks the key for the
// table's Expiry and answers every replay. With eff.Release set it calls
// [Pending.Release] instead and stores nothing.
func (p *Pending) Complete(ctx context.Context, eff *Effect) (Response, error) {
	if eff == nil || eff.Items.Len() > 0 {
		return Response{}, errors.New("idempotency: Complete takes an Effect with a status and no transaction items")
	}
	resp, err := eff.response()
	if err != nil {
		return Response{}, err
	}
	if eff.Release {
		return resp, p.Release(ctx)
	}
	a := p.t.o.Attributes
	now := p.t.o.Clock()
	done := p.rec
	done.State, done.LockedUntil, done.Owner = "", 0, ""
	done.Status, done.Header, done.Body, done.ExpiresAt = resp.Status, resp.Header, resp.Body, now.Add(p.t.o.Expiry).Unix()
	if err := checkSize(a.encode(done)); err != nil {
		// The answer cannot be stored: give the key back at once instead of
		// leaving it pending for the whole window.
		return Response{}, errors.Join(err, p.Release(ctx))
	}
	upd := expression.Set(expression.Name(a.Status), expression.Value(resp.Status)).
		Set(expression.Name(a.Body), expression.Value(bodyValue(resp.Body))).
		Set(expression.Name(a.TTL), expression.Value(now.Add(p.t.o.Expiry).Unix())).
		Remove(expression.Name(a.State)).Remove(expression.Name(a.LockedUntil)).Remove(expression.Name(a.Owner))
	if h := headerValue(resp.Header); h != nil {
		upd = upd.Set(expression.Name(a.Header), expression.Value(h))
	}
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
	return resp, nil
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

func (p *Pending) key() itemKey { return itemKey{PK: p.rec.PK, SK: p.rec.SK} }

// conditional runs write under the condition that the record is still this
// call's pending record, and maps a failed condition to ErrLockLost.
func (p *Pending) conditional(ctx context.Context, write func(expression.ConditionBuilder) error) error {
	a := p.t.o.Attributes
	cond := expression.Name(a.Owner).Equal(expression.Value(p.owner)).
		And(expression.Name(a.State).Equal(expression.Value(statePending)))
	err := retry.Do(ctx, p.t.o.Retry, func(int) error { return write(cond) })
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return ErrLockLost
	}
	return err
}

// Run is the external mode in one call: [Table.Begin] with the window from
// ctx (its deadline, else Options.Window), then call, then
// [Pending.Complete]; call gets [Pending.ForwardKey] to hand to the external
// system. A replay returns the stored response with Replayed
// set and does not call. An error from call releases the key (as
// Powertools deletes its record on an exception) and is returned; so does
// an Effect with Release set, whose answer is returned unstored. The
// errors of Begin and Complete are returned as they are.
func (t *Table) Run(ctx context.Context, req Request, call func(ctx context.Context, forwardKey string) (*Effect, error)) (Response, error) {
	resp, p, err := t.Begin(ctx, req, 0)
	if err != nil || p == nil {
		return resp, err
	}
	eff, err := call(ctx, p.ForwardKey())
	if err != nil {
		if rerr := p.Release(ctx); rerr != nil {
			return Response{}, errors.Join(err, rerr)
		}
		return Response{}, err
	}
	return p.Complete(ctx, eff)
}
