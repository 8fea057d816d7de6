package ddblocal_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
)

func benchTable(b *testing.B) (*ddblocal.Engine, *dynamodb.Client) {
	b.Helper()
	eng := ddblocal.New(func(o *ddblocal.Options) { o.TTLSweepInterval = -1 })
	b.Cleanup(func() { _ = eng.Close() })
	db := eng.Client()
	if err := ddblocal.CreateFixtureTable(context.Background(), db, "bench"); err != nil {
		b.Fatal(err)
	}
	return eng, db
}

func BenchmarkPutItem(b *testing.B) {
	_, db := benchTable(b)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("bench"), Item: map[string]av{
			"PK": s("USER#" + strconv.Itoa(i)), "SK": s("PROFILE"), "name": s("someone"), "balance": n("100"),
			"GSI1PK": s("EMAIL#x" + strconv.Itoa(i)), "GSI1SK": s("USER"),
		}})
		if err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHotConditionalUpdate(b *testing.B) {
	_, db := benchTable(b)
	ctx := context.Background()
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("bench"), Item: map[string]av{"PK": s("HOT"), "SK": s("X"), "n": n("0")}}); err != nil {
		b.Fatal(err)
	}
	b.SetParallelism(8)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("bench"), Key: key("HOT", "X"),
				UpdateExpression: aws.String("SET n = n + :one"), ConditionExpression: aws.String("n >= :zero"),
				ExpressionAttributeValues: map[string]av{":one": n("1"), ":zero": n("0")}})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkTransactWrite4(b *testing.B) {
	_, db := benchTable(b)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		var items []types.TransactWriteItem
		for j := range 4 {
			items = append(items, types.TransactWriteItem{Update: &types.Update{TableName: aws.String("bench"),
				Key: key("ACC#"+strconv.Itoa((i*4+j)%1000), "X"), UpdateExpression: aws.String("ADD n :one"),
				ExpressionAttributeValues: map[string]av{":one": n("1")}}})
		}
		if _, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkQuery100(b *testing.B) {
	_, db := benchTable(b)
	ctx := context.Background()
	for i := range 100 {
		if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("bench"), Item: map[string]av{
			"PK": s("ORDERS"), "SK": s("O#" + strconv.Itoa(i)), "amount": n("12.5"), "status": s("PAID")}}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		out, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("bench"), KeyConditionExpression: aws.String("PK = :p"),
			ExpressionAttributeValues: map[string]av{":p": s("ORDERS")}})
		if err != nil || out.Count != 100 {
			b.Fatal(err)
		}
	}
}

func BenchmarkStartup(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		eng := ddblocal.New(func(o *ddblocal.Options) { o.TTLSweepInterval = -1 })
		_ = eng.Close()
	}
}
