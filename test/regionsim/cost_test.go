package regionsim

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/home"
)

var updateGolden = flag.Bool("update", false, "rewrite the fence section of docs/cost.md")

const (
	costPage   = "../../docs/cost.md"
	fenceStart = "<!-- fence: go test ./test/regionsim -run TestFenceCost -update -->"
	fenceEnd   = "<!-- end of fence -->"
)

// measureFence commits each flow's transaction of the fenced design with
// and without the fence and renders the section of docs/cost.md that
// shows what the fence costs. The figures are the engine's capacity units
// and item counts, deterministic, so the section is a golden.
func measureFence(t *testing.T) string {
	ctx := context.Background()
	c := cluster(t, Fenced)
	open(t, c, 10000)
	for _, o := range []string{"o1", "o2"} {
		if err := c.OpenOrder(ctx, regionA, cell, o, "alice", 100); err != nil {
			t.Fatal(err)
		}
	}
	l, err := c.lease(ctx, regionA, cell)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString(fenceStart + `
## The fence (multi-Region)

With a home Region per cell (docs/multi-region.md), every money transaction carries one more item: a
ConditionCheck on the cell's ownership item (home Region and epoch). It writes nothing, so it is not
replicated; the engine charges it as a transactional write of an item under 1 KB, 2 WCU in the home Region
(DynamoDB counts every item of a transaction, checked or written, in its capacity).
Each item the transaction writes is also written once in every other Region: 1 replicated WCU (rWCU) per
item under 1 KB per other Region, as AWS prices global tables' replicated writes. Measured by
` + "`go test ./test/regionsim -run TestFenceCost`" + ` (` + "`-update`" + ` rewrites this section) on the flows of the
simulation's model (runtime/home and test/regionsim), on the embedded engine.

| flow | items written | WCU without the fence | WCU with the fence | the fence | rWCU per other Region |
|---|---:|---:|---:|---:|---:|
`)
	for _, op := range []Op{Charge, Debit, Settle} {
		var wcu [2]float64
		var written int
		for j, fenced := range []bool{false, true} {
			req := Request{Op: op, Cell: cell, User: "alice", Key: fmt.Sprintf("cost-%s-%v", op, fenced), Amount: 100}
			if op == Settle {
				req.Order = fmt.Sprintf("o%d", j+1)
			}
			res, items, err := c.prepare(ctx, regionA, req, l.Epoch)
			if err != nil || items == nil {
				t.Fatalf("%s: %+v, %v", op, res, err)
			}
			written = items.Len()
			if fenced {
				if err := home.Fence(items, Table, l); err != nil {
					t.Fatal(err)
				}
			}
			in := items.Input()
			in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
			out, err := c.DB[regionA].TransactWriteItems(ctx, in)
			if err != nil {
				t.Fatalf("%s: %v", op, err)
			}
			for _, cc := range out.ConsumedCapacity {
				wcu[j] += aws.ToFloat64(cc.CapacityUnits)
			}
		}
		fmt.Fprintf(&b, "| %s | %d | %g | %g | %+g | %d |\n", op, written, wcu[0], wcu[1], wcu[1]-wcu[0], written)
	}
	b.WriteString("\n" + fenceEnd)
	return b.String()
}

// TestFenceCost pins what the fence costs and keeps the section of
// docs/cost.md that shows it true.
func TestFenceCost(t *testing.T) {
	section := measureFence(t)
	page, err := os.ReadFile(costPage)
	if err != nil {
		t.Fatal(err)
	}
	var want string
	if start, end := strings.Index(string(page), fenceStart), strings.Index(string(page), fenceEnd); start >= 0 && end > start {
		want = string(page)[:start] + section + string(page)[end+len(fenceEnd):]
	} else {
		want = strings.TrimRight(string(page), "\n") + "\n\n" + section + "\n"
	}
	if *updateGolden {
		if err := os.WriteFile(costPage, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if want != string(page) {
		t.Errorf("docs/cost.md's fence section differs from the measurement; rewrite it with go test ./test/regionsim -run TestFenceCost -update\ngot:\n%s", section)
	}
	if !strings.Contains(section, "| debit | 3 | 6 | 8 | +2 | 3 |") {
		t.Errorf("the fence section lacks the debit row | debit | 3 | 6 | 8 | +2 | 3 |:\n%s", section)
	}
}

// BenchmarkFence is the latency of a debit's TransactWriteItems with and
// without the fence, in process on the engine.
func BenchmarkFence(b *testing.B) {
	for _, fenced := range []bool{false, true} {
		name := "unfenced"
		if fenced {
			name = "fenced"
		}
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			c, err := NewCluster(ctx, Config{Regions: []string{regionA, regionB}, Design: Fenced})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			if err := c.InitCell(ctx, cell, regionA, map[string]int64{"alice": int64(b.N) + 1}); err != nil {
				b.Fatal(err)
			}
			l, err := c.lease(ctx, regionA, cell)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				_, items, err := c.prepare(ctx, regionA, Request{Op: Debit, Cell: cell, User: "alice", Key: fmt.Sprintf("b%d", i), Amount: 1}, l.Epoch)
				if err != nil || items == nil {
					b.Fatal(err)
				}
				if fenced {
					if err := home.Fence(items, Table, l); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				if _, err := c.DB[regionA].TransactWriteItems(ctx, items.Input()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
