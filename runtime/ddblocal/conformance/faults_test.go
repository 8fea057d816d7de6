package conformance_test

import (
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
)

// The engine's fault injection imitates failures production DynamoDB
// returns; each case names the documented failure it imitates.
const pageFaults = "Error handling with DynamoDB — Error messages and codes / Transaction conflict handling (Developer Guide)"

func TestFaultThrottling(t *testing.T) {
	doc(t, pageFaults, `ProvisionedThroughputExceededException (HTTP 400): Your request rate is too high; the AWS SDKs automatically retry. ThrottlingException (HTTP 400): Rate of requests exceeds the allowed throughput. Both are retryable.`)
	eachEngine(t, nil, func(t *testing.T, tg *target) {
		throttled := hashTable(t, tg)
		calm := hashTable(t, tg)
		tg.engine.SetFaults(throttled, ddblocal.Faults{ThrottleRate: 1})
		_, err := tg.client.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(throttled), Item: item{"pk": s("a")}})
		var pte *types.ProvisionedThroughputExceededException
		if !errors.As(err, &pte) {
			t.Fatalf("got %v, want *types.ProvisionedThroughputExceededException", err)
		}
		wantErr(t, err, "ProvisionedThroughputExceededException")
		// Faults are per table.
		put(t, tg, calm, item{"pk": s("a")})
		tg.engine.SetFaults(throttled, ddblocal.Faults{ThrottleRate: 1, ThrottleCode: "ThrottlingException"})
		_, err = tg.client.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: aws.String(throttled), Key: item{"pk": s("a")}})
		wantErr(t, err, "ThrottlingException")
		if c := tg.engine.TableFaultCounts(throttled).Throttled; c != 2 {
			t.Errorf("TableFaultCounts.Throttled = %d, want 2", c)
		}
		tg.engine.ClearFaults(throttled)
		put(t, tg, throttled, item{"pk": s("a")})
	})
}

func TestFaultTransactionConflict(t *testing.T) {
	doc(t, pageFaults, `TransactionCanceledException with a TransactionConflict reason: another transaction or request is operating on the same item; nothing is applied. TransactionConflictException: a PutItem, UpdateItem or DeleteItem on an item that is part of an ongoing transaction is rejected.`)
	eachEngine(t, nil, func(t *testing.T, tg *target) {
		table := hashTable(t, tg)
		tg.engine.SetFaults(table, ddblocal.Faults{TransactionConflictRate: 1})
		_, err := tg.client.TransactWriteItems(ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			txPut(table, item{"pk": s("a")}), txPut(table, item{"pk": s("b")}),
		}})
		tce := cancelled(t, err)
		conflict := 0
		for _, code := range reasonCodes(tce) {
			if code == "TransactionConflict" {
				conflict++
			} else if code != "None" {
				t.Errorf("unexpected reason code %q", code)
			}
		}
		if conflict == 0 || len(tce.CancellationReasons) != 2 {
			t.Errorf("reasons = %q, want one per action with a TransactionConflict", reasonCodes(tce))
		}
		if get(t, tg, table, item{"pk": s("a")}) != nil || get(t, tg, table, item{"pk": s("b")}) != nil {
			t.Errorf("a conflicted transaction applied a write")
		}
		tg.engine.SetFaults(table, ddblocal.Faults{WriteConflictRate: 1})
		_, err = tg.client.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(table), Item: item{"pk": s("a")}})
		var tc *types.TransactionConflictException
		if !errors.As(err, &tc) {
			t.Fatalf("got %v, want *types.TransactionConflictException", err)
		}
		tg.engine.ClearFaults(table)
		if get(t, tg, table, item{"pk": s("a")}) != nil {
			t.Errorf("a conflicted PutItem applied")
		}
	})
}

func TestFaultLostResponse(t *testing.T) {
	doc(t, pageFaults, `InternalServerError (HTTP 500): DynamoDB could not process your request; the operation may or may not have succeeded — for writes, the item may have been written. Clients must make retries safe (conditions, idempotency).`)
	for _, mode := range []struct {
		name string
		mode ddblocal.LoseMode
	}{{"500", ddblocal.LoseAs500}, {"reset", ddblocal.LoseAsReset}} {
		t.Run(mode.name, func(t *testing.T) {
			eachEngine(t, nil, func(t *testing.T, tg *target) {
				table := hashTable(t, tg)
				tg.engine.SetFaults(table, ddblocal.Faults{LoseResponseRate: 1, LoseResponseMode: mode.mode})
				_, err := tg.client.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(table), Item: item{"pk": s("a"), "v": n("1")}})
				if err == nil {
					t.Fatalf("PutItem succeeded, want the response lost")
				}
				if mode.mode == ddblocal.LoseAs500 {
					if st := httpStatus(err); st != 500 {
						t.Errorf("status = %d (%v), want 500", st, err)
					}
				}
				tg.engine.ClearFaults(table)
				wantItem(t, get(t, tg, table, item{"pk": s("a")}), item{"pk": s("a"), "v": n("1")})
				if c := tg.engine.TableFaultCounts(table).LostResponses; c != 1 {
					t.Errorf("LostResponses = %d, want 1", c)
				}
			})
		})
	}
}

func TestFaultGSIDelay(t *testing.T) {
	doc(t, pageGSI, `Global secondary indexes are eventually consistent: when an item is written to the table, its index entries are propagated asynchronously, usually within a fraction of a second; a query on the index may not yet show a recent write.`)
	eachEngine(t, nil, func(t *testing.T, tg *target) {
		table := gsiTable(t, tg)
		const delay = 2 * time.Second
		tg.engine.SetFaults(table, ddblocal.Faults{GSIDelay: delay})
		start := time.Now()
		put(t, tg, table, item{"pk": s("1"), "sk": s("a"), "gk": s("g"), "gs": n("1")})
		// Only a query that ran inside the delay window can prove the delay.
		if got := queryIndex(t, tg, table, "byG", "gk = :g", item{":g": s("g")}); len(got) != 0 && time.Since(start) < delay {
			t.Errorf("index shows the write after %v, want it held back for %v", time.Since(start), delay)
		}
		if get(t, tg, table, item{"pk": s("1"), "sk": s("a")}) == nil {
			t.Errorf("the table itself must show the write at once")
		}
		deadline := time.Now().Add(delay + 10*time.Second)
		for len(queryIndex(t, tg, table, "byG", "gk = :g", item{":g": s("g")})) == 0 {
			if time.Now().After(deadline) {
				t.Fatalf("delayed index write never appeared")
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
}

func TestFaultLatency(t *testing.T) {
	doc(t, pageFaults, `Latency injection: requests take at least the configured extra time (imitating network and service latency).`)
	eachEngine(t, nil, func(t *testing.T, tg *target) {
		table := hashTable(t, tg)
		tg.engine.SetFaults(table, ddblocal.Faults{Latency: 60 * time.Millisecond})
		start := time.Now()
		put(t, tg, table, item{"pk": s("a")})
		if d := time.Since(start); d < 60*time.Millisecond {
			t.Errorf("PutItem took %v, want at least 60ms of injected latency", d)
		}
	})
}
