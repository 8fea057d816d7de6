package batch_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/batch"
	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/internal/dbtest"
	"github.com/oncetable/oncetable/runtime/retry"
	"github.com/oncetable/oncetable/runtime/schema/provision"
)

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

func key(i int) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"PK": s(fmt.Sprintf("PROD#p%03d", i)), "SK": s(fmt.Sprintf("PROD#p%03d", i))}
}

var fast = retry.Policy{MaxAttempts: 20, Base: time.Millisecond, Cap: 5 * time.Millisecond}

// Chunks of 25 and 100, and every unprocessed item resent: nothing is lost
// even when the engine returns a third of the items unprocessed.
func TestWriteAndGetWithUnprocessed(t *testing.T) {
	for _, rate := range []float64{0, 0.33} {
		t.Run(fmt.Sprintf("unprocessed %.2f", rate), func(t *testing.T) {
			env := dbtest.New(t)
			if rate > 0 {
				if env.Engine == nil {
					t.Skip("fault injection needs the embedded engine")
				}
				env.Engine.SetFaults(env.Table, ddblocal.Faults{Seed: 3, UnprocessedRate: rate})
			}
			const n = 260
			var writes []types.WriteRequest
			var keys []map[string]types.AttributeValue
			for i := range n {
				item := key(i)
				item["EntityType"] = s("Product")
				writes = append(writes, types.WriteRequest{PutRequest: &types.PutRequest{Item: item}})
				keys = append(keys, key(i))
			}
			ctx := context.Background()
			if err := batch.Write(ctx, env.Client, env.Table, writes, batch.Options{Backoff: fast}); err != nil {
				t.Fatal(err)
			}
			if got := env.Requests.Count("BatchWriteItem"); rate == 0 && got != 11 {
				t.Errorf("BatchWriteItem requests = %d, want 11 chunks of <= 25", got)
			}
			items, err := batch.Get(ctx, env.Client, env.Table, keys, batch.Options{Backoff: fast, ConsistentRead: true})
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			for _, it := range items {
				seen[it["PK"].(*types.AttributeValueMemberS).Value] = true
			}
			if len(items) != n || len(seen) != n {
				t.Errorf("got %d items (%d distinct), want %d", len(items), len(seen), n)
			}
			if got := env.Requests.Count("BatchGetItem"); rate == 0 && got != 3 {
				t.Errorf("BatchGetItem requests = %d, want 3 chunks of <= 100", got)
			}
			if rate > 0 && env.Engine.TableFaultCounts(env.Table).Unprocessed == 0 {
				t.Error("the engine returned nothing unprocessed; the retry path was not exercised")
			}
		})
	}
}

// stuck always returns every key unprocessed.
type stuck struct{ calls int }

func (s *stuck) BatchGetItem(_ context.Context, in *dynamodb.BatchGetItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	s.calls++
	return &dynamodb.BatchGetItemOutput{UnprocessedKeys: in.RequestItems}, nil
}

func TestGetGivesUpWithIncompleteError(t *testing.T) {
	db := &stuck{}
	_, err := batch.Get(context.Background(), db, "t", []map[string]types.AttributeValue{key(1), key(2)},
		batch.Options{Backoff: retry.Policy{MaxAttempts: 3, Base: time.Microsecond, Cap: time.Microsecond}})
	var ie *batch.IncompleteError
	if !errors.As(err, &ie) || ie.Remaining != 2 || db.calls != 3 || !errors.Is(err, batch.ErrIncomplete) {
		t.Errorf("err = %v, calls = %d; want IncompleteError{2} after 3 calls", err, db.calls)
	}
}

func ExampleWrite() {
	eng := ddblocal.New()
	defer eng.Close()
	client := eng.Client()
	ctx := context.Background()
	if err := provision.EnsureTable(ctx, client, "example"); err != nil {
		panic(err)
	}
	var writes []types.WriteRequest
	for i := range 60 {
		writes = append(writes, types.WriteRequest{PutRequest: &types.PutRequest{Item: key(i)}})
	}
	err := batch.Write(ctx, client, "example", writes, batch.Options{})
	out, _ := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("example"), Key: key(59)})
	fmt.Println(err, out.Item["PK"].(*types.AttributeValueMemberS).Value)
	// Output: <nil> PROD#p059
}
