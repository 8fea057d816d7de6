package ddblocal

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestSweeperStartsLazily checks that the TTL sweeper starts only once a
// table enables TTL, and at start-up for a stored table that has it.
func TestSweeperStartsLazily(t *testing.T) {
	dir := t.TempDir()
	e, err := Open(func(o *Options) { o.Dir = dir })
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	db := e.Client()
	if _, err := db.CreateTable(ctx, FixtureTableInput("ttl-table")); err != nil {
		t.Fatal(err)
	}
	if e.sweeperRunning() {
		t.Fatal("sweeper started before any table enabled TTL")
	}
	if _, err := db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("ttl-table"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	if !e.sweeperRunning() {
		t.Fatal("sweeper not started by UpdateTimeToLive")
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e2, err := Open(func(o *Options) { o.Dir = dir })
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	if !e2.sweeperRunning() {
		t.Fatal("sweeper not started for a stored table with TTL")
	}
	e2.startSweeper() // a second start is a no-op
}
