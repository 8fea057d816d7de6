package scalebench_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/oncetable/oncetable/test/population"
	"github.com/oncetable/oncetable/test/scalebench"
)

// TestRampFindsTheHotPartition ramps charge on v1 and on the sharded queue
// with partition limits so low (DynamoDB's ÷ 200) that throttling starts at
// a few calls per second, which any machine offers: the v1 ramp must
// throttle, name the single index partition that takes every charge
// (Unprocessed PAYMENT#UNPROCESSED or GSI1 ORDERSTATUS#created: each gets 2
// write units a charge) with its ThrottlingReason, and the page must say
// so.
func TestRampFindsTheHotPartition(t *testing.T) {
	if testing.Short() {
		t.Skip("ramps for a few seconds")
	}
	cfg := scalebench.Config{
		Population: population.Config{Users: 60, Merchants: 3, ProductsPerMerchant: 3, Orders: 240},
		Scale:      200, Burst: time.Second, Warm: 300 * time.Millisecond, Window: time.Second,
		StartRate: 1, MaxRate: 16,
		Only: func(variant, name string) bool { return variant == "v1" && name == "Charge" },
	}
	rep, err := scalebench.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, ok := rep.Find("v1", "Charge")
	if !ok {
		t.Fatal("no result for v1 Charge")
	}
	if res.Onset == 0 {
		t.Fatalf("charge did not throttle up to %.0f calls/s at 15 WCU per partition: %+v", cfg.MaxRate, res.Steps)
	}
	if k := res.TopKey(); !strings.Contains(k, "PAYMENT#UNPROCESSED") && !strings.Contains(k, "ORDERSTATUS#created") {
		t.Errorf("the key that throttles is %q, want the queue's or the created orders' index partition", k)
	}
	if r := res.Reasons(); !strings.Contains(r, "ThrottlingError") {
		t.Errorf("reasons %q, want the transaction's ThrottlingError cancellation", r)
	}
	if res.Twice == nil || res.Twice.Throttled == 0 {
		t.Errorf("no throttled step at twice the onset: %+v", res.Twice)
	}
	dir := t.TempDir()
	if err := rep.Write(filepath.Join(dir, "scale.md"), filepath.Join(dir, "scale.svg")); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteJSON(filepath.Join(dir, "scale.json")); err != nil {
		t.Fatal(err)
	}
	again, err := scalebench.ReadJSON(filepath.Join(dir, "scale.json"))
	if err != nil {
		t.Fatal(err)
	}
	if res2, _ := again.Find("v1", "Charge"); res2.TopKey() != res.TopKey() || res2.Twice == nil {
		t.Errorf("scale.json read back: key %q, twice %v; want %q", res2.TopKey(), res2.Twice, res.TopKey())
	}
	md, _ := os.ReadFile(filepath.Join(dir, "scale.md"))
	svg, _ := os.ReadFile(filepath.Join(dir, "scale.svg"))
	if !strings.Contains(string(md), "| v1 | Charge | **") || !strings.Contains(string(svg), "v1 Charge") {
		t.Errorf("the report does not show the ramp:\n%s", md)
	}
}

// TestPlatformTotalsShardsDoNotThrottleWhereOneItemDoes ramps the
// totaller's writes with partition limits at DynamoDB's ÷ 200 (5 WCU a
// second): on one platform item (2 write units an entry) it must throttle
// on that item within the ramp, and on the default shards not at all up
// to the same rate; the page must show both rows.
func TestPlatformTotalsShardsDoNotThrottleWhereOneItemDoes(t *testing.T) {
	if testing.Short() {
		t.Skip("ramps for a few seconds")
	}
	cfg := scalebench.Config{
		Population: population.Config{Users: 60, Merchants: 3, ProductsPerMerchant: 3, Orders: 60},
		Scale:      200, Burst: time.Second, Warm: 300 * time.Millisecond, Window: time.Second,
		StartRate: 1, MaxRate: 8,
		Only: func(_, name string) bool { return name == scalebench.PlatformTotals },
	}
	rep, err := scalebench.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	single, ok := rep.Find("platform-1", scalebench.PlatformTotals)
	if !ok {
		t.Fatal("no result for the single platform item")
	}
	sharded, ok := rep.Find("v1", scalebench.PlatformTotals)
	if !ok {
		t.Fatal("no result for the sharded totals")
	}
	for _, res := range []scalebench.Result{single, sharded} {
		for _, s := range res.Steps {
			if s.Failed > 0 {
				t.Errorf("%s at %.0f/s: %d calls failed: %s", res.Variant, s.Rate, s.Failed, s.FailedSample)
			}
		}
	}
	if single.Onset == 0 {
		t.Fatalf("one platform item did not throttle up to %.0f entries/s at 5 WCU per partition: %+v", cfg.MaxRate, single.Steps)
	}
	if k := single.TopKey(); !strings.Contains(k, "PLATFORM#funding#00") {
		t.Errorf("the key that throttles is %q, want the funding account's one total item", k)
	}
	if sharded.Onset != 0 || sharded.Clean < cfg.MaxRate {
		t.Errorf("the sharded totals: onset %.1f, clean up to %.1f; want no throttling up to %.0f", sharded.Onset, sharded.Clean, cfg.MaxRate)
	}
	if sharded.UnitsPerCall <= 0 {
		t.Errorf("capacity per call %.2f, want the totaller's write units", sharded.UnitsPerCall)
	}
	dir := t.TempDir()
	if err := rep.Write(filepath.Join(dir, "scale.md"), filepath.Join(dir, "scale.svg")); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "scale.md"))
	for _, want := range []string{"## The platform accounts' totals", "| one item (`platform-1`) | **", "shards (`v1`) | none up to"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("the page lacks %q:\n%s", want, md)
		}
	}
}
