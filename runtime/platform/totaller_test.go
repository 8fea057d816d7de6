package platform_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/internal/dbtest"
	"github.com/oncetable/oncetable/runtime/platform"
	"github.com/oncetable/oncetable/runtime/store"
)

var allKinds = []string{store.LedgerCredit, store.LedgerDebit, store.LedgerSettle, store.LedgerTransferOut, store.LedgerTransferIn, store.LedgerCapture, store.LedgerRefund}

func read(t *testing.T, env *dbtest.Env, shards int) platform.Sums {
	t.Helper()
	got, err := platform.Read(context.Background(), env.Client, func(o *platform.Options) { o.Table, o.Shards = env.Table, shards })
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func sameSums(t *testing.T, got platform.Sums, want map[string]map[string]int64) {
	t.Helper()
	for a, byCur := range want {
		for c, v := range byCur {
			if got[a][c] != v {
				t.Errorf("%s %s: stored %d, want %d (the sum of its legs)", a, c, got[a][c], v)
			}
		}
	}
	for a, byCur := range got {
		for c, v := range byCur {
			if _, ok := want[a][c]; !ok && v != 0 {
				t.Errorf("%s %s: stored %d, want no total", a, c, v)
			}
		}
	}
}

// A batch delivered again (the mapping retried it, or the function timed
// out after committing) adds nothing: each entry's legs count once.
func TestRedeliveredBatchCountsOnce(t *testing.T) {
	for _, tc := range []struct {
		name       string
		entries    int
		deliveries int
	}{
		{"one transaction, twice", 30, 2},
		{"three transactions, three times", 2*platform.MaxEntriesPerTransaction + 10, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := dbtest.New(t)
			entries, batch := ledger(t, env, tc.entries, allKinds...)
			tot := platform.New(env.Client, func(o *platform.Options) { o.Table = env.Table })
			for d := range tc.deliveries {
				resp, err := tot.Handle(context.Background(), batch)
				if err != nil || len(resp.BatchItemFailures) > 0 {
					t.Fatalf("delivery %d: %v, failures %v", d+1, err, resp.BatchItemFailures)
				}
			}
			sameSums(t, read(t, env, platform.DefaultShards), want(entries))
			res, err := tot.Total(context.Background(), entriesOf(t, batch))
			if err != nil || res.Totalled != 0 || res.Already != tc.entries {
				t.Fatalf("Total of the same entries again = %+v, %v; want all %d already totalled", res, err, tc.entries)
			}
		})
	}
}

func entriesOf(t *testing.T, batch events.DynamoDBEvent) []platform.Entry {
	t.Helper()
	var out []platform.Entry
	for _, r := range batch.Records {
		var e store.LedgerEntry
		im := r.Change.NewImage
		e.UserID, e.Kind, e.Currency = im["userId"].String(), im["kind"].String(), im["currency"].String()
		fmt.Sscan(im["amount"].Number(), &e.Amount)
		out = append(out, platform.EntryOf(keyOfImage(im), e))
	}
	return out
}

// The process dies between two transactions of a batch: the first is
// committed, the second never sent. The mapping delivers the whole batch
// again, and every entry is counted once.
func TestCrashBetweenTransactions(t *testing.T) {
	env := dbtest.New(t)
	entries, batch := ledger(t, env, platform.MaxEntriesPerTransaction+20, allKinds...)
	crashing := &failing{Client: env.Client, failAt: 2}
	resp, err := platform.New(crashing, func(o *platform.Options) { o.Table = env.Table }).Handle(context.Background(), batch)
	if err != nil {
		t.Fatal(err)
	}
	first := batch.Records[platform.MaxEntriesPerTransaction].Change.SequenceNumber
	if len(resp.BatchItemFailures) != 1 || resp.BatchItemFailures[0].ItemIdentifier != first {
		t.Fatalf("failures %v, want the first record of the second transaction (%s)", resp.BatchItemFailures, first)
	}
	part := read(t, env, platform.DefaultShards)
	sameSums(t, part, want(entries[:platform.MaxEntriesPerTransaction]))

	resp, err = platform.New(env.Client, func(o *platform.Options) { o.Table = env.Table }).Handle(context.Background(), batch)
	if err != nil || len(resp.BatchItemFailures) > 0 {
		t.Fatalf("redelivery: %v, failures %v", err, resp.BatchItemFailures)
	}
	sameSums(t, read(t, env, platform.DefaultShards), want(entries))
}

// Totallers running at once on the same shards (as a mapping's concurrent
// batches do) conflict, move to other shards, and still count each entry
// once, including entries both of them were given.
func TestConcurrentTotallersOnShards(t *testing.T) {
	env := dbtest.New(t)
	entries, batch := ledger(t, env, 240, allKinds...)
	db := &conflicting{Client: env.Client, hold: 2 * time.Millisecond, inFlight: map[string]bool{}}
	const workers, shards = 6, 3
	var mu sync.Mutex
	var total platform.Result
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			tot := platform.New(db, func(o *platform.Options) { o.Table, o.Shards, o.MaxConflicts = env.Table, shards, 1000 })
			// Each worker totals every second entry from its offset, in
			// transactions of 5: each entry is given to three workers.
			var mine []platform.Entry
			all := entriesOf(t, batch)
			for i := w; i < len(all); i += 2 {
				mine = append(mine, all[i])
			}
			for i := 0; i < len(mine); i += 5 {
				res, err := tot.Total(context.Background(), mine[i:min(i+5, len(mine))])
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				total.Totalled, total.Already, total.Conflicts = total.Totalled+res.Totalled, total.Already+res.Already, total.Conflicts+res.Conflicts
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if total.Totalled != len(entries) {
		t.Errorf("%d entries totalled, want %d (each once); %d were already", total.Totalled, len(entries), total.Already)
	}
	if total.Conflicts == 0 {
		t.Errorf("no transaction conflicted: the test did not run totallers on one shard at once")
	}
	sameSums(t, read(t, env, shards), want(entries))
	used := 0
	out, err := env.Client.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(env.Table),
		FilterExpression: aws.String("EntityType = :t"), ExpressionAttributeValues: map[string]types.AttributeValue{":t": &types.AttributeValueMemberS{Value: store.TypePlatformTotal}}})
	if err != nil {
		t.Fatal(err)
	}
	shardsSeen := map[string]bool{}
	for _, it := range out.Items {
		shardsSeen[it["shard"].(*types.AttributeValueMemberN).Value] = true
	}
	used = len(shardsSeen)
	if used < 2 {
		t.Errorf("totals on %d shards (%v), want conflicts to spread them", used, maps.Keys(shardsSeen))
	}
	t.Logf("%d entries, %d workers on %d shards: %d conflicts, %d redeliveries left out, %d shards used", len(entries), workers, shards, total.Conflicts, total.Already, used)
}

// A record the totaller cannot read is named in BatchItemFailures, after
// the entries before it are totalled; records of other items are skipped.
func TestHandleUnreadableRecord(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spoil func(im map[string]events.DynamoDBAttributeValue)
	}{
		{"amount not a number", func(im map[string]events.DynamoDBAttributeValue) { im["amount"] = events.NewStringAttribute("12") }},
		{"no currency", func(im map[string]events.DynamoDBAttributeValue) { delete(im, "currency") }},
		{"a leg without amount", func(im map[string]events.DynamoDBAttributeValue) {
			im["legs"] = events.NewListAttribute([]events.DynamoDBAttributeValue{events.NewMapAttribute(map[string]events.DynamoDBAttributeValue{"account": events.NewStringAttribute("platform:funding")})})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := dbtest.New(t)
			entries, batch := ledger(t, env, 6, store.LedgerCredit)
			other := events.DynamoDBEventRecord{EventName: "MODIFY", Change: events.DynamoDBStreamRecord{SequenceNumber: "x",
				NewImage: map[string]events.DynamoDBAttributeValue{"EntityType": events.NewStringAttribute(store.TypeLedgerEntry)}}}
			batch.Records = append([]events.DynamoDBEventRecord{other}, batch.Records...)
			tc.spoil(batch.Records[4].Change.NewImage)
			resp, err := platform.New(env.Client, func(o *platform.Options) { o.Table = env.Table }).Handle(context.Background(), batch)
			if err != nil {
				t.Fatal(err)
			}
			if want := batch.Records[4].Change.SequenceNumber; len(resp.BatchItemFailures) != 1 || resp.BatchItemFailures[0].ItemIdentifier != want {
				t.Fatalf("failures %v, want record %s", resp.BatchItemFailures, want)
			}
			sameSums(t, read(t, env, platform.DefaultShards), want(entries[:3]))
		})
	}
}

func TestNewRefusesBadOptions(t *testing.T) {
	for _, o := range []platform.Options{{}, {Table: "t", Shards: -1}, {Table: "t", Shards: platform.MaxShards + 1}} {
		func() {
			defer func() {
				err, _ := recover().(error)
				if !errors.Is(err, platform.ErrOptions) {
					t.Errorf("New(%+v) panicked with %v, want ErrOptions", o, err)
				}
			}()
			platform.New(nil, func(p *platform.Options) { *p = o })
		}()
	}
}
