package totals

import (
	"context"
	"path"
	"slices"
	"sync"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/platform"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/schema/provision"
	"github.com/oncetable/oncetable/runtime/store"
	"github.com/oncetable/oncetable/runtime/streampoll"
	"github.com/oncetable/oncetable/test/population"
)

// recordingDB records the IAM action and the partition key of every item
// of the totaller's transactions.
type recordingDB struct {
	*dynamodb.Client
	mu      sync.Mutex
	actions map[string]bool
	written map[string]bool
}

func (r *recordingDB) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	r.mu.Lock()
	for _, it := range in.TransactItems {
		action, key := "", map[string]types.AttributeValue(nil)
		switch {
		case it.Update != nil:
			action, key = ActionUpdateItem, it.Update.Key
		case it.Put != nil:
			action, key = "dynamodb:PutItem", it.Put.Item
		case it.Delete != nil:
			action, key = "dynamodb:DeleteItem", it.Delete.Key
		case it.ConditionCheck != nil:
			action, key = "dynamodb:ConditionCheckItem", it.ConditionCheck.Key
		}
		r.actions[action] = true
		pk, _ := key[schema.Default().PartitionKey].(*types.AttributeValueMemberS)
		if pk == nil {
			r.written["<no string PK>"] = true
		} else {
			r.written[pk.Value] = true
		}
	}
	r.mu.Unlock()
	return r.Client.TransactWriteItems(ctx, in, o...)
}

// admitted is what the mapping's filter lets through.
func admitted(r events.DynamoDBEventRecord) bool {
	et := r.Change.NewImage[schema.EntityType]
	return r.EventName == Filter.EventName && et.DataType() == events.DataTypeString && et.String() == Filter.EntityType
}

// TestFunctionAccessMatchesRuntime drives the totaller from the engine's
// stream of a loaded population (credits, orders, settles) through the
// mapping's filter, as Lambda does, and checks that every ledger entry was
// totalled (the filter drops none the totaller needs), that every action
// called is granted and every grant used, and that every write's partition
// matches WritePartitions as IAM's StringLike would.
func TestFunctionAccessMatchesRuntime(t *testing.T) {
	engine := ddblocal.New()
	defer engine.Close()
	ctx := context.Background()
	const table = "oncetable-totals-access"
	db := engine.Client()
	if err := provision.EnsureTable(ctx, db, table); err != nil {
		t.Fatal(err)
	}
	out, err := db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(table),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}})
	if err != nil {
		t.Fatal(err)
	}
	pop := population.Generate(population.Config{Users: 10, Merchants: 2, ProductsPerMerchant: 2, Orders: 20, Seed: 3})
	st := store.New(db, func(o *store.Options) { o.Table = table })
	if err := pop.Load(ctx, st, population.LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	rec := &recordingDB{Client: db, actions: map[string]bool{}, written: map[string]bool{}}
	tot := platform.New(rec, func(o *platform.Options) { o.Table = table })
	var seen, passed int
	handle := func(ctx context.Context, batch events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
		var in events.DynamoDBEvent
		for _, r := range batch.Records {
			seen++
			if admitted(r) {
				in.Records = append(in.Records, r)
			}
		}
		passed += len(in.Records)
		if len(in.Records) == 0 {
			return events.DynamoDBEventResponse{}, nil
		}
		return tot.Handle(ctx, in)
	}
	poller := streampoll.New(engine.StreamsClient(), aws.ToString(out.TableDescription.LatestStreamArn), handle,
		func(o *streampoll.Options) { o.BatchSize = DefaultBatchSize })
	for range 1000 {
		n, err := poller.Poll(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
	}
	entries, untotalled := 0, 0
	scan := &dynamodb.ScanInput{TableName: aws.String(table)}
	for {
		page, err := db.Scan(ctx, scan)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			if et, _ := it[schema.EntityType].(*types.AttributeValueMemberS); et != nil && et.Value == store.TypeLedgerEntry {
				entries++
				if _, ok := it[store.TotalledAttribute]; !ok {
					untotalled++
				}
			}
		}
		if len(page.LastEvaluatedKey) == 0 {
			break
		}
		scan.ExclusiveStartKey = page.LastEvaluatedKey
	}
	if entries == 0 || untotalled != 0 || passed != entries || seen <= passed {
		t.Fatalf("%d stream records, %d through the filter; %d ledger entries, %d not totalled; want every entry and nothing else through, all totalled",
			seen, passed, entries, untotalled)
	}
	t.Logf("%d stream records, %d ledger entries through the filter, all totalled", seen, passed)
	acc := FunctionAccess()
	for a := range rec.actions {
		if !slices.Contains(acc.WriteActions, a) {
			t.Errorf("the totaller calls %s, which FunctionAccess does not grant", a)
		}
	}
	for _, a := range acc.WriteActions {
		if !rec.actions[a] {
			t.Errorf("FunctionAccess grants %s, which the totaller never called", a)
		}
	}
	var users, totals bool
	for pk := range rec.written {
		i := slices.IndexFunc(acc.WritePartitions, func(pattern string) bool { return like(pattern, pk) })
		if i < 0 {
			t.Errorf("a write to partition %q, outside WritePartitions %v", pk, acc.WritePartitions)
		}
		users, totals = users || i == 0, totals || i == 1
	}
	if !users || !totals {
		t.Errorf("writes to partitions %v, want users' ledger entries and platform totals", rec.written)
	}
}

// like is IAM's StringLike for patterns whose only wildcard is *.
func like(pattern, s string) bool {
	ok, err := path.Match(pattern, s)
	return err == nil && ok
}
