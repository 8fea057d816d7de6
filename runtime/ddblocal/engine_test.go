package ddblocal_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
)

type av = types.AttributeValue

func s(v string) av { return &types.AttributeValueMemberS{Value: v} }
func n(v string) av { return &types.AttributeValueMemberN{Value: v} }

func newTable(t *testing.T, opts ...func(*ddblocal.Options)) (*ddblocal.Engine, *dynamodb.Client) {
	t.Helper()
	eng := ddblocal.New(opts...)
	t.Cleanup(func() { _ = eng.Close() })
	db := eng.Client()
	if err := ddblocal.CreateFixtureTable(context.Background(), db, "tbl"); err != nil {
		t.Fatal(err)
	}
	return eng, db
}

func key(pk, sk string) map[string]av { return map[string]av{"PK": s(pk), "SK": s(sk)} }

func put(t *testing.T, db *dynamodb.Client, item map[string]av) {
	t.Helper()
	if _, err := db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("tbl"), Item: item}); err != nil {
		t.Fatal(err)
	}
}

func TestUpdateItemConditionalDecrement(t *testing.T) {
	_, db := newTable(t)
	ctx := context.Background()
	put(t, db, map[string]av{"PK": s("A"), "SK": s("B"), "bal": n("100")})
	tests := []struct {
		name    string
		amount  string
		wantErr bool
		want    string
	}{
		{"within balance", "30", false, "70"},
		{"exactly the rest", "70", false, "0"},
		{"overdraft", "1", true, "0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
				TableName:                           aws.String("tbl"),
				Key:                                 key("A", "B"),
				UpdateExpression:                    aws.String("SET bal = bal - :a"),
				ConditionExpression:                 aws.String("bal >= :a"),
				ExpressionAttributeValues:           map[string]av{":a": n(tc.amount)},
				ReturnValues:                        types.ReturnValueUpdatedNew,
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
			})
			var ccf *types.ConditionalCheckFailedException
			if tc.wantErr {
				if !errors.As(err, &ccf) {
					t.Fatalf("got %v, want ConditionalCheckFailedException", err)
				}
				if got := ccf.Item["bal"].(*types.AttributeValueMemberN).Value; got != tc.want {
					t.Fatalf("failure item bal = %s, want %s", got, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := out.Attributes["bal"].(*types.AttributeValueMemberN).Value; got != tc.want {
				t.Fatalf("bal = %s, want %s", got, tc.want)
			}
			if len(out.Attributes) != 1 {
				t.Fatalf("UPDATED_NEW returned %v, want only bal", out.Attributes)
			}
		})
	}
}

func TestConcurrentDecrementsNeverOverdraw(t *testing.T) {
	_, db := newTable(t)
	ctx := context.Background()
	put(t, db, map[string]av{"PK": s("A"), "SK": s("B"), "bal": n("50")})
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := 0
	for range 16 {
		wg.Go(func() {
			for range 5 {
				_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
					TableName: aws.String("tbl"), Key: key("A", "B"),
					UpdateExpression:          aws.String("SET bal = bal - :one"),
					ConditionExpression:       aws.String("bal >= :one"),
					ExpressionAttributeValues: map[string]av{":one": n("1")},
				})
				if err == nil {
					mu.Lock()
					ok++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("tbl"), Key: key("A", "B"), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Item["bal"].(*types.AttributeValueMemberN).Value; got != "0" || ok != 50 {
		t.Fatalf("bal = %s after %d successful decrements, want 0 after 50", got, ok)
	}
}

func TestQueryOrderAndPaging(t *testing.T) {
	_, db := newTable(t)
	ctx := context.Background()
	for i := range 25 {
		put(t, db, map[string]av{"PK": s("P"), "SK": s(fmt.Sprintf("S#%03d", i)), "GSI1PK": s("G"), "GSI1SK": s(fmt.Sprintf("%03d", 100-i))})
	}
	put(t, db, map[string]av{"PK": s("Q"), "SK": s("S#000")})
	tests := []struct {
		name    string
		index   *string
		cond    string
		vals    map[string]av
		forward bool
		first   string
		total   int
	}{
		{"table forward", nil, "PK = :p", map[string]av{":p": s("P")}, true, "S#000", 25},
		{"table backward", nil, "PK = :p", map[string]av{":p": s("P")}, false, "S#024", 25},
		{"begins_with", nil, "PK = :p AND begins_with(SK, :s)", map[string]av{":p": s("P"), ":s": s("S#01")}, true, "S#010", 10},
		{"between", nil, "PK = :p AND SK BETWEEN :a AND :b", map[string]av{":p": s("P"), ":a": s("S#005"), ":b": s("S#009")}, true, "S#005", 5},
		{"gsi", aws.String("GSI1"), "GSI1PK = :g", map[string]av{":g": s("G")}, true, "S#024", 25},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			var start map[string]av
			for {
				out, err := db.Query(ctx, &dynamodb.QueryInput{
					TableName: aws.String("tbl"), IndexName: tc.index,
					KeyConditionExpression:    aws.String(tc.cond),
					ExpressionAttributeValues: tc.vals,
					ScanIndexForward:          aws.Bool(tc.forward),
					Limit:                     aws.Int32(7),
					ExclusiveStartKey:         start,
				})
				if err != nil {
					t.Fatal(err)
				}
				for _, it := range out.Items {
					got = append(got, it["SK"].(*types.AttributeValueMemberS).Value)
				}
				if out.LastEvaluatedKey == nil {
					break
				}
				start = out.LastEvaluatedKey
			}
			if len(got) != tc.total || got[0] != tc.first {
				t.Fatalf("got %d items starting %v, want %d starting %s", len(got), got[:min(3, len(got))], tc.total, tc.first)
			}
		})
	}
}

func TestTransactWriteItemsCancellationReasons(t *testing.T) {
	_, db := newTable(t)
	ctx := context.Background()
	put(t, db, map[string]av{"PK": s("A"), "SK": s("1"), "bal": n("5")})
	_, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String("tbl"), Item: map[string]av{"PK": s("B"), "SK": s("1")}}},
		{Update: &types.Update{TableName: aws.String("tbl"), Key: key("A", "1"),
			UpdateExpression:                    aws.String("SET bal = bal - :x"),
			ConditionExpression:                 aws.String("bal >= :x"),
			ExpressionAttributeValues:           map[string]av{":x": n("10")},
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}},
	}})
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		t.Fatalf("got %v, want TransactionCanceledException", err)
	}
	if len(tce.CancellationReasons) != 2 || aws.ToString(tce.CancellationReasons[0].Code) != "None" ||
		aws.ToString(tce.CancellationReasons[1].Code) != "ConditionalCheckFailed" || tce.CancellationReasons[1].Item["bal"] == nil {
		t.Fatalf("reasons = %+v", tce.CancellationReasons)
	}
	out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("tbl"), Key: key("B", "1")})
	if err != nil || out.Item != nil {
		t.Fatalf("cancelled put was applied: %v %v", out.Item, err)
	}
}

// TestTransactWriteItemsSharedExpressions writes several items with the
// same update expression: each gets its own values (numbers as spelled,
// lists), names and condition, whether or not they repeat the previous
// item's.
func TestTransactWriteItemsSharedExpressions(t *testing.T) {
	_, db := newTable(t)
	ctx := context.Background()
	list := func(v string) av { return &types.AttributeValueMemberL{Value: []av{n(v)}} }
	tests := []struct {
		sk     string
		update string
		names  map[string]string
		vals   map[string]av
		want   av
	}{
		{"1", "SET v = :v", nil, map[string]av{":v": n("1")}, n("1")},
		{"2", "SET v = :v", nil, map[string]av{":v": n("1")}, n("1")},
		{"3", "SET v = :v", nil, map[string]av{":v": n("1.50")}, n("1.5")}, // numbers are stored normalized
		{"4", "SET v = :v", nil, map[string]av{":v": s("1")}, s("1")},
		{"5", "SET v = :v", nil, map[string]av{":v": list("2")}, list("2")},
		{"6", "SET v = :v", nil, map[string]av{":v": list("3")}, list("3")},
		{"7", "SET #a = :v", map[string]string{"#a": "v"}, map[string]av{":v": n("7")}, n("7")},
		{"8", "SET #a = :v", map[string]string{"#a": "w"}, map[string]av{":v": n("7")}, nil},
	}
	var items []types.TransactWriteItem
	for _, tc := range tests {
		put(t, db, map[string]av{"PK": s("S"), "SK": s(tc.sk)})
		items = append(items, types.TransactWriteItem{Update: &types.Update{TableName: aws.String("tbl"), Key: key("S", tc.sk),
			UpdateExpression: aws.String(tc.update), ConditionExpression: aws.String("attribute_exists(PK)"),
			ExpressionAttributeNames: tc.names, ExpressionAttributeValues: tc.vals}})
	}
	if _, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("tbl"), Key: key("S", tc.sk), ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatal(err)
		}
		if got := out.Item["v"]; !reflect.DeepEqual(got, tc.want) {
			t.Errorf("item %s: v = %#v, want %#v", tc.sk, got, tc.want)
		}
	}
}

func TestClientRequestTokenIdempotency(t *testing.T) {
	_, db := newTable(t)
	ctx := context.Background()
	put(t, db, map[string]av{"PK": s("A"), "SK": s("1"), "n": n("0")})
	in := func(by string) *dynamodb.TransactWriteItemsInput {
		return &dynamodb.TransactWriteItemsInput{
			ClientRequestToken: aws.String("tok-1"),
			TransactItems: []types.TransactWriteItem{{Update: &types.Update{TableName: aws.String("tbl"), Key: key("A", "1"),
				UpdateExpression: aws.String("ADD n :one"), ExpressionAttributeValues: map[string]av{":one": n(by)}}}},
		}
	}
	for range 3 {
		if _, err := db.TransactWriteItems(ctx, in("1")); err != nil {
			t.Fatal(err)
		}
	}
	_, err := db.TransactWriteItems(ctx, in("2"))
	var mismatch *types.IdempotentParameterMismatchException
	if !errors.As(err, &mismatch) {
		t.Fatalf("got %v, want IdempotentParameterMismatchException", err)
	}
	out, _ := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("tbl"), Key: key("A", "1")})
	if got := out.Item["n"].(*types.AttributeValueMemberN).Value; got != "1" {
		t.Fatalf("n = %s after three replays, want 1", got)
	}
}

func TestConcurrentTransfersKeepTheSum(t *testing.T) {
	_, db := newTable(t)
	ctx := context.Background()
	const accounts, start = 5, 100
	for i := range accounts {
		put(t, db, map[string]av{"PK": s(fmt.Sprint("ACC#", i)), "SK": s("B"), "bal": n(fmt.Sprint(start))})
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 20 {
				from, to := (g+i)%accounts, (g+2*i+1)%accounts
				if from == to {
					continue
				}
				_, _ = db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
					{Update: &types.Update{TableName: aws.String("tbl"), Key: key(fmt.Sprint("ACC#", from), "B"),
						UpdateExpression: aws.String("SET bal = bal - :x"), ConditionExpression: aws.String("bal >= :x"),
						ExpressionAttributeValues: map[string]av{":x": n("7")}}},
					{Update: &types.Update{TableName: aws.String("tbl"), Key: key(fmt.Sprint("ACC#", to), "B"),
						UpdateExpression: aws.String("SET bal = bal + :x"), ExpressionAttributeValues: map[string]av{":x": n("7")}}},
				}})
			}
		})
	}
	wg.Wait()
	out, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("tbl"), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	sum := 0
	for _, it := range out.Items {
		v, _ := strconv.Atoi(it["bal"].(*types.AttributeValueMemberN).Value)
		if v < 0 {
			t.Fatalf("negative balance %d", v)
		}
		sum += v
	}
	if sum != accounts*start {
		t.Fatalf("sum of balances %d, want %d", sum, accounts*start)
	}
}

// TestTableChangesUnderLoad runs writes and index queries while indexes are
// added and removed and TTL is switched, for the race detector.
func TestTableChangesUnderLoad(t *testing.T) {
	_, db := newTable(t)
	ctx := context.Background()
	put(t, db, map[string]av{"PK": s("seed"), "SK": s("0"), "color": s("red")})
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for g := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				put(t, db, map[string]av{"PK": s(fmt.Sprint("L", g)), "SK": s(strconv.Itoa(i % 20)), "GSI1PK": s("G"), "GSI1SK": s(strconv.Itoa(i)), "color": s("red")})
				_, _ = db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("tbl"), IndexName: aws.String("GSI1"),
					KeyConditionExpression: aws.String("GSI1PK = :g"), ExpressionAttributeValues: map[string]av{":g": s("G")}, Limit: aws.Int32(5)})
			}
		})
	}
	for i := range 5 {
		_, err := db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("tbl"),
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("color"), AttributeType: types.ScalarAttributeTypeS}},
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
				IndexName: aws.String(fmt.Sprint("Color", i)), KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("color"), KeyType: types.KeyTypeHash}},
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}}}})
		if err != nil {
			t.Fatal(err)
		}
		out, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("tbl"), IndexName: aws.String(fmt.Sprint("Color", i)),
			KeyConditionExpression: aws.String("color = :c"), ExpressionAttributeValues: map[string]av{":c": s("red")}, Select: types.SelectCount})
		if err != nil || out.Count == 0 {
			t.Fatalf("new index Color%d: count %d, %v", i, out.Count, err)
		}
		if _, err := db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("tbl"),
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String(fmt.Sprint("Color", i))}}}}); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
}
