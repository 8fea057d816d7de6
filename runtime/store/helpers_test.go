package store_test

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/oncetable/oncetable/runtime/internal/dbtest"
)

func putRaw(ctx context.Context, env *dbtest.Env, item any) error {
	av, err := attributevalue.MarshalMap(item)
	if err != nil {
		return err
	}
	_, err = env.Client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(env.Table), Item: av})
	return err
}
