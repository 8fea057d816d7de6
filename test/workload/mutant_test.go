package workload_test

import (
	"context"
	"maps"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/httpapi"
	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/localrun"
	"github.com/oncetable/oncetable/runtime/outbox"
	"github.com/oncetable/oncetable/runtime/store"
	"github.com/oncetable/oncetable/runtime/streampoll"
	"github.com/oncetable/oncetable/test/workload"
)

// TestMutantsAreCaught breaks the system under test on purpose, between the
// runtime and the engine, and requires the checker to report the damage: a
// workload that passes a broken system proves nothing when it passes the
// real one.
func TestMutantsAreCaught(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(*dynamodb.TransactWriteItemsInput)
		want   []string
		focus  []workload.Op
	}{
		{"idempotency record dropped from every transaction", func(in *dynamodb.TransactWriteItemsInput) {
			kept := in.TransactItems[:0]
			for _, it := range in.TransactItems {
				if it.Put != nil {
					if et, ok := it.Put.Item["EntityType"].(*types.AttributeValueMemberS); ok && et.Value == idempotency.EntityType {
						continue
					}
				}
				kept = append(kept, it)
			}
			in.TransactItems = kept
		}, []string{workload.InvAckedOnce, workload.InvKeyOnce}, nil},
		{"balance guard removed from debits", func(in *dynamodb.TransactWriteItemsInput) {
			for _, it := range in.TransactItems {
				if u := it.Update; u != nil && u.UpdateExpression != nil && u.ConditionExpression != nil && strings.Contains(*u.UpdateExpression, "-") {
					u.ConditionExpression = nil
					// the condition's placeholders are now unused, which DynamoDB refuses: keep only the update's
					u.ExpressionAttributeNames, u.ExpressionAttributeValues = usedOnly(*u.UpdateExpression, u.ExpressionAttributeNames, u.ExpressionAttributeValues)
				}
			}
		}, []string{workload.InvNegativeRead}, nil},
		{"platform leg dropped from every ledger entry", func(in *dynamodb.TransactWriteItemsInput) {
			withLegs(in, func(legs []types.AttributeValue) []types.AttributeValue { return legs[:1] })
		}, []string{workload.InvDoubleEntry}, nil},
		{"platform leg mis-signed on every ledger entry", func(in *dynamodb.TransactWriteItemsInput) {
			withLegs(in, func(legs []types.AttributeValue) []types.AttributeValue {
				m := legs[1].(*types.AttributeValueMemberM).Value
				n := m["amount"].(*types.AttributeValueMemberN).Value
				if amt, ok := strings.CutPrefix(n, "-"); ok {
					n = amt
				} else {
					n = "-" + n
				}
				m["amount"] = &types.AttributeValueMemberN{Value: n}
				return legs
			})
		}, []string{workload.InvDoubleEntry}, nil},
		{"refund guard removed (refunded + amount <= total)", func(in *dynamodb.TransactWriteItemsInput) {
			if puts(in, store.TypeRefund) {
				for _, it := range in.TransactItems {
					if u := it.Update; u != nil && strings.HasPrefix(u.Key["PK"].(*types.AttributeValueMemberS).Value, "ORDER#") {
						unguard(u)
					}
				}
			}
		}, []string{workload.InvRefundsWithinPaid}, []workload.Op{workload.OpCredit, workload.OpCreateOrder, workload.OpCharge, workload.OpSettle, workload.OpRefund}},
		{"capture guard removed (the hold still open, with its amount)", func(in *dynamodb.TransactWriteItemsInput) {
			if putsEntry(in, store.LedgerCapture) {
				for _, it := range in.TransactItems {
					if it.Update != nil {
						unguard(it.Update)
					}
				}
			}
		}, []string{workload.InvCaptureWithinHold}, []workload.Op{workload.OpAuthorize, workload.OpCapture}},
		{"balance guard removed from hold authorizations", func(in *dynamodb.TransactWriteItemsInput) {
			if puts(in, store.TypeHold) {
				for _, it := range in.TransactItems {
					if u := it.Update; u != nil && u.ConditionExpression != nil {
						noBalanceFloor(u)
					}
				}
			}
		}, []string{workload.InvAvailable}, []workload.Op{workload.OpAuthorize}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mutate := func(o *dynamodb.Options) {
				o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
					return st.Initialize.Add(middleware.InitializeMiddlewareFunc("mutant",
						func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
							if p, ok := in.Parameters.(*dynamodb.TransactWriteItemsInput); ok {
								tc.mutate(p)
							}
							return next.HandleInitialize(ctx, in)
						}), middleware.Before)
				})
			}
			// The reads before a refund's or a capture's write are slowed,
			// so requests racing on one order or hold both read before
			// either writes, as they do under production latency.
			slowReads := func(o *ddblocal.Options) {
				o.Faults = ddblocal.Faults{Latency: 50 * time.Millisecond, Operations: []string{"BatchGetItem"}}
			}
			d := 3 * time.Second
			if tc.focus != nil {
				d = 6 * time.Second // the races a guard protects against need paid orders or open holds first
			}
			res, err := workload.Run(context.Background(), workload.Config{Duration: d, Clients: 4, Users: 4,
				Seed: 3, NoFaults: true, Phase: time.Second, Focus: tc.focus, ClientOptions: []func(*dynamodb.Options){mutate},
				Engine: []func(*ddblocal.Options){slowReads}})
			if err != nil {
				t.Fatal(err)
			}
			got, atPoints := map[string]int{}, map[string]int{}
			for _, v := range res.Violations {
				got[v.Invariant]++
				if strings.HasPrefix(v.Detail, "at check point") {
					atPoints[v.Invariant]++
				}
			}
			t.Logf("violations %v, of them at the %d check points %v; %d requests, %d ledger entries, %d refunds, %d holds",
				got, res.CheckPoints, atPoints, len(res.History.Intents), len(res.State.Ledger), len(res.State.Refunds), len(res.State.Holds))
			if res.EventStats.Stalled != "" {
				t.Logf("the events pipeline stalled: %s", res.EventStats.Stalled)
			}
			for _, w := range tc.want {
				if got[w] == 0 {
					t.Errorf("mutant %q: violations %v, want some of %q", tc.name, got, w)
				}
			}
		})
	}
}

// puts reports whether a transaction puts an item of entity type et.
func puts(in *dynamodb.TransactWriteItemsInput, et string) bool {
	for _, it := range in.TransactItems {
		if it.Put != nil {
			if v, ok := it.Put.Item["EntityType"].(*types.AttributeValueMemberS); ok && v.Value == et {
				return true
			}
		}
	}
	return false
}

// putsEntry reports whether a transaction puts a ledger entry of kind.
func putsEntry(in *dynamodb.TransactWriteItemsInput, kind string) bool {
	for _, it := range in.TransactItems {
		if it.Put != nil {
			if v, ok := it.Put.Item["kind"].(*types.AttributeValueMemberS); ok && v.Value == kind && puts(&dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{it}}, store.TypeLedgerEntry) {
				return true
			}
		}
	}
	return false
}

// unguard removes an update's condition, keeping the placeholders its
// update expression still uses (DynamoDB refuses unused ones).
func unguard(u *types.Update) {
	u.ConditionExpression = nil
	u.ExpressionAttributeNames, u.ExpressionAttributeValues = usedOnly(*u.UpdateExpression, u.ExpressionAttributeNames, u.ExpressionAttributeValues)
}

// noBalanceFloor turns an update's "balance >= :v" into a condition every
// balance meets, leaving the rest of the condition (the hold's room in the
// profile) as it is.
func noBalanceFloor(u *types.Update) {
	for _, m := range regexp.MustCompile(`(#\w+) >= (:\w+)`).FindAllStringSubmatch(*u.ConditionExpression, -1) {
		if u.ExpressionAttributeNames[m[1]] == "balance" {
			u.ExpressionAttributeValues[m[2]] = &types.AttributeValueMemberN{Value: "-1000000000000"}
		}
	}
}

// withLegs rewrites the legs of every ledger entry the transaction puts.
func withLegs(in *dynamodb.TransactWriteItemsInput, f func([]types.AttributeValue) []types.AttributeValue) {
	for _, it := range in.TransactItems {
		if it.Put == nil {
			continue
		}
		if l, ok := it.Put.Item["legs"].(*types.AttributeValueMemberL); ok && len(l.Value) == 2 {
			l.Value = f(l.Value)
		}
	}
}

// usedOnly keeps the placeholders an expression uses.
func usedOnly(expr string, names map[string]string, values map[string]types.AttributeValue) (map[string]string, map[string]types.AttributeValue) {
	n, v := map[string]string{}, map[string]types.AttributeValue{}
	for k, x := range names {
		if contains(expr, k) {
			n[k] = x
		}
	}
	for k, x := range values {
		if contains(expr, k) {
			v[k] = x
		}
	}
	return n, v
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub && (i+len(sub) == len(s) || !isWord(s[i+len(sub)])) {
			return true
		}
	}
	return false
}

func isWord(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// TestEventMutantsAreCaught breaks the outbox on purpose, between the
// stream and the production publisher, and requires the events checker to
// report it.
func TestEventMutantsAreCaught(t *testing.T) {
	for _, tc := range []struct {
		name string
		wrap func(streampoll.Handler) streampoll.Handler
		want string
	}{
		{"debit records dropped", func(h streampoll.Handler) streampoll.Handler {
			return func(ctx context.Context, b events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
				var kept []events.DynamoDBEventRecord
				for _, r := range b.Records {
					if r.Change.NewImage["kind"].DataType() == events.DataTypeString && r.Change.NewImage["kind"].String() == "debit" {
						continue
					}
					kept = append(kept, r)
				}
				return h(ctx, events.DynamoDBEvent{Records: kept})
			}
		}, workload.InvEventDelivered},
		{"a redelivery with another amount", func(h streampoll.Handler) streampoll.Handler {
			return func(ctx context.Context, b events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
				if resp, err := h(ctx, b); err != nil || len(resp.BatchItemFailures) > 0 {
					return resp, err
				}
				changed := make([]events.DynamoDBEventRecord, len(b.Records))
				for i, r := range b.Records {
					im := maps.Clone(r.Change.NewImage)
					if _, ok := im["amount"]; ok {
						im["amount"] = events.NewNumberAttribute("1")
					}
					r.Change.NewImage = im
					changed[i] = r
				}
				return h(ctx, events.DynamoDBEvent{Records: changed})
			}
		}, workload.InvEventRedeliver},
		{"a credit published that was never committed", func(h streampoll.Handler) streampoll.Handler {
			return func(ctx context.Context, b events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
				recs := b.Records
				for _, r := range b.Records {
					if r.EventName == "INSERT" && r.Change.NewImage["kind"].DataType() == events.DataTypeString && r.Change.NewImage["kind"].String() == "credit" {
						im := maps.Clone(r.Change.NewImage)
						im["entryId"] = events.NewStringAttribute(im["entryId"].String() + "-phantom")
						r.Change.NewImage = im
						recs = append(append([]events.DynamoDBEventRecord(nil), b.Records...), r)
						break
					}
				}
				return h(ctx, events.DynamoDBEvent{Records: recs})
			}
		}, workload.InvEventCommitted},
		{"a payment's creation published after the order is paid", holdPaymentCreated, workload.InvEventOrder},
		{"a publisher that reorders a user's events across items", holdFirstLedgerEntry, workload.InvEventUserOrder},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := workload.Run(context.Background(), workload.Config{Duration: 2 * time.Second, Clients: 4, Users: 4,
				Seed: 3, NoFaults: true, Consumer: tc.wrap})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]int{}
			for _, v := range res.Violations {
				got[v.Invariant]++
			}
			if got[tc.want] == 0 {
				t.Errorf("mutant %q: violations %v, want some of %q (events %+v)", tc.name, got, tc.want, res.EventStats)
			}
		})
	}
}

// holdFirstLedgerEntry is a consumer that reorders: it holds back the
// first ledger entry of each user and publishes it after that user's next
// one, as the old publisher could when EventBridge refused an entry and
// only that entry was resent. Each item's own order is untouched.
func holdFirstLedgerEntry(h streampoll.Handler) streampoll.Handler {
	held, done := map[string]events.DynamoDBEventRecord{}, map[string]bool{}
	return func(ctx context.Context, b events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
		var recs []events.DynamoDBEventRecord
		for _, r := range b.Records {
			ev, ok, err := outbox.FromRecord(r)
			isLedger := err == nil && ok && ev.EntryID != ""
			switch {
			case !isLedger || done[ev.UserID]:
				recs = append(recs, r)
			case held[ev.UserID].EventID == "":
				held[ev.UserID] = r
			default:
				recs = append(recs, r, held[ev.UserID])
				delete(held, ev.UserID)
				done[ev.UserID] = true
			}
		}
		if len(recs) == 0 {
			return events.DynamoDBEventResponse{}, nil
		}
		return h(ctx, events.DynamoDBEvent{Records: recs})
	}
}

// holdPaymentCreated is a consumer that reorders one item's records: it
// holds back the order's MODIFY that gains a paymentId (PaymentCreated)
// and publishes it after that order's next record (settle's OrderPaid).
func holdPaymentCreated(h streampoll.Handler) streampoll.Handler {
	held := map[string]events.DynamoDBEventRecord{}
	return func(ctx context.Context, b events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
		var recs []events.DynamoDBEventRecord
		for _, r := range b.Records {
			ev, ok, err := outbox.FromRecord(r)
			switch {
			case err == nil && ok && ev.Type == outbox.PaymentCreated:
				held[ev.OrderID] = r
			case err == nil && ok && ev.Type == outbox.OrderPaid && held[ev.OrderID].EventID != "":
				recs = append(recs, r, held[ev.OrderID])
				delete(held, ev.OrderID)
			default:
				recs = append(recs, r)
			}
		}
		if len(recs) == 0 {
			return events.DynamoDBEventResponse{}, nil
		}
		return h(ctx, events.DynamoDBEvent{Records: recs})
	}
}

// TestIntruderMutantIsCaught: an API that takes the customer scope for the
// operator's lets the hostile customers through; the checker must say so.
func TestIntruderMutantIsCaught(t *testing.T) {
	res, err := workload.Run(context.Background(), workload.Config{Duration: 3 * time.Second, Clients: 4, Users: 4, Seed: 3, NoFaults: true,
		API: []func(*httpapi.Config){func(c *httpapi.Config) {
			c.Auth = localrun.OperatorAuth(httpapi.Auth{OperatorScope: httpapi.DefaultCustomerScope, CustomerScope: "mutant/none"})
		}}})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, v := range res.Violations {
		if v.Invariant == workload.InvIntruderRefused {
			n++
		}
	}
	if n == 0 {
		t.Errorf("customers acting as operators: no %q violation among %d", workload.InvIntruderRefused, len(res.Violations))
	}
}
