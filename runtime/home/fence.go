package home

import (
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/txn"
)

// Fence adds to items, under FenceItem, a ConditionCheck on the cell's
// ownership item: home = l.Region AND epoch = l.Epoch. It is one more
// item in the transaction, so the check and the writes commit together
// or not at all, in the Region where the transaction runs. Items
// replicate unchanged, so the check cannot tell Regions apart by itself:
// the transaction must be sent with a client of l.Region, which is what
// holding a lease means (Leases grants a Region's writers leases naming
// that Region only).
func Fence(items *txn.Items, table string, l Lease) error {
	return fenceAs(items, FenceItem, table, l)
}

// fenceAs adds the fence of l under name.
func fenceAs(items *txn.Items, name, table string, l Lease) error {
	cond, err := expression.NewBuilder().WithCondition(
		expression.Name(attrHome).Equal(expression.Value(l.Region)).
			And(expression.Name(attrEpoch).Equal(expression.Value(l.Epoch)))).Build()
	if err != nil {
		return err
	}
	items.Add(name, types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
		TableName:                           aws.String(table),
		Key:                                 OwnerKey(l.Cell),
		ConditionExpression:                 cond.Condition(),
		ExpressionAttributeNames:            cond.Names(),
		ExpressionAttributeValues:           cond.Values(),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}})
	return items.Err()
}

// FenceError reads err, the error of a transaction that holds a Fence,
// as a *NotOwnerError when the fence's condition failed, and returns err
// unchanged otherwise.
func FenceError(err error, items *txn.Items, l Lease) error {
	c, ok := txn.Cancelled(err, items)
	if !ok || !c.Failed(FenceItem) {
		return err
	}
	return &NotOwnerError{Cell: l.Cell, Region: l.Region, Epoch: l.Epoch, Owner: ownershipOf(l.Cell, c.Item(FenceItem)), Cancelled: true}
}

func ownershipOf(cell string, it map[string]types.AttributeValue) Ownership {
	o := Ownership{Cell: cell}
	if s, ok := it[attrHome].(*types.AttributeValueMemberS); ok {
		o.Region = s.Value
	}
	if n, ok := it[attrEpoch].(*types.AttributeValueMemberN); ok {
		o.Epoch, _ = strconv.ParseInt(n.Value, 10, 64)
	}
	if ms := numberOf(it[attrClaimedAt]); ms > 0 && o.Region != noRegion {
		o.ClaimedAt = time.UnixMilli(ms).UTC()
	}
	return o
}
