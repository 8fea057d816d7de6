package platform_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/internal/dbtest"
	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/outbox"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/store"
)

// ledger writes n entries of kinds in turn (amounts 1..n) for users u0..u4
// as the flows store them, and returns them with their stream records.
func ledger(t *testing.T, env *dbtest.Env, n int, kinds ...string) ([]store.LedgerEntry, events.DynamoDBEvent) {
	t.Helper()
	b := store.NewBuilder(env.Table, schema.Default())
	at := time.Date(2026, 12, 5, 8, 0, 0, 0, time.UTC)
	var entries []store.LedgerEntry
	var batch events.DynamoDBEvent
	for i := range n {
		user := fmt.Sprintf("u%d", i%5)
		id := keys.NewIDAt("cr", at.Add(time.Duration(i)*time.Millisecond))
		k, err := keys.Ledger(user, id)
		if err != nil {
			t.Fatal(err)
		}
		e := store.LedgerEntry{PK: k.PK, SK: k.SK, EntityType: store.TypeLedgerEntry, EntryID: id, UserID: user,
			Kind: kinds[i%len(kinds)], Amount: int64(i + 1), Currency: []string{"EUR", "EUR", "USD"}[i%3], CreatedAt: at.Format(time.RFC3339Nano)}
		if i%7 != 6 {
			e = e.WithLegs() // every seventh is stored as before entries had legs
		}
		av, err := b.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := env.Client.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(env.Table), Item: av}); err != nil {
			t.Fatal(err)
		}
		entries = append(entries, e)
		batch.Records = append(batch.Records, events.DynamoDBEventRecord{EventID: id, EventName: "INSERT",
			Change: events.DynamoDBStreamRecord{SequenceNumber: fmt.Sprintf("%021d", i+1), NewImage: outbox.StreamImage(av)}})
	}
	return entries, batch
}

// want is the platform legs of entries summed by account and currency.
func want(entries []store.LedgerEntry) map[string]map[string]int64 {
	out := map[string]map[string]int64{}
	for _, e := range entries {
		for _, l := range e.Posting() {
			if l.Account == store.UserAccount(e.UserID) {
				continue
			}
			if out[l.Account] == nil {
				out[l.Account] = map[string]int64{}
			}
			out[l.Account][e.Currency] += l.Amount
		}
	}
	return out
}

// conflicting is DynamoDB's answer to concurrent transactions on one
// item, which the embedded engine serialises instead: a transaction that
// writes an item another one is writing is cancelled with
// TransactionConflict on that item.
type conflicting struct {
	*dynamodb.Client
	hold time.Duration

	mu       sync.Mutex
	inFlight map[string]bool
}

func (c *conflicting) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	var mine []string
	c.mu.Lock()
	for i, it := range in.TransactItems {
		k := keyOf(it)
		if c.inFlight[k] {
			for _, m := range mine {
				delete(c.inFlight, m)
			}
			c.mu.Unlock()
			reasons := make([]types.CancellationReason, len(in.TransactItems))
			for j := range reasons {
				reasons[j] = types.CancellationReason{Code: aws.String("None")}
			}
			reasons[i] = types.CancellationReason{Code: aws.String("TransactionConflict")}
			return nil, &types.TransactionCanceledException{Message: aws.String("Transaction is ongoing for the item"), CancellationReasons: reasons}
		}
		c.inFlight[k] = true
		mine = append(mine, k)
	}
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		for _, m := range mine {
			delete(c.inFlight, m)
		}
		c.mu.Unlock()
	}()
	time.Sleep(c.hold)
	return c.Client.TransactWriteItems(ctx, in, optFns...)
}

func keyOf(it types.TransactWriteItem) string {
	var key map[string]types.AttributeValue
	switch {
	case it.Update != nil:
		key = it.Update.Key
	case it.Put != nil:
		key = it.Put.Item
	}
	pk, _ := key[schema.PartitionKey].(*types.AttributeValueMemberS)
	sk, _ := key[schema.SortKey].(*types.AttributeValueMemberS)
	if pk == nil || sk == nil {
		return ""
	}
	return pk.Value + "\x00" + sk.Value
}

// failing fails its TransactWriteItems call number failAt (1-based) as a
// process that dies before the call would: nothing of it is written.
type failing struct {
	*dynamodb.Client
	mu     sync.Mutex
	calls  int
	failAt int
}

var errCrash = fmt.Errorf("the totaller's process died")

func (f *failing) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	f.mu.Lock()
	f.calls++
	crash := f.calls == f.failAt
	f.mu.Unlock()
	if crash {
		return nil, errCrash
	}
	return f.Client.TransactWriteItems(ctx, in, optFns...)
}

func keyOfImage(im map[string]events.DynamoDBAttributeValue) keys.Key {
	return keys.Key{PK: im[schema.PartitionKey].String(), SK: im[schema.SortKey].String()}
}

func putOf(table string, item map[string]types.AttributeValue) *dynamodb.PutItemInput {
	return &dynamodb.PutItemInput{TableName: aws.String(table), Item: item}
}
