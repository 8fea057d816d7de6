package idempotency_test

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/oncetable/oncetable/runtime/idempotency"
)

// capacity sums the capacity DynamoDB reports, asking every request for
// ReturnConsumedCapacity=TOTAL.
type capacity struct {
	mu       sync.Mutex
	wcu, rcu float64
}

func (c *capacity) reset() { c.mu.Lock(); c.wcu, c.rcu = 0, 0; c.mu.Unlock() }

func (c *capacity) option(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
		return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("capacity",
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				total := types.ReturnConsumedCapacityTotal
				switch p := in.Parameters.(type) {
				case *dynamodb.TransactWriteItemsInput:
					p.ReturnConsumedCapacity = total
				case *dynamodb.PutItemInput:
					p.ReturnConsumedCapacity = total
				case *dynamodb.UpdateItemInput:
					p.ReturnConsumedCapacity = total
				case *dynamodb.DeleteItemInput:
					p.ReturnConsumedCapacity = total
				case *dynamodb.GetItemInput:
					p.ReturnConsumedCapacity = total
				}
				out, md, err := next.HandleInitialize(ctx, in)
				var cc []types.ConsumedCapacity
				switch r := out.Result.(type) {
				case *dynamodb.TransactWriteItemsOutput:
					cc = r.ConsumedCapacity
				case *dynamodb.PutItemOutput:
					cc = oneCapacity(r.ConsumedCapacity)
				case *dynamodb.UpdateItemOutput:
					cc = oneCapacity(r.ConsumedCapacity)
				case *dynamodb.DeleteItemOutput:
					cc = oneCapacity(r.ConsumedCapacity)
				case *dynamodb.GetItemOutput:
					cc = oneCapacity(r.ConsumedCapacity)
				}
				c.mu.Lock()
				for _, u := range cc {
					if u.WriteCapacityUnits != nil {
						c.wcu += *u.WriteCapacityUnits
					}
					if u.ReadCapacityUnits != nil {
						c.rcu += *u.ReadCapacityUnits
					}
				}
				c.mu.Unlock()
				return out, md, err
			}), middleware.After)
	})
}

func oneCapacity(c *types.ConsumedCapacity) []types.ConsumedCapacity {
	if c == nil {
		return nil
	}
	return []types.ConsumedCapacity{*c}
}

// TestCostPerCall measures requests and capacity units per call of each
// mode on the wallets table (a transfer: two guarded Updates and the
// record), the figures docs/cost.md and docs/idempotency.md cite. Failed
// conditional writes report no capacity (in DynamoDB as in the engine), so
// a replay's units are not observable; its requests are.
func TestCostPerCall(t *testing.T) {
	var cap capacity
	w := newWorld(t, func(o *idempotency.Options) {})
	w.db = dynamodb.New(w.db.Options(), cap.option)
	w.records = idempotency.NewTable(w.db, w.table, func(o *idempotency.Options) {
		o.Attributes, o.KeyPrefix, o.Expiry = names, "once#", time.Hour
	})
	ctx := context.Background()
	send := func(context.Context, string) (*idempotency.Effect, error) {
		return &idempotency.Effect{Status: 202, Header: http.Header{"Location": {"/messages/m1"}}, Body: []byte("queued")}, nil
	}
	cases := []struct {
		name string
		run  func(key string) error
		want string // requests per call
	}{
		{"transactional", func(k string) error { _, err := w.records.Do(ctx, request(k, "fp"), w.transfer("1")); return err }, "TransactWriteItems:1"},
		{"transactional, LegacyPartition", func(k string) error { _, err := w.records.Do(ctx, legacy(k, "fp"), w.transfer("1")); return err }, "TransactWriteItems:1"},
		{"external (Run)", func(k string) error { _, err := w.records.Run(ctx, request(k, "fp"), send); return err }, "PutItem:1 UpdateItem:1"},
		{"external, LegacyPartition", func(k string) error { _, err := w.records.Run(ctx, legacy(k, "fp"), send); return err }, "TransactWriteItems:1 UpdateItem:1"},
	}
	replays := map[string]string{
		"transactional": "TransactWriteItems:1", "transactional, LegacyPartition": "TransactWriteItems:1",
		"external (Run)": "PutItem:1", "external, LegacyPartition": "TransactWriteItems:1",
	}
	for i, c := range cases {
		key := fmt.Sprintf("cost-%d", i)
		for _, phase := range []string{"first call", "replay"} {
			w.reqs.Reset()
			cap.reset()
			if err := c.run(key); err != nil {
				t.Fatalf("%s %s: %v", c.name, phase, err)
			}
			got := requests(w.reqs.Snapshot())
			want := c.want
			if phase == "replay" {
				want = replays[c.name]
			}
			if got != want {
				t.Errorf("%s, %s: requests %s, want %s", c.name, phase, got, want)
			}
			t.Logf("| %s | %s | %s | %.1f | %.1f |", c.name, phase, got, cap.wcu, cap.rcu)
		}
	}
}

func requests(m map[string]int) string {
	var parts []string
	for op, n := range m {
		parts = append(parts, fmt.Sprintf("%s:%d", op, n))
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}
