package conformance_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

const pageIsolation = "Isolation levels for DynamoDB transactions / Conditional writes (Developer Guide)"

func numberOf(t *testing.T, it item, attr string) int64 {
	t.Helper()
	v, ok := it[attr].(*types.AttributeValueMemberN)
	if !ok {
		t.Fatalf("attribute %s of %s is not a number", attr, show(it))
	}
	x, err := strconv.ParseInt(v.Value, 10, 64)
	if err != nil {
		t.Fatalf("attribute %s = %q: %v", attr, v.Value, err)
	}
	return x
}

func TestConcurrentConditionalDecrements(t *testing.T) {
	doc(t, pageIsolation, `Conditional writes: a conditional write succeeds only if the item attributes meet the condition; conditional writes are idempotent-safe and are checked and applied atomically against the item's current state, so concurrent writers can never both pass a check that only one of them should.`)
	each(t, func(t *testing.T, tg *target) {
		table := hashTable(t, tg)
		const start = 1000
		put(t, tg, table, item{"pk": s("hot"), "bal": n(fmt.Sprint(start))})
		const workers, attempts = 64, 12
		var succeeded, failed, other, debited atomic.Int64
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(w), 7))
				for range attempts {
					amt := rng.Int64N(3) + 1
					out, err := tg.client.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{
						TableName: aws.String(table), Key: item{"pk": s("hot")},
						UpdateExpression:          aws.String("SET bal = bal - :a"),
						ConditionExpression:       aws.String("bal >= :a"),
						ExpressionAttributeValues: item{":a": n(fmt.Sprint(amt))},
						ReturnValues:              types.ReturnValueUpdatedNew,
					})
					var ccf *types.ConditionalCheckFailedException
					switch {
					case err == nil:
						succeeded.Add(1)
						debited.Add(amt)
						if v, ok := out.Attributes["bal"].(*types.AttributeValueMemberN); !ok || len(v.Value) > 0 && v.Value[0] == '-' {
							t.Errorf("a decrement returned balance %s", show(out.Attributes["bal"]))
						}
					case errors.As(err, &ccf):
						failed.Add(1)
					default:
						other.Add(1)
						t.Errorf("UpdateItem: %v", err)
					}
				}
			}()
		}
		wg.Wait()
		final := numberOf(t, get(t, tg, table, item{"pk": s("hot")}), "bal")
		if final < 0 {
			t.Errorf("final balance %d is below zero", final)
		}
		if final != start-debited.Load() {
			t.Errorf("final balance %d, want start %d - debited %d = %d (an update was lost)", final, start, debited.Load(), start-debited.Load())
		}
		if succeeded.Load()+failed.Load()+other.Load() != workers*attempts {
			t.Errorf("accounted for %d calls, want %d", succeeded.Load()+failed.Load()+other.Load(), workers*attempts)
		}
		// 768 attempts of 1-3 units against 1000: the balance must run dry.
		if failed.Load() == 0 || final > 2 {
			t.Errorf("balance %d with %d refusals: the workload should have exhausted it", final, failed.Load())
		}
		t.Logf("%d decrements succeeded (%d units), %d refused, final balance %d", succeeded.Load(), debited.Load(), failed.Load(), final)
	})
}

func TestConcurrentBankTransfers(t *testing.T) {
	doc(t, pageIsolation, `TransactWriteItems and TransactGetItems are serializable with respect to each other and to single-item writes: a transaction is applied all-or-nothing, and a TransactGetItems never observes part of a TransactWriteItems. Conflicting transactions are cancelled with TransactionConflict rather than applied partially.`)
	each(t, func(t *testing.T, tg *target) {
		table := hashTable(t, tg)
		const accounts, initial = 6, 1000
		var keys []item
		for i := range accounts {
			k := item{"pk": s(fmt.Sprint("acct", i))}
			put(t, tg, table, item{"pk": k["pk"], "bal": n(fmt.Sprint(initial))})
			keys = append(keys, k)
		}
		const writers, transfers, readers = 12, 25, 3
		var committed, refused, conflicts, reads atomic.Int64
		var wg sync.WaitGroup
		stop := make(chan struct{})
		var readersWG sync.WaitGroup
		for r := range readers {
			readersWG.Add(1)
			go func() {
				defer readersWG.Done()
				var gets []types.TransactGetItem
				for _, k := range keys {
					gets = append(gets, types.TransactGetItem{Get: &types.Get{TableName: aws.String(table), Key: k}})
				}
				for {
					select {
					case <-stop:
						return
					default:
					}
					out, err := tg.client.TransactGetItems(ctx(t), &dynamodb.TransactGetItemsInput{TransactItems: gets})
					if err != nil {
						var tce *types.TransactionCanceledException
						if errors.As(err, &tce) {
							continue // conflict with a write in flight: retry
						}
						t.Errorf("reader %d: %v", r, err)
						return
					}
					var sum int64
					for _, resp := range out.Responses {
						v := resp.Item["bal"].(*types.AttributeValueMemberN).Value
						x, _ := strconv.ParseInt(v, 10, 64)
						if x < 0 {
							t.Errorf("reader saw a negative balance %d", x)
						}
						sum += x
					}
					reads.Add(1)
					if sum != accounts*initial {
						t.Errorf("TransactGetItems saw a total of %d, want %d", sum, accounts*initial)
						return
					}
				}
			}()
		}
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(w), 99))
				for range transfers {
					from := rng.IntN(accounts)
					to := (from + 1 + rng.IntN(accounts-1)) % accounts
					amt := fmt.Sprint(rng.IntN(400) + 1)
					_, err := tg.client.TransactWriteItems(ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
						{Update: &types.Update{TableName: aws.String(table), Key: keys[from], UpdateExpression: aws.String("SET bal = bal - :a"),
							ConditionExpression: aws.String("bal >= :a"), ExpressionAttributeValues: item{":a": n(amt)}}},
						txUpdate(table, keys[to], "SET bal = bal + :a", item{":a": n(amt)}),
					}})
					var tce *types.TransactionCanceledException
					var tc *types.TransactionConflictException
					switch {
					case err == nil:
						committed.Add(1)
					case errors.As(err, &tce):
						for _, code := range reasonCodes(tce) {
							if code == "TransactionConflict" {
								conflicts.Add(1)
							}
						}
						refused.Add(1)
					case errors.As(err, &tc):
						conflicts.Add(1)
					default:
						t.Errorf("transfer: %v", err)
						return
					}
				}
			}()
		}
		wg.Wait()
		close(stop)
		readersWG.Wait()

		var sum int64
		for _, k := range keys {
			b := numberOf(t, get(t, tg, table, k), "bal")
			if b < 0 {
				t.Errorf("account %s ended at %d", show(k["pk"]), b)
			}
			sum += b
		}
		if sum != accounts*initial {
			t.Errorf("sum of balances = %d, want %d", sum, accounts*initial)
		}
		if committed.Load() == 0 {
			t.Errorf("no transfer committed")
		}
		if reads.Load() == 0 {
			t.Errorf("no TransactGetItems read completed")
		}
		t.Logf("%d transfers committed, %d cancelled (%d conflict reasons), %d consistent reads", committed.Load(), refused.Load(), conflicts.Load(), reads.Load())
	})
}
