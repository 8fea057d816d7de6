package migrate

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/retry"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/txn"
)

// Internal items live in partitions starting with this prefix; sweeps skip them.
const internalPrefix = "MIGRATION#"

// Attribute names of the META item.
const (
	attrPhase    = "phase"
	attrEpoch    = "epoch"
	attrEntered  = "enteredAt"
	attrHolder   = "holder"
	attrVerified = "verifiedEpoch"
	attrUntil    = "until"
	attrPending  = "pending"
)

func strAV(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }
func numAV(n int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

func metaKey(s schema.Schema, name string) Item {
	return Item{s.PartitionKey: strAV(internalPrefix + name), s.SortKey: strAV("META")}
}

func leaseKey(s schema.Schema) Item {
	return Item{s.PartitionKey: strAV(internalPrefix + "LEASE"), s.SortKey: strAV("LEASE")}
}

func getS(it Item, k string) string {
	if v, ok := it[k].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

func getN(it Item, k string) int64 {
	if v, ok := it[k].(*types.AttributeValueMemberN); ok {
		n, _ := strconv.ParseInt(v.Value, 10, 64)
		return n
	}
	return 0
}

// readState reads a migration's META item with a strongly consistent
// read. A missing item is phase None at epoch 0.
func readState(ctx context.Context, c FenceAPI, table string, s schema.Schema, name string) (State, error) {
	out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: metaKey(s, name), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return State{}, fmt.Errorf("migrate: read phase of %s: %w", name, err)
	}
	st := State{Migration: name, Phase: None}
	if out.Item == nil {
		return st, nil
	}
	p, err := ParsePhase(getS(out.Item, attrPhase))
	if err != nil {
		return State{}, fmt.Errorf("migrate: META item of %s: %w", name, err)
	}
	st.Phase, st.Epoch, st.Holder, st.VerifiedEpoch = p, getN(out.Item, attrEpoch), getS(out.Item, attrHolder), getN(out.Item, attrVerified)
	st.Pending = getS(out.Item, attrPending)
	st.Entered, _ = time.Parse(time.RFC3339Nano, getS(out.Item, attrEntered))
	return st, nil
}

// epochCondition holds when the META item is still at epoch e.
func epochCondition(e int64) expression.ConditionBuilder {
	if e == 0 {
		return expression.AttributeNotExists(expression.Name(attrEpoch))
	}
	return expression.Name(attrEpoch).Equal(expression.Value(e))
}

// transition moves the META item from st to phase to, in one transaction
// with a check that this migrator still holds the lease. pending names the
// rollback sweep the new phase still owes ("" for none).
func (mg *Migrator) transition(ctx context.Context, st State, to Phase, verified int64, pending string) (State, error) {
	now := mg.opts.Clock().UTC()
	upd := expression.Set(expression.Name(attrPhase), expression.Value(string(to))).
		Set(expression.Name(attrEpoch), expression.Value(st.Epoch+1)).
		Set(expression.Name(attrEntered), expression.Value(now.Format(time.RFC3339Nano))).
		Set(expression.Name(attrHolder), expression.Value(mg.opts.Holder)).
		Set(expression.Name(attrVerified), expression.Value(verified)).
		Set(expression.Name("from"), expression.Value(mg.m.From)).
		Set(expression.Name("to"), expression.Value(mg.m.To)).
		Set(expression.Name(attrPending), expression.Value(pending))
	if err := mg.updateMeta(ctx, st, upd, "move to "+string(to)); err != nil {
		return State{}, err
	}
	return State{Migration: mg.m.Name, Phase: to, Epoch: st.Epoch + 1, Entered: now, Holder: mg.opts.Holder, VerifiedEpoch: verified, Pending: pending}, nil
}

// markVerified records the epoch in which verify last passed (0 after a
// failure). The epoch stays, so writers are not fenced by it.
func (mg *Migrator) markVerified(ctx context.Context, st State, verified int64) (State, error) {
	upd := expression.Set(expression.Name(attrVerified), expression.Value(verified))
	if err := mg.updateMeta(ctx, st, upd, "record verify"); err != nil {
		return State{}, err
	}
	st.VerifiedEpoch = verified
	return st, nil
}

// updateMeta applies upd to the META item if it is still at st's epoch and
// this migrator holds the lease.
func (mg *Migrator) updateMeta(ctx context.Context, st State, upd expression.UpdateBuilder, what string) error {
	metaExpr, err := expression.NewBuilder().WithUpdate(upd).WithCondition(epochCondition(st.Epoch)).Build()
	if err != nil {
		return err
	}
	leaseExpr, err := expression.NewBuilder().WithCondition(expression.Name(attrHolder).Equal(expression.Value(mg.opts.Holder))).Build()
	if err != nil {
		return err
	}
	var tx txn.Items
	tx.Add("lease", types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: aws.String(mg.table), Key: leaseKey(mg.opts.Schema),
		ConditionExpression: leaseExpr.Condition(), ExpressionAttributeNames: leaseExpr.Names(), ExpressionAttributeValues: leaseExpr.Values()}})
	tx.Add("meta", types.TransactWriteItem{Update: &types.Update{TableName: aws.String(mg.table), Key: metaKey(mg.opts.Schema, mg.m.Name),
		UpdateExpression: metaExpr.Update(), ConditionExpression: metaExpr.Condition(),
		ExpressionAttributeNames: metaExpr.Names(), ExpressionAttributeValues: metaExpr.Values()}})
	// Throttling, conflicts and lost responses are retried. An attempt
	// whose outcome is unknown (a 5xx, a reset) may have committed; the
	// retry then finds the epoch moved, by this migrator since it holds the
	// lease, and committed tells.
	ambiguous := false
	err = mg.call(ctx, func(ctx context.Context) error {
		_, err := mg.client.TransactWriteItems(ctx, tx.Input())
		if k, ok := retry.Classify(err); ok && k == retry.ServerFail {
			ambiguous = true
		}
		return err
	})
	if c, ok := txn.Cancelled(err, &tx); ok {
		switch {
		case c.Failed("lease"):
			return fmt.Errorf("migrate: %s lost the lease before it could %s of %s: %w", mg.opts.Holder, what, mg.m.Name, ErrLeaseHeld)
		case c.Failed("meta") && ambiguous && mg.committed(ctx, st):
			return nil
		case c.Failed("meta"):
			return fmt.Errorf("%w: %s left epoch %d before %s", ErrConcurrentChange, mg.m.Name, st.Epoch, what)
		}
	}
	if err != nil {
		return fmt.Errorf("migrate: %s of %s: %w", what, mg.m.Name, err)
	}
	return nil
}

// committed reports whether the META item is one epoch past st by this
// migrator: a transition whose response was lost.
func (mg *Migrator) committed(ctx context.Context, st State) bool {
	cur, err := mg.Status(ctx)
	return err == nil && cur.Epoch == st.Epoch+1 && cur.Holder == mg.opts.Holder
}
