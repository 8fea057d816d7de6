package ddblocal

import (
	"context"
	"fmt"
	"math/rand"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
)

// modelClock is a fake clock the model test advances.
type modelClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *modelClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *modelClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// modelWrite is one acknowledged change of one item: its version, as the
// engine gave it in its Region, and the row it left there (nil: deleted).
type modelWrite struct {
	ver itemVersion
	row []byte
}

var modelRegions = []string{"us-east-1", "eu-west-1", "ap-south-1"}

// globalModel runs random writes and transactions in three Regions under
// partitions, heals, crashes (backlog kept), clock skew and lag, then
// heals everything and waits until quiet. It returns what the final state
// breaks of last writer wins: replicas that differ, or items that are not
// the winner of their writes (the highest version, timestamp then Region
// name).
func globalModel(t *testing.T, seed int64, steps int, arrivalOrder bool) []string {
	t.Helper()
	ctx := context.Background()
	clk := &modelClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	eng := New(func(o *Options) {
		o.Regions = modelRegions
		o.ManualReplication = true
		o.Clock = clk.now
		o.TTLSweepInterval = -1
	})
	defer eng.Close()
	rep := eng.Replication()
	rep.SetFaults(ReplicationFaults{Seed: seed, Lag: UniformLag(0, 40*time.Millisecond)})
	eng.global.repl.arrivalOrder = arrivalOrder
	clients := map[string]*dynamodb.Client{}
	for _, r := range modelRegions {
		clients[r] = eng.Region(r).Client(func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 })
	}
	_, err := clients[modelRegions[0]].CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("model"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
		StreamSpecification:  &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range modelRegions[1:] {
		_, err := clients[modelRegions[0]].UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("model"),
			ReplicaUpdates: []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String(r)}}}})
		if err != nil {
			t.Fatal(err)
		}
	}

	rng := rand.New(rand.NewSource(seed))
	writes := map[string][]modelWrite{}
	down := map[string]bool{}
	// record notes the version and row an acknowledged write left in its
	// Region (the test is sequential: nothing has written since).
	record := func(region, pk string) {
		tb := eng.Region(region).anyStatus("model")
		key, err := tb.keyOf(attr.Item{"PK": attr.Str(pk)})
		if err != nil {
			t.Fatal(err)
		}
		tb.rlocked(func() {
			w := modelWrite{ver: tb.replica.versions[string(key)]}
			if en, ok := tb.items.Get(probe(key)); ok {
				w.row = en.val()
			}
			writes[string(key)] = append(writes[string(key)], w)
		})
	}
	keyAV := func(pk string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: pk}}
	}
	for step := 0; step < steps; step++ {
		clk.advance(time.Duration(rng.Intn(5)+1) * time.Millisecond)
		region := modelRegions[rng.Intn(len(modelRegions))]
		db := clients[region]
		pk := fmt.Sprintf("k%d", rng.Intn(6))
		val := fmt.Sprintf("%s-%d", region, step)
		switch n := rng.Intn(100); {
		case n < 30:
			if down[region] {
				continue
			}
			item := keyAV(pk)
			item["v"] = &types.AttributeValueMemberS{Value: val}
			if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("model"), Item: item}); err != nil {
				t.Fatal(err)
			}
			record(region, pk)
		case n < 45:
			if down[region] {
				continue
			}
			_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("model"), Key: keyAV(pk),
				UpdateExpression:          aws.String("SET n = if_not_exists(n, :z) + :one, v = :v"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":z": &types.AttributeValueMemberN{Value: "0"}, ":one": &types.AttributeValueMemberN{Value: "1"}, ":v": &types.AttributeValueMemberS{Value: val}}})
			if err != nil {
				t.Fatal(err)
			}
			record(region, pk)
		case n < 52:
			if down[region] {
				continue
			}
			if _, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("model"), Key: keyAV(pk)}); err != nil {
				t.Fatal(err)
			}
			record(region, pk)
		case n < 62:
			if down[region] {
				continue
			}
			other := fmt.Sprintf("k%d", (rng.Intn(5)+1+int(pk[1]-'0'))%6)
			var items []types.TransactWriteItem
			for _, k := range []string{pk, other} {
				item := keyAV(k)
				item["v"] = &types.AttributeValueMemberS{Value: val + "-tx"}
				items = append(items, types.TransactWriteItem{Put: &types.Put{TableName: aws.String("model"), Item: item}})
			}
			if _, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items}); err != nil {
				t.Fatal(err)
			}
			record(region, pk)
			record(region, other)
		case n < 80:
			rep.Deliver()
		case n < 85:
			a, b := modelRegions[rng.Intn(3)], modelRegions[rng.Intn(3)]
			if a != b {
				rep.Partition(a, b)
			}
		case n < 90:
			a, b := modelRegions[rng.Intn(3)], modelRegions[rng.Intn(3)]
			if a != b {
				rep.Heal(a, b)
			}
		case n < 93:
			if !down[region] {
				rep.Crash(region, true)
				down[region] = true
			}
		case n < 96:
			if down[region] {
				rep.Restart(region)
				delete(down, region)
			}
		default:
			rep.SetClockSkew(region, time.Duration(rng.Intn(4001)-2000)*time.Millisecond)
		}
	}
	for _, a := range modelRegions {
		rep.Restart(a)
		for _, b := range modelRegions {
			if a != b {
				rep.Heal(a, b)
			}
		}
	}
	q := rep.WaitQuiet()
	var problems []string
	if q.Pending != 0 || !q.Identical {
		problems = append(problems, fmt.Sprintf("after quiet: %d pending, identical %v: %v", q.Pending, q.Identical, q.Differences))
	}
	for key, ws := range writes {
		win := ws[0]
		for _, w := range ws[1:] {
			if w.ver.after(win.ver) {
				win = w
			}
		}
		for _, r := range modelRegions {
			tb := eng.Region(r).anyStatus("model")
			var got []byte
			tb.rlocked(func() {
				if en, ok := tb.items.Get(probe([]byte(key))); ok {
					got = en.val()
				}
			})
			if (got == nil) != (win.row == nil) || (got != nil && !sameItem(got, win.row)) {
				problems = append(problems, fmt.Sprintf("%s: item %q is %s, want the last writer's %s (of %d writes)", r, key, describeRow(got), describeRow(win.row), len(ws)))
			}
		}
	}
	return problems
}

func describeRow(raw []byte) string {
	if raw == nil {
		return "absent"
	}
	it, err := decodeItem(raw)
	if err != nil {
		return err.Error()
	}
	return fmt.Sprint(it["v"])
}

// TestGlobalTablesModel: after random writes, transactions, partitions,
// heals, crashes and skew in three Regions, every replica is identical
// and every item is the last writer's.
func TestGlobalTablesModel(t *testing.T) {
	steps := 600
	if testing.Short() {
		steps = 200
	}
	for seed := int64(1); seed <= 6; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			for _, p := range globalModel(t, seed, steps, false) {
				t.Error(p)
			}
		})
	}
}

// TestGlobalTablesModelCatchesArrivalOrder applies replicated writes in
// the order they arrive instead of by last writer wins: the model test's
// check must fail, for every seed.
func TestGlobalTablesModelCatchesArrivalOrder(t *testing.T) {
	for seed := int64(1); seed <= 6; seed++ {
		if problems := globalModel(t, seed, 600, true); len(problems) == 0 {
			t.Errorf("seed %d: arrival order passed the model's check", seed)
		} else {
			t.Logf("seed %d: %d problems, first: %s", seed, len(problems), problems[0])
		}
	}
}
