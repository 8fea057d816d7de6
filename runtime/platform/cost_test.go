package platform_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/internal/dbtest"
	"github.com/oncetable/oncetable/runtime/platform"
)

// metered sums the write units the engine reports for each transaction.
type metered struct {
	*dynamodb.Client
	mu    sync.Mutex
	units float64
	calls int
}

func (m *metered) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	out, err := m.Client.TransactWriteItems(ctx, in, optFns...)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls++
	if err == nil {
		for _, c := range out.ConsumedCapacity {
			m.units += aws.ToFloat64(c.CapacityUnits)
		}
	}
	return out, err
}

var update = flag.Bool("update", false, "rewrite the platform totals section of docs/cost.md")

const (
	costPage   = "../../docs/cost.md"
	costsStart = "<!-- platform totals: go test ./runtime/platform -run TestTotallerCost -update -->"
	costsEnd   = "<!-- end of platform totals -->"
)

// TestTotallerCost pins what totalling costs per entry (docs/cost.md): a
// transaction writes each entry (2 units, an item under 1 KB in a
// transaction) and one total item per platform account it touches (2
// units each), so a full batch costs just over 2 units an entry and a
// batch of one entry 4.
func TestTotallerCost(t *testing.T) {
	var rows []string
	for _, tc := range []struct {
		name         string
		entries      int
		kinds        []string
		transactions int
		units        float64
	}{
		{"a batch of one credit", 1, []string{"credit"}, 1, 4},
		{"a full transaction of every kind", platform.MaxEntriesPerTransaction, allKinds, 1, 2 * (platform.MaxEntriesPerTransaction + 4)},
		{"a batch of 100 credits", 100, []string{"credit"}, 2, 2*100 + 2*2},
	} {
		rows = append(rows, fmt.Sprintf("| %s | %d | %d | %g | %.2f |", tc.name, tc.entries, tc.transactions, tc.units, tc.units/float64(tc.entries)))
		t.Run(tc.name, func(t *testing.T) {
			env := dbtest.New(t)
			_, batch := ledger(t, env, tc.entries, tc.kinds...)
			m := &metered{Client: env.Client}
			handle(t, platform.New(m, func(o *platform.Options) { o.Table = env.Table }), batch)
			if m.calls != tc.transactions || m.units != tc.units {
				t.Fatalf("%d transactions of %.0f write units, want %d of %.0f", m.calls, m.units, tc.transactions, tc.units)
			}
			t.Logf("%d entries: %.2f write units per entry", tc.entries, m.units/float64(tc.entries))
		})
	}
	section := costsStart + `
## Platform totals

The platform totaller (runtime/platform) adds each ledger entry's platform legs to its account's stored total
after the flow committed, from the table's stream, in transactions of up to 92 entries: each entry is marked
totalled (2 WCU: an item under 1 KB in a transaction) and each platform account the transaction touches gets one
ADD on one shard of its total (2 WCU each), so the flows themselves pay nothing. Measured by
` + "`go test ./runtime/platform -run TestTotallerCost`" + ` (` + "`-update`" + ` rewrites this section) on the
embedded engine.

| batch | entries | transactions | WCU | WCU per entry |
|---|---:|---:|---:|---:|
` + strings.Join(rows, "\n") + `

A stream batch of the default 100 records holds fewer entries than records (profiles, orders and records are
stream records too), so in production a transaction carries what one batch inserted: between 4 WCU for a lone
entry and just over 2 WCU per entry at full batches. The mark is a MODIFY of the entry, one more stream record,
which the events mapping's filter drops without invoking its function (it admits a ledger entry's INSERT only).
` + costsEnd
	page, err := os.ReadFile(costPage)
	if err != nil {
		t.Fatal(err)
	}
	var want string
	if start, end := strings.Index(string(page), costsStart), strings.Index(string(page), costsEnd); start >= 0 && end > start {
		want = string(page)[:start] + section + string(page)[end+len(costsEnd):]
	} else {
		want = strings.TrimRight(string(page), "\n") + "\n\n" + section + "\n"
	}
	if *update {
		if err := os.WriteFile(costPage, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if string(page) != want {
		t.Errorf("docs/cost.md's platform totals section is not what the totaller costs: go test ./runtime/platform -run TestTotallerCost -update")
	}
}
