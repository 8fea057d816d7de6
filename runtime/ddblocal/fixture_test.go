package ddblocal

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The engine's own tests use one single-table design: string keys PK and
// SK, an overloaded index GSI1, two sparse indexes (Unprocessed projects a
// few attributes, Featured all) and TTL on expiresAt. It is a fixture of
// these tests, not oncetable's schema (runtime/schema owns that), so the
// engine imports nothing of the application.

// FixtureTableInput is the fixture table's CreateTable request; the
// package's external tests share it.
func FixtureTableInput(name string) *dynamodb.CreateTableInput {
	str := func(n string) types.AttributeDefinition {
		return types.AttributeDefinition{AttributeName: aws.String(n), AttributeType: types.ScalarAttributeTypeS}
	}
	keys := func(h, r string) []types.KeySchemaElement {
		return []types.KeySchemaElement{
			{AttributeName: aws.String(h), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String(r), KeyType: types.KeyTypeRange},
		}
	}
	all := &types.Projection{ProjectionType: types.ProjectionTypeAll}
	include := &types.Projection{ProjectionType: types.ProjectionTypeInclude,
		NonKeyAttributes: []string{"EntityType", "paymentId", "orderId", "userId", "amount", "currency", "status", "createdAt"}}
	return &dynamodb.CreateTableInput{
		TableName: aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{str("PK"), str("SK"), str("GSI1PK"), str("GSI1SK"),
			str("UnprocessedPK"), str("UnprocessedSK"), str("FeaturedPK"), str("FeaturedSK")},
		KeySchema: keys("PK", "SK"),
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
			{IndexName: aws.String("GSI1"), KeySchema: keys("GSI1PK", "GSI1SK"), Projection: all},
			{IndexName: aws.String("Unprocessed"), KeySchema: keys("UnprocessedPK", "UnprocessedSK"), Projection: include},
			{IndexName: aws.String("Featured"), KeySchema: keys("FeaturedPK", "FeaturedSK"), Projection: all},
		},
		BillingMode: types.BillingModePayPerRequest,
	}
}

// CreateFixtureTable creates the fixture table with TTL on expiresAt.
func CreateFixtureTable(ctx context.Context, db *dynamodb.Client, name string) error {
	if _, err := db.CreateTable(ctx, FixtureTableInput(name)); err != nil {
		return fmt.Errorf("create table %s: %w", name, err)
	}
	_, err := db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(name),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("expiresAt"), Enabled: aws.Bool(true)}})
	if err != nil {
		return fmt.Errorf("enable TTL on %s: %w", name, err)
	}
	return nil
}
