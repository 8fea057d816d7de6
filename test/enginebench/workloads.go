package enginebench

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Operations measured, in report order.
const (
	OpPut       = "PutItem"
	OpHotUpdate = "conditional UpdateItem, 1 hot item, 16 goroutines"
	OpTransact  = "TransactWriteItems"
	OpTx1k      = "TransactWriteItems, 4 items, table of 1k"
	OpTx100k    = "TransactWriteItems, 4 items, table of 100k"
	OpQuery     = "Query returning 100 items"
	OpStartup   = "start-up (new engine to first answered request)"
)

// HotWorkers is how many goroutines update the hot item.
const HotWorkers = 16

// TableInput describes the bench table: pk/sk strings, on demand.
func TableInput(name string) *dynamodb.CreateTableInput {
	return &dynamodb.CreateTableInput{
		TableName: aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
		},
		BillingMode: types.BillingModePayPerRequest,
	}
}

// WaitCreated waits until a new table has left the CREATING status
// (dynalite flips it a moment after CreateTable answers; minidyn leaves
// the status empty).
func WaitCreated(ctx context.Context, api API, table string) error {
	for tries := 0; ; tries++ {
		out, err := api.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		if err != nil {
			return err
		}
		if out.Table == nil || out.Table.TableStatus != types.TableStatusCreating {
			return nil
		}
		if tries == 500 {
			return fmt.Errorf("table %s still CREATING after %d checks", table, tries)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Item returns item i of partition pk: about 200 bytes by DynamoDB's size
// rules (attribute names plus values).
func Item(pk string, i int) map[string]types.AttributeValue {
	sk := fmt.Sprintf("ORDER#%012d", i)
	it := map[string]types.AttributeValue{
		"pk":         &types.AttributeValueMemberS{Value: pk},
		"sk":         &types.AttributeValueMemberS{Value: sk},
		"EntityType": &types.AttributeValueMemberS{Value: "Order"},
		"status":     &types.AttributeValueMemberS{Value: "PENDING"},
		"currency":   &types.AttributeValueMemberS{Value: "EUR"},
		"amount":     &types.AttributeValueMemberN{Value: fmt.Sprint(1000 + i%9000)},
		"createdAt":  &types.AttributeValueMemberS{Value: "2026-11-29T20:00:00.000Z"},
		"cnt":        &types.AttributeValueMemberN{Value: "0"},
	}
	// Fill to 200 bytes with a note.
	size := 0
	for k, v := range it {
		size += len(k)
		switch x := v.(type) {
		case *types.AttributeValueMemberS:
			size += len(x.Value)
		case *types.AttributeValueMemberN:
			size += (len(x.Value)+1)/2 + 1
		}
	}
	if pad := 200 - size - len("note"); pad > 0 {
		it["note"] = &types.AttributeValueMemberS{Value: strings.Repeat("n", pad)}
	}
	return it
}

// Load writes n items (keys USER#<i> / ORDER#<i>) with BatchWriteItem,
// resending unprocessed requests.
func Load(ctx context.Context, api API, table string, n int, partition func(i int) string) error {
	for start := 0; start < n; start += 25 {
		end := min(start+25, n)
		reqs := make([]types.WriteRequest, 0, end-start)
		for i := start; i < end; i++ {
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: Item(partition(i), i)}})
		}
		pending := map[string][]types.WriteRequest{table: reqs}
		for tries := 0; len(pending) > 0; tries++ {
			if tries > 50 {
				return errors.New("BatchWriteItem kept returning unprocessed items")
			}
			out, err := api.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: pending})
			if err != nil {
				return fmt.Errorf("load item %d: %w", start, err)
			}
			pending = out.UnprocessedItems
		}
	}
	return nil
}

// UserPartition spreads items over one partition each.
func UserPartition(i int) string { return fmt.Sprintf("USER#%012d", i) }

// Latencies records the duration of every operation of one run.
type Latencies struct {
	mu  sync.Mutex
	all []time.Duration
}

func (l *Latencies) add(d []time.Duration) {
	l.mu.Lock()
	l.all = append(l.all, d...)
	l.mu.Unlock()
}

// Run executes op n times split over workers goroutines and returns the
// wall time and every latency. op gets a per-worker random source and the
// global sequence number of the call.
func Run(n, workers int, op func(r *rand.Rand, seq int) error) (time.Duration, []time.Duration, error) {
	var next atomic.Int64
	var lat Latencies
	var firstErr error
	var errOnce sync.Once
	var wg sync.WaitGroup
	start := time.Now()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w)+1, uint64(n)))
			local := make([]time.Duration, 0, n/workers+1)
			for {
				seq := int(next.Add(1)) - 1
				if seq >= n {
					break
				}
				t0 := time.Now()
				if err := op(r, seq); err != nil {
					errOnce.Do(func() { firstErr = err })
					break
				}
				local = append(local, time.Since(t0))
			}
			lat.add(local)
		}()
	}
	wg.Wait()
	return time.Since(start), lat.all, firstErr
}

// Put writes item seq under its own partition.
func Put(ctx context.Context, api API, table string, prefix string) func(*rand.Rand, int) error {
	return func(_ *rand.Rand, seq int) error {
		_, err := api.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item(prefix+UserPartition(seq), seq)})
		return err
	}
}

// HotUpdate is a conditional increment of the one hot item.
func HotUpdate(ctx context.Context, api API, table string) func(*rand.Rand, int) error {
	key := map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "HOT"},
		"sk": &types.AttributeValueMemberS{Value: "HOT"},
	}
	vals := map[string]types.AttributeValue{
		":one":  &types.AttributeValueMemberN{Value: "1"},
		":zero": &types.AttributeValueMemberN{Value: "0"},
	}
	return func(*rand.Rand, int) error {
		_, err := api.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: aws.String(table), Key: key,
			UpdateExpression:          aws.String("SET cnt = cnt + :one"),
			ConditionExpression:       aws.String("cnt >= :zero"),
			ExpressionAttributeValues: vals,
		})
		return err
	}
}

// Transact updates four distinct random items of a table loaded with n
// items by Load(..., UserPartition).
func Transact(ctx context.Context, api API, table string, n int) func(*rand.Rand, int) error {
	vals := map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}}
	return func(r *rand.Rand, _ int) error {
		var picked [4]int
		items := make([]types.TransactWriteItem, 0, 4)
		for len(items) < 4 {
			i := r.IntN(n)
			dup := false
			for _, p := range picked[:len(items)] {
				dup = dup || p == i
			}
			if dup {
				continue
			}
			picked[len(items)] = i
			items = append(items, types.TransactWriteItem{Update: &types.Update{
				TableName: aws.String(table),
				Key: map[string]types.AttributeValue{
					"pk": &types.AttributeValueMemberS{Value: UserPartition(i)},
					"sk": &types.AttributeValueMemberS{Value: fmt.Sprintf("ORDER#%012d", i)},
				},
				UpdateExpression:          aws.String("SET cnt = cnt + :one"),
				ConditionExpression:       aws.String("attribute_exists(pk)"),
				ExpressionAttributeValues: vals,
			}})
		}
		_, err := api.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
		return err
	}
}

// QueryPartition is the partition Query reads; it holds exactly 100 items.
const QueryPartition = "QUERY#1"

// Query reads the 100-item partition and checks it got all of them.
func Query(ctx context.Context, api API, table string) func(*rand.Rand, int) error {
	vals := map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: QueryPartition}}
	return func(*rand.Rand, int) error {
		out, err := api.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table),
			KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: vals})
		if err != nil {
			return err
		}
		if len(out.Items) != 100 {
			return fmt.Errorf("Query returned %d items, want 100", len(out.Items))
		}
		return nil
	}
}
