package stacks_test

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/oncetable/oncetable/stacks"
	"github.com/oncetable/oncetable/stacks/envconfig"
)

// TestFlowWCUMatchesCostReport reads the WCU of each flow's first call
// from docs/cost.md (the "oncetable" rows of "Capacity and latency per
// call"): when make bench measures other figures, FlowWCU must follow.
func TestFlowWCUMatchesCostReport(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "docs", "cost.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	measured := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cells := strings.Split(sc.Text(), "|")
		if len(cells) < 6 {
			continue
		}
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		// | flow | case | implementation | WCU | RCU | ...
		if cells[2] == "first call" && cells[3] == "oncetable" {
			if n, err := strconv.Atoi(cells[4]); err == nil {
				measured[cells[1]] = n
			}
		}
	}
	for flow, wcu := range stacks.FlowWCU {
		if got, ok := measured[flow]; !ok || got != wcu {
			t.Errorf("docs/cost.md measures %d WCU (found: %v) for a first %s, FlowWCU says %d", got, ok, flow, wcu)
		}
	}
}

func TestCheckCapacity(t *testing.T) {
	all, err := envconfig.ReadCDKJSON(filepath.Join("..", "cdk.json"))
	if err != nil {
		t.Fatal(err)
	}
	for name, cfg := range all {
		if err := stacks.CheckCapacity(cfg); err != nil {
			t.Errorf("cdk.json %s: %v", name, err)
		}
	}
	// prod before this check: 2000 WRU under money routes of 200/s each
	// within a stage of 500/s.
	prod := all["prod"]
	prod.Capacity.MaxWriteRequestUnits = 2000
	prod.API.ThrottleRatePerSecond, prod.API.MoneyRouteThrottleRatePerSecond = 500, 200
	err = stacks.CheckCapacity(prod)
	var ce *stacks.CapacityError
	if !errors.As(err, &ce) || ce.WorstWCU != 200*16+200*12+100*8 || ce.Cap != 2000 || ce.CapField != "capacity.maxWriteRequestUnits" {
		t.Fatalf("got %v, want a CapacityError of 6400 against 2000", err)
	}
	want := `environment "prod": capacity.maxWriteRequestUnits: the money routes admit up to 6400 write units per second ` +
		`(settle 200/s × 16 WCU + charge 200/s × 12 WCU + debit 100/s × 8 WCU; WCU per flow from docs/cost.md) but the table ` +
		`takes at most 2000: lower api.moneyRouteThrottleRatePerSecond or raise capacity.maxWriteRequestUnits`
	if err.Error() != want {
		t.Errorf("got\n%s\nwant\n%s", err, want)
	}
	// Provisioned: the cap is maxWrite; the default money route rate is
	// half the stage's.
	staging := all["staging"]
	staging.API.MoneyRouteThrottleRatePerSecond = 0
	staging.API.ThrottleRatePerSecond = 100
	if err := stacks.CheckCapacity(staging); !errors.As(err, &ce) || ce.CapField != "capacity.maxWrite" || ce.WorstWCU != 50*16+50*12 {
		t.Errorf("staging with default money routes: got %v, want 1400 against maxWrite", err)
	}
	// No cap, nothing to check.
	prod.Capacity.MaxWriteRequestUnits = 0
	if err := stacks.CheckCapacity(prod); err != nil {
		t.Errorf("uncapped: %v", err)
	}
}
