package idempotency_test

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/oncetable/oncetable/runtime/ddbtest"
	"github.com/oncetable/oncetable/runtime/idempotency"
)

// TestCostPerCall measures requests and capacity units per call of each
// mode on the wallets table (a transfer: two guarded Updates and the
// record), the figures docs/cost.md and docs/idempotency.md cite. Failed
// conditional writes report no capacity (in DynamoDB as in the engine), so
// a replay's units are not observable; its requests are.
func TestCostPerCall(t *testing.T) {
	var cap ddbtest.Capacity
	w := newWorld(t)
	w.db = dynamodb.New(w.db.Options(), cap.Option)
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
			cap.Reset()
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
			wcu, rcu := cap.Units()
			t.Logf("| %s | %s | %s | %.1f | %.1f |", c.name, phase, got, wcu, rcu)
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
