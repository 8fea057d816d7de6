package migrate

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// acquire takes or renews the table's migration lease: it succeeds when the
// lease is free, expired, or already this migrator's.
func (mg *Migrator) acquire(ctx context.Context) error {
	now := mg.opts.Clock()
	item := leaseKey(mg.opts.Schema)
	item[attrHolder] = strAV(mg.opts.Holder)
	item[attrUntil] = numAV(now.Add(mg.opts.LeaseTTL).UnixMilli())
	item["migration"] = strAV(mg.m.Name)
	cond := expression.AttributeNotExists(expression.Name(mg.opts.Schema.PartitionKey)).
		Or(expression.Name(attrHolder).Equal(expression.Value(mg.opts.Holder))).
		Or(expression.Name(attrUntil).LessThan(expression.Value(now.UnixMilli())))
	e, err := expression.NewBuilder().WithCondition(cond).Build()
	if err != nil {
		return err
	}
	// A retry after a lost response finds the lease this migrator's.
	err = mg.call(ctx, func(ctx context.Context) error {
		_, err := mg.client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(mg.table), Item: item,
			ConditionExpression: e.Condition(), ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld})
		return err
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return &LeaseHeldError{Holder: getS(ccf.Item, attrHolder), Until: time.UnixMilli(getN(ccf.Item, attrUntil))}
	}
	if err != nil {
		return fmt.Errorf("migrate: take the lease: %w", err)
	}
	return nil
}

func (mg *Migrator) release(ctx context.Context) error {
	e, err := expression.NewBuilder().WithCondition(expression.Name(attrHolder).Equal(expression.Value(mg.opts.Holder))).Build()
	if err != nil {
		return err
	}
	err = mg.call(ctx, func(ctx context.Context) error {
		_, err := mg.client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(mg.table), Key: leaseKey(mg.opts.Schema),
			ConditionExpression: e.Condition(), ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values()})
		return err
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return nil // someone took it over after it expired; nothing of ours to remove
	}
	return err
}

// withLease runs fn holding the lease, renewing it every third of its TTL;
// fn's context ends if a renewal fails.
func (mg *Migrator) withLease(ctx context.Context, fn func(context.Context) error) error {
	if err := mg.acquire(ctx); err != nil {
		return err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(mg.opts.LeaseTTL / 3)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if err := mg.acquire(ctx); err != nil {
					cancel(fmt.Errorf("migrate: renew the lease: %w", err))
					return
				}
			}
		}
	}()
	err := fn(ctx)
	close(done)
	if cause := context.Cause(ctx); err != nil && cause != nil && !errors.Is(cause, context.Canceled) {
		err = fmt.Errorf("%w (%v)", err, cause)
	}
	cancel(nil)
	if rerr := mg.release(context.WithoutCancel(ctx)); err == nil {
		err = rerr
	}
	return err
}
