package home

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/schema"
)

// LateWriteType is the entity type of a late write's quarantine item.
const LateWriteType = "LateWrite"

// latePrefix starts a quarantine item's sort key: "LATE#<entry's sort key>".
const latePrefix = "LATE#"

// LateWrite is a ledger entry that an old home committed at an epoch and
// that reached a Region after that Region claimed a later epoch of the
// cell: a money write made outside the owner at that epoch as seen where
// it landed. Its quarantine item, in the entry's partition beside it,
// keeps it reported until an operator settles it by hand and deletes the
// item (docs/runbook.md).
type LateWrite struct {
	Cell  string
	Entry TrailMove
	// Writer and Epoch are the old home and the epoch it wrote under.
	Writer string
	Epoch  int64
	// Region claimed Claimed before the entry reached it, at DetectedAt.
	Region     string
	Claimed    int64
	WrittenAt  time.Time
	DetectedAt time.Time
}

// Attribute names of a quarantine item.
const (
	attrEntrySK    = "entrySk"
	attrRegion     = "region"
	attrClaimed    = "claimedEpoch"
	attrDetectedAt = "detectedAt"
)

// Quarantine puts w's quarantine item in table through db, once: a
// redelivered stream record finds it there and writes nothing. It
// reports whether this call wrote it.
func Quarantine(ctx context.Context, db DB, table string, w LateWrite) (bool, error) {
	cond, err := expression.NewBuilder().WithCondition(expression.AttributeNotExists(expression.Name(schema.PartitionKey))).Build()
	if err != nil {
		return false, err
	}
	item := map[string]types.AttributeValue{
		schema.PartitionKey: &types.AttributeValueMemberS{Value: w.Entry.PK},
		schema.SortKey:      &types.AttributeValueMemberS{Value: latePrefix + w.Entry.SK},
		schema.EntityType:   &types.AttributeValueMemberS{Value: LateWriteType},
		attrEntrySK:         &types.AttributeValueMemberS{Value: w.Entry.SK},
		attrKind:            &types.AttributeValueMemberS{Value: w.Entry.Kind},
		attrAmount:          &types.AttributeValueMemberN{Value: strconv.FormatInt(w.Entry.Amount, 10)},
		attrCurrency:        &types.AttributeValueMemberS{Value: w.Entry.Currency},
		"cell":              &types.AttributeValueMemberS{Value: w.Cell},
		attrWriter:          &types.AttributeValueMemberS{Value: w.Writer},
		attrEpoch:           &types.AttributeValueMemberN{Value: strconv.FormatInt(w.Epoch, 10)},
		attrRegion:          &types.AttributeValueMemberS{Value: w.Region},
		attrClaimed:         &types.AttributeValueMemberN{Value: strconv.FormatInt(w.Claimed, 10)},
		attrWrittenAt:       &types.AttributeValueMemberN{Value: strconv.FormatInt(w.WrittenAt.UnixMilli(), 10)},
		attrDetectedAt:      &types.AttributeValueMemberN{Value: strconv.FormatInt(w.DetectedAt.UnixMilli(), 10)},
	}
	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item,
		ConditionExpression: cond.Condition(), ExpressionAttributeNames: cond.Names(), ExpressionAttributeValues: cond.Values()})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return false, nil
	}
	return err == nil, err
}

// ReadLateWrite reads a quarantine item; ok is false for any other item.
func ReadLateWrite(it map[string]types.AttributeValue) (LateWrite, bool) {
	if stringOf(it[schema.EntityType]) != LateWriteType {
		return LateWrite{}, false
	}
	return LateWrite{
		Cell: stringOf(it["cell"]),
		Entry: TrailMove{PK: stringOf(it[schema.PartitionKey]), SK: stringOf(it[attrEntrySK]), Kind: stringOf(it[attrKind]),
			Amount: numberOf(it[attrAmount]), Currency: stringOf(it[attrCurrency])},
		Writer: stringOf(it[attrWriter]), Epoch: numberOf(it[attrEpoch]),
		Region: stringOf(it[attrRegion]), Claimed: numberOf(it[attrClaimed]),
		WrittenAt:  time.UnixMilli(numberOf(it[attrWrittenAt])).UTC(),
		DetectedAt: time.UnixMilli(numberOf(it[attrDetectedAt])).UTC(),
	}, true
}
