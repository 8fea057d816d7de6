package reconciler

import (
	"context"
	"io"
	"log/slog"
	"path"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/reconcile"
	"github.com/oncetable/oncetable/runtime/schema/provision"
	"github.com/oncetable/oncetable/runtime/store"
	"github.com/oncetable/oncetable/test/population"
)

// recordingDB records the IAM action of every call, and the partition key
// of every write.
type recordingDB struct {
	*dynamodb.Client
	mu      sync.Mutex
	actions map[string]bool
	written map[string]bool
}

func (r *recordingDB) add(action string, key map[string]types.AttributeValue) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.actions[action] = true
	if key != nil {
		pk, _ := key["PK"].(*types.AttributeValueMemberS)
		if pk == nil {
			r.written["<no string PK>"] = true
			return
		}
		r.written[pk.Value] = true
	}
}

func (r *recordingDB) Scan(ctx context.Context, in *dynamodb.ScanInput, o ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	r.add(ActionScan, nil)
	return r.Client.Scan(ctx, in, o...)
}

func (r *recordingDB) DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, o ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	r.add("dynamodb:DescribeTable", nil)
	return r.Client.DescribeTable(ctx, in, o...)
}

func (r *recordingDB) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	action := ActionQuery
	if in.IndexName != nil {
		action += " on index " + *in.IndexName
	}
	r.add(action, nil)
	return r.Client.Query(ctx, in, o...)
}

func (r *recordingDB) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	r.add(ActionGetItem, nil)
	return r.Client.GetItem(ctx, in, o...)
}

func (r *recordingDB) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	r.add(ActionPutItem, in.Item)
	return r.Client.PutItem(ctx, in, o...)
}

func (r *recordingDB) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	r.add(ActionUpdateItem, in.Key)
	return r.Client.UpdateItem(ctx, in, o...)
}

// TestFunctionAccessMatchesRuntime runs two passes of the reconciliation,
// each spread over many invocations, the second over a corrupted balance
// (so violations are confirmed by consistent re-reads), and compares the
// calls with FunctionAccess: every action called is granted, every grant
// is used, and every write's partition matches WritePartitions as IAM's
// StringLike would.
func TestFunctionAccessMatchesRuntime(t *testing.T) {
	engine := ddblocal.New()
	defer engine.Close()
	ctx := context.Background()
	const table = "oncetable-reconcile-access"
	db := engine.Client()
	if err := provision.EnsureTable(ctx, db, table); err != nil {
		t.Fatal(err)
	}
	pop := population.Generate(population.Config{Users: 10, Merchants: 2, ProductsPerMerchant: 2, Orders: 20, Seed: 3})
	if err := pop.Load(ctx, store.New(db, func(o *store.Options) { o.Table = table }), population.LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	rec := &recordingDB{Client: db, actions: map[string]bool{}, written: map[string]bool{}}
	var clock sync.Mutex
	now := time.Now()
	r, err := reconcile.New(rec, func(o *reconcile.Options) {
		o.Table, o.Owner, o.Segments, o.MaxRCU, o.PageSize = table, "access", 2, -1, 5
		// A clock that ticks a millisecond a reading: each invocation's
		// budget ends after a few pages, so passes span invocations.
		o.Budget, o.Margin, o.ConfirmDelay = 4*time.Millisecond, time.Millisecond, time.Millisecond
		o.Clock = func() time.Time {
			clock.Lock()
			defer clock.Unlock()
			now = now.Add(time.Millisecond)
			return now
		}
		o.Log = slog.New(slog.NewJSONHandler(io.Discard, nil))
	})
	if err != nil {
		t.Fatal(err)
	}
	pass := func() *reconcile.Verdict {
		for range 1000 {
			out, err := r.Run(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if out.Verdict != nil {
				return out.Verdict
			}
		}
		t.Fatal("no pass finished in 1000 invocations")
		return nil
	}
	if v := pass(); v.Found != 0 {
		t.Fatalf("healthy table: %+v, want no violation", v)
	}
	_, err = db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table),
		Key:                       map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "USER#" + pop.Users[0]}, "SK": &types.AttributeValueMemberS{Value: "PROFILE"}},
		UpdateExpression:          aws.String("SET balance = balance + :one"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}}})
	if err != nil {
		t.Fatal(err)
	}
	if v := pass(); v.Confirmed != 1 {
		t.Fatalf("corrupted balance: %+v, want one confirmed violation", v)
	}

	acc := FunctionAccess()
	granted := append(slices.Clone(acc.ReadActions), acc.WriteActions...)
	var called []string
	for a := range rec.actions {
		called = append(called, a)
		if !slices.Contains(granted, a) {
			t.Errorf("the reconciliation calls %s, which FunctionAccess does not grant", a)
		}
	}
	sort.Strings(called)
	for _, a := range granted {
		if !rec.actions[a] {
			t.Errorf("FunctionAccess grants %s, which the reconciliation never called (called: %v)", a, called)
		}
	}
	if len(rec.written) < 2 {
		t.Errorf("writes to partitions %v, want the checkpoint's and a pass's chunks", rec.written)
	}
	for pk := range rec.written {
		if !slices.ContainsFunc(acc.WritePartitions, func(pattern string) bool { return like(pattern, pk) }) {
			t.Errorf("a write to partition %q, outside WritePartitions %v", pk, acc.WritePartitions)
		}
	}
}

// like is IAM's StringLike for patterns whose only wildcard is *.
func like(pattern, s string) bool {
	ok, err := path.Match(pattern, s)
	return err == nil && ok
}
