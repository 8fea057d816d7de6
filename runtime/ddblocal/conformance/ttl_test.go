package conformance_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
)

const pageTTL = "Using time to live (TTL) in DynamoDB / How it works (Developer Guide)"

func TestTTLSweep(t *testing.T) {
	doc(t, pageTTL, `TTL compares the current time in epoch time format to the time stored in the TTL attribute of an item. Items with a TTL attribute that is a Number of epoch seconds in the past are expired and deleted by a background process; items that have expired, but haven't yet been deleted by TTL, still appear in reads, queries, and scans. An item whose TTL attribute is not a Number, or that lacks the attribute, is never expired. Deleting an expired item removes it from its indexes too.`)
	start := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	clock := newFakeClock(start)
	noSweeper := func(o *ddblocal.Options) { o.TTLSweepInterval = -1 }
	eachEngine(t, []func(*ddblocal.Options){clock.option(), noSweeper}, func(t *testing.T, tg *target) {
		in := tableInput(keyDef{"pk", types.ScalarAttributeTypeS}, nil)
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS})
		in.GlobalSecondaryIndexes = []types.GlobalSecondaryIndex{{IndexName: aws.String("byG"), KeySchema: hashOnly("g"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}
		table := createTable(t, tg, in)
		_, err := tg.client.UpdateTimeToLive(ctx(t), &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(table),
			TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("expiresAt"), Enabled: aws.Bool(true)}})
		noErr(t, err, "UpdateTimeToLive")
		now := clock.Now().Unix()
		put(t, tg, table, item{"pk": s("expired"), "g": s("x"), "expiresAt": n(fmt.Sprint(now - 10))})
		put(t, tg, table, item{"pk": s("future"), "g": s("x"), "expiresAt": n(fmt.Sprint(now + 3600))})
		put(t, tg, table, item{"pk": s("string"), "g": s("x"), "expiresAt": s(fmt.Sprint(now - 10))})
		put(t, tg, table, item{"pk": s("none"), "g": s("x")})

		// Expired but not yet swept: still readable everywhere.
		if get(t, tg, table, item{"pk": s("expired")}) == nil {
			t.Errorf("expired item vanished before the sweep")
		}
		if got := len(queryIndex(t, tg, table, "byG", "g = :g", item{":g": s("x")})); got != 4 {
			t.Errorf("index holds %d items before the sweep, want 4", got)
		}
		if got := len(scanAll(t, tg, &dynamodb.ScanInput{TableName: aws.String(table)})); got != 4 {
			t.Errorf("Scan returned %d items before the sweep, want 4", got)
		}

		if _, err := tg.engine.SweepTTL(ctx(t)); err != nil {
			t.Fatal(err)
		}
		if it := get(t, tg, table, item{"pk": s("expired")}); it != nil {
			t.Errorf("expired item survived the sweep: %s", show(it))
		}
		for _, k := range []string{"future", "string", "none"} {
			if get(t, tg, table, item{"pk": s(k)}) == nil {
				t.Errorf("item %s was deleted by the sweep, want kept", k)
			}
		}
		if got := len(queryIndex(t, tg, table, "byG", "g = :g", item{":g": s("x")})); got != 3 {
			t.Errorf("index holds %d items after the sweep, want 3", got)
		}

		clock.Advance(2 * time.Hour)
		if get(t, tg, table, item{"pk": s("future")}) == nil {
			t.Errorf("item expired by the clock vanished before a sweep")
		}
		if _, err := tg.engine.SweepTTL(ctx(t)); err != nil {
			t.Fatal(err)
		}
		if it := get(t, tg, table, item{"pk": s("future")}); it != nil {
			t.Errorf("item expired by moving the clock survived the sweep")
		}
	})
}

func TestTTLDisabledTableKeepsItems(t *testing.T) {
	doc(t, pageTTL, `TTL deletes items only on tables where TTL is enabled, using the attribute named in the TTL specification.`)
	clock := newFakeClock(time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC))
	eachEngine(t, []func(*ddblocal.Options){clock.option()}, func(t *testing.T, tg *target) {
		table := hashTable(t, tg)
		put(t, tg, table, item{"pk": s("old"), "expiresAt": n(fmt.Sprint(clock.Now().Unix() - 100))})
		if _, err := tg.engine.SweepTTL(ctx(t)); err != nil {
			t.Fatal(err)
		}
		if get(t, tg, table, item{"pk": s("old")}) == nil {
			t.Errorf("TTL-disabled table lost an item to the sweep")
		}
		// Enabled on another attribute: expiresAt is not the TTL attribute.
		_, err := tg.client.UpdateTimeToLive(ctx(t), &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(table),
			TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("ttl2"), Enabled: aws.Bool(true)}})
		noErr(t, err, "UpdateTimeToLive")
		if _, err := tg.engine.SweepTTL(ctx(t)); err != nil {
			t.Fatal(err)
		}
		if get(t, tg, table, item{"pk": s("old")}) == nil {
			t.Errorf("sweep used an attribute other than the configured one")
		}
	})
}

func TestTTLBackgroundSweeper(t *testing.T) {
	doc(t, pageTTL, `DynamoDB automatically deletes expired items in the background, without consuming write throughput.`)
	eachEngine(t, []func(*ddblocal.Options){func(o *ddblocal.Options) { o.TTLSweepInterval = 20 * time.Millisecond }}, func(t *testing.T, tg *target) {
		table := hashTable(t, tg)
		_, err := tg.client.UpdateTimeToLive(ctx(t), &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(table),
			TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("expiresAt"), Enabled: aws.Bool(true)}})
		noErr(t, err, "UpdateTimeToLive")
		put(t, tg, table, item{"pk": s("old"), "expiresAt": n(fmt.Sprint(time.Now().Unix() - 1))})
		deadline := time.Now().Add(20 * time.Second)
		for get(t, tg, table, item{"pk": s("old")}) != nil {
			if time.Now().After(deadline) {
				t.Fatalf("background sweeper did not delete the expired item within 20s")
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}
