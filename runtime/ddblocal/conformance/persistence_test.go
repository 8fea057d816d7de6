package conformance_test

import (
	"os"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
)

// TestPersistenceAcrossRestart checks the engine's optional data directory:
// tables, items, indexes and settings written before Close are there after
// reopening. It is an engine feature, not DynamoDB behaviour, so it runs
// only against the embedded engine.
func TestPersistenceAcrossRestart(t *testing.T) {
	if os.Getenv("DYNAMODB_ENDPOINT") != "" {
		t.Skip("persistence is a feature of the embedded engine; DYNAMODB_ENDPOINT is set")
	}
	doc(t, "runtime/ddblocal Options.Dir", `Dir, when not empty, keeps tables in a bbolt file in this directory so that data survives a restart.`)
	dir := t.TempDir()
	open := func() *target {
		e, err := ddblocal.Open(func(o *ddblocal.Options) { o.Dir = dir })
		if err != nil {
			t.Fatalf("Open(%s): %v", dir, err)
		}
		return &target{name: "inproc", engine: e, client: e.Client(clientOptions)}
	}
	tg := open()
	table := tableName(t)
	in := tableInput(keyDef{"pk", types.ScalarAttributeTypeS}, nil)
	in.TableName = aws.String(table)
	in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS})
	in.GlobalSecondaryIndexes = []types.GlobalSecondaryIndex{{IndexName: aws.String("byG"), KeySchema: hashOnly("g"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}
	_, err := tg.client.CreateTable(ctx(t), in)
	noErr(t, err, "CreateTable")
	_, err = tg.client.UpdateTimeToLive(ctx(t), &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(table),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("expiresAt"), Enabled: aws.Bool(true)}})
	noErr(t, err, "UpdateTimeToLive")
	put(t, tg, table, item{"pk": s("a"), "g": s("x"), "n": n("12345678901234567890123456789012345678")})
	put(t, tg, table, item{"pk": s("b"), "g": s("x")})
	_, err = tg.client.DeleteItem(ctx(t), &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: item{"pk": s("b")}})
	noErr(t, err, "DeleteItem")
	noErr(t, tg.engine.Close(), "Close")

	tg = open()
	defer tg.engine.Close()
	wantItem(t, get(t, tg, table, item{"pk": s("a")}), item{"pk": s("a"), "g": s("x"), "n": n("12345678901234567890123456789012345678")})
	if it := get(t, tg, table, item{"pk": s("b")}); it != nil {
		t.Errorf("deleted item came back after restart: %s", show(it))
	}
	if got := queryIndex(t, tg, table, "byG", "g = :g", item{":g": s("x")}); len(got) != 1 {
		t.Errorf("index after restart holds %d items, want 1", len(got))
	}
	d, err := tg.client.DescribeTimeToLive(ctx(t), &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(table)})
	noErr(t, err, "DescribeTimeToLive")
	if d.TimeToLiveDescription == nil || d.TimeToLiveDescription.TimeToLiveStatus != types.TimeToLiveStatusEnabled {
		t.Errorf("TTL setting after restart = %+v, want ENABLED", d.TimeToLiveDescription)
	}
}
