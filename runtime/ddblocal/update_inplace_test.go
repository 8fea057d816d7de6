package ddblocal_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
)

// TestUpdateItemWithoutOldItem covers UpdateItem when no ReturnValues needs
// the item as it was, so the engine may update the stored item's decoded
// copy in place: failed updates leave the item alone, capacity and table
// size count the old size, the old TTL expiry leaves the sweep order, and
// items in an index keep their index rows right.
func TestUpdateItemWithoutOldItem(t *testing.T) {
	clk := &clock{now: time.Unix(1_700_000_000, 0)}
	eng, db := newTable(t, func(o *ddblocal.Options) { o.Clock = clk.Now; o.TTLSweepInterval = -1 })
	ctx := context.Background()
	get := func(sk string) map[string]av {
		t.Helper()
		out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("tbl"), Key: key("A", sk), ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatal(err)
		}
		return out.Item
	}
	str := func(it map[string]av, name string) string {
		switch v := it[name].(type) {
		case *types.AttributeValueMemberS:
			return v.Value
		case *types.AttributeValueMemberN:
			return v.Value
		case nil:
			return "<absent>"
		}
		return "<other>"
	}
	update := func(sk, expr string, values map[string]av, rv types.ReturnValue) (*dynamodb.UpdateItemOutput, error) {
		return db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("tbl"), Key: key("A", sk),
			UpdateExpression: aws.String(expr), ExpressionAttributeValues: values, ReturnValues: rv,
			ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	}
	put(t, db, map[string]av{"PK": s("A"), "SK": s("1"), "a": s("x"), "n": n("1"), "m": &types.AttributeValueMemberM{Value: map[string]av{"k": s("v")}}})

	// A failed update after a SET that already changed the item.
	if _, err := update("1", "SET a = :b, m.k = :b ADD a :one", map[string]av{":b": s("y"), ":one": n("1")}, types.ReturnValueNone); apiCode(err) != "ValidationException" {
		t.Fatalf("ADD to a string: %v, want ValidationException", err)
	}
	if it := get("1"); str(it, "a") != "x" || str(it["m"].(*types.AttributeValueMemberM).Value, "k") != "v" {
		t.Fatalf("after a failed update: %v", it)
	}
	// The item as updated is returned; the stored item is the same.
	out, err := update("1", "SET n = n + :one, m.k = :b REMOVE a", map[string]av{":b": s("y"), ":one": n("1")}, types.ReturnValueAllNew)
	if err != nil || str(out.Attributes, "n") != "2" || str(out.Attributes, "a") != "<absent>" {
		t.Fatalf("ALL_NEW: %v %v", out, err)
	}
	if it := get("1"); str(it, "n") != "2" || str(it, "a") != "<absent>" || str(it["m"].(*types.AttributeValueMemberM).Value, "k") != "y" {
		t.Fatalf("stored after update: %v", it)
	}
	out, err = update("1", "SET n = n + :one", map[string]av{":one": n("1")}, types.ReturnValueUpdatedNew)
	if err != nil || len(out.Attributes) != 1 || str(out.Attributes, "n") != "3" {
		t.Fatalf("UPDATED_NEW: %v %v", out, err)
	}
	out, err = update("1", "SET n = n + :one", map[string]av{":one": n("1")}, types.ReturnValueUpdatedOld)
	if err != nil || len(out.Attributes) != 1 || str(out.Attributes, "n") != "3" {
		t.Fatalf("UPDATED_OLD: %v %v", out, err)
	}

	// Capacity is for the larger of the old and the new item.
	put(t, db, map[string]av{"PK": s("A"), "SK": s("2"), "big": s(strings.Repeat("x", 2500))})
	out, err = update("2", "REMOVE big", nil, types.ReturnValueNone)
	if err != nil || aws.ToFloat64(out.ConsumedCapacity.CapacityUnits) != 3 {
		t.Fatalf("shrinking update: %+v %v, want 3 units", out.ConsumedCapacity, err)
	}
	desc, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("tbl")})
	if err != nil {
		t.Fatal(err)
	}
	// Items 1 and 2 as they are now; the table size follows updates.
	if size := aws.ToInt64(desc.Table.TableSizeBytes); size > 200 {
		t.Fatalf("table size %d after shrinking the big item", size)
	}

	// An expiry replaced by an update leaves the sweep order.
	soon := strconv.FormatInt(clk.Now().Add(time.Minute).Unix(), 10)
	later := strconv.FormatInt(clk.Now().Add(time.Hour).Unix(), 10)
	put(t, db, map[string]av{"PK": s("A"), "SK": s("3"), "expiresAt": n(soon)})
	if _, err := update("3", "SET expiresAt = :t", map[string]av{":t": n(later)}, types.ReturnValueNone); err != nil {
		t.Fatal(err)
	}
	clk.Add(2 * time.Minute)
	if got, err := eng.SweepTTL(ctx); err != nil || got != 0 || get("3") == nil {
		t.Fatalf("swept %d items (item present: %v), want 0 after the expiry moved", got, get("3") != nil)
	}
	clk.Add(2 * time.Hour)
	if got, err := eng.SweepTTL(ctx); err != nil || got != 1 || get("3") != nil {
		t.Fatalf("swept %d items, want the item with the new expiry", got)
	}

	// An item in an index moves in it and leaves it.
	put(t, db, map[string]av{"PK": s("A"), "SK": s("4"), "GSI1PK": s("g1"), "GSI1SK": s("s")})
	query := func(g string) int {
		t.Helper()
		q, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("tbl"), IndexName: aws.String("GSI1"),
			KeyConditionExpression: aws.String("GSI1PK = :g"), ExpressionAttributeValues: map[string]av{":g": s(g)}})
		if err != nil {
			t.Fatal(err)
		}
		return len(q.Items)
	}
	if _, err := update("4", "SET GSI1PK = :g", map[string]av{":g": s("g2")}, types.ReturnValueNone); err != nil {
		t.Fatal(err)
	}
	if query("g1") != 0 || query("g2") != 1 {
		t.Fatalf("after moving in the index: g1 %d g2 %d", query("g1"), query("g2"))
	}
	if _, err := update("4", "REMOVE GSI1PK", nil, types.ReturnValueNone); err != nil {
		t.Fatal(err)
	}
	if query("g2") != 0 {
		t.Fatal("the item stayed in the index")
	}
	// And enters it again from outside.
	if _, err := update("4", "SET GSI1PK = :g", map[string]av{":g": s("g3")}, types.ReturnValueNone); err != nil {
		t.Fatal(err)
	}
	if query("g3") != 1 {
		t.Fatal("the item did not enter the index")
	}
}

// TestConcurrentUpdatesReturnTheirOwnItems mixes updates that return
// nothing (whose items and request maps the engine reuses) with updates
// that return the new item, from several goroutines: every returned item
// must be the one its update wrote.
func TestConcurrentUpdatesReturnTheirOwnItems(t *testing.T) {
	_, db := newTable(t)
	ctx := context.Background()
	const workers, rounds = 4, 50
	errs := make(chan error, workers)
	for w := range workers {
		go func() {
			sk := strconv.Itoa(w)
			for i := range rounds {
				rv := types.ReturnValueNone
				if i%2 == 1 {
					rv = types.ReturnValueAllNew
				}
				v := strconv.Itoa(i)
				out, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("tbl"), Key: key("C", sk),
					UpdateExpression:          aws.String("SET v = :v, m = :m, w = :w, a1 = :w, a2 = :w, a3 = :w, a4 = :w, a5 = :w"),
					ExpressionAttributeValues: map[string]av{":v": n(v), ":w": s(sk), ":m": &types.AttributeValueMemberM{Value: map[string]av{"v": n(v)}}},
					ReturnValues:              rv})
				if err != nil {
					errs <- err
					return
				}
				// A PutItem of the same kind, returning the old item every other time.
				prv := types.ReturnValueNone
				if i%2 == 0 {
					prv = types.ReturnValueAllOld
				}
				pout, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tbl"), ReturnValues: prv,
					Item: map[string]av{"PK": s("P"), "SK": s(sk), "v": n(v), "w": s(sk), "a1": s(sk), "a2": s(sk), "a3": s(sk), "a4": s(sk), "a5": s(sk),
						"m": &types.AttributeValueMemberM{Value: map[string]av{"v": n(v)}}}})
				if err != nil {
					errs <- err
					return
				}
				if prv == types.ReturnValueAllOld && i > 0 {
					got, ok := pout.Attributes["v"].(*types.AttributeValueMemberN)
					if !ok || got.Value != strconv.Itoa(i-1) || pout.Attributes["a5"].(*types.AttributeValueMemberS).Value != sk {
						errs <- fmt.Errorf("worker %d round %d: put returned %v", w, i, pout.Attributes)
						return
					}
				}
				if rv == types.ReturnValueAllNew {
					got, ok := out.Attributes["v"].(*types.AttributeValueMemberN)
					m, mok := out.Attributes["m"].(*types.AttributeValueMemberM)
					if !ok || got.Value != v || !mok || m.Value["v"].(*types.AttributeValueMemberN).Value != v ||
						out.Attributes["w"].(*types.AttributeValueMemberS).Value != sk || out.Attributes["SK"].(*types.AttributeValueMemberS).Value != sk {
						errs <- fmt.Errorf("worker %d round %d: got %v", w, i, out.Attributes)
						return
					}
				}
			}
			errs <- nil
		}()
	}
	for range workers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
