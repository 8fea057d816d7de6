package conformance_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

const (
	pageQuotas     = "Service, account, and table quotas in Amazon DynamoDB (Developer Guide)"
	nestingMessage = "Nesting Levels have exceeded supported limits"
)

// deepMap wraps a string in wraps single-key maps: the attribute holding it
// nests wraps+1 levels, the attribute itself being level 1.
func deepMap(wraps int) types.AttributeValue {
	v := s("leaf")
	for range wraps {
		v = &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"n": v}}
	}
	return v
}

// TestNestingDepth: an item nests at most 32 levels, on every write path; a
// deeper one is refused and nothing is written.
func TestNestingDepth(t *testing.T) {
	doc(t, pageQuotas, "Nested attribute depth: DynamoDB supports nested attributes up to 32 levels deep; a deeper item is a ValidationException")
	each(t, func(t *testing.T, tg *target) {
		name := hashTable(t, tg)
		c := tg.client
		item := func(pk string, wraps int) map[string]types.AttributeValue {
			return map[string]types.AttributeValue{"pk": s(pk), "data": deepMap(wraps)}
		}
		_, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(name), Item: item("put-31", 31)})
		noErr(t, err, "PutItem of 32 levels")
		_, err = c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(name), Item: item("put-32", 32)})
		wantValidation(t, err, nestingMessage)

		_, err = c.BatchWriteItem(ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
			name: {{PutRequest: &types.PutRequest{Item: item("batch-32", 32)}}}}})
		wantValidation(t, err, nestingMessage)

		_, err = c.TransactWriteItems(ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: aws.String(name), Item: item("tx-32", 32)}}}})
		wantValidation(t, err, nestingMessage)

		// An update whose result nests too deeply.
		_, err = c.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: aws.String(name),
			Key: map[string]types.AttributeValue{"pk": s("put-31")}, UpdateExpression: aws.String("SET #d.#n = :deep"),
			ExpressionAttributeNames:  map[string]string{"#d": "data", "#n": "n"},
			ExpressionAttributeValues: map[string]types.AttributeValue{":deep": deepMap(31)}})
		wantValidation(t, err, nestingMessage)

		// In a transaction, the same update cancels with a ValidationError.
		_, err = c.TransactWriteItems(ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Update: &types.Update{TableName: aws.String(name), Key: map[string]types.AttributeValue{"pk": s("tx-upd")},
				UpdateExpression: aws.String("SET deep = :deep"), ExpressionAttributeValues: map[string]types.AttributeValue{":deep": deepMap(32)}}}}})
		var tce *types.TransactionCanceledException
		if !errors.As(err, &tce) || len(tce.CancellationReasons) != 1 || aws.ToString(tce.CancellationReasons[0].Code) != "ValidationError" ||
			!strings.Contains(aws.ToString(tce.CancellationReasons[0].Message), nestingMessage) {
			t.Errorf("transaction update of 33 levels: got %v, want a cancellation with one ValidationError reason %q", err, nestingMessage)
		}

		out, err := c.Scan(ctx(t), &dynamodb.ScanInput{TableName: aws.String(name), ConsistentRead: aws.Bool(true)})
		noErr(t, err, "Scan")
		if out.Count != 1 {
			t.Errorf("the table holds %d items, want only put-31: a refused write wrote", out.Count)
		}
	})
}

// TestKeyAttributeNameLength: a key attribute's name is 1 to 255
// characters, in CreateTable's AttributeDefinitions and KeySchema.
func TestKeyAttributeNameLength(t *testing.T) {
	doc(t, pageCreateTable, "AttributeDefinition.AttributeName and KeySchemaElement.AttributeName: Length Constraints: Minimum length of 1. Maximum length of 255 ("+pageQuotas+": partition and sort key names 1 to 255 characters)")
	each(t, func(t *testing.T, tg *target) {
		for _, tc := range []struct {
			length int
			ok     bool
		}{{255, true}, {256, false}} {
			key := strings.Repeat("k", tc.length)
			name := tableName(t)
			_, err := tg.client.CreateTable(ctx(t), &dynamodb.CreateTableInput{
				TableName:            aws.String(name),
				AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String(key), AttributeType: types.ScalarAttributeTypeS}},
				KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String(key), KeyType: types.KeyTypeHash}},
				BillingMode:          types.BillingModePayPerRequest,
			})
			if tc.ok {
				noErr(t, err, "CreateTable with a 255-character key name")
				_, err = tg.client.DeleteTable(ctx(t), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
				noErr(t, err, "DeleteTable")
				continue
			}
			wantValidation(t, err, "2 validation errors detected",
				"Value '"+key+"' at 'attributeDefinitions.1.member.attributeName' failed to satisfy constraint: Member must have length less than or equal to 255",
				"Value '"+key+"' at 'keySchema.1.member.attributeName' failed to satisfy constraint: Member must have length less than or equal to 255")
			_, err = tg.client.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
			wantErr(t, err, "ResourceNotFoundException")
		}
	})
}
