package stacks

import (
	"fmt"
	"sort"
	"strings"

	"github.com/oncetable/oncetable/runtime/httpapi"
	"github.com/oncetable/oncetable/stacks/envconfig"
)

// FlowWCU is the write capacity one first call of each money flow consumes,
// as docs/cost.md measures it (make bench: the "oncetable" rows of
// "Capacity and latency per call", transactional writes counted double as
// DynamoDB bills them). TestFlowWCUMatchesCostReport holds it to the page.
var FlowWCU = map[string]int{
	httpapi.FunctionCharge: 12,
	httpapi.FunctionDebit:  8,
	httpapi.FunctionSettle: 16,
}

// CapacityError says that an environment's route throttles admit more
// writes than its table may take: overload would surface as throttled
// writes and 5xx answers instead of API Gateway's 429.
type CapacityError struct {
	Env string
	// WorstWCU is the write units per second the money routes admit at
	// their throttled rates, the most expensive flows first, within the
	// stage's rate; Cap is the table's write limit; Flows explains the sum.
	WorstWCU, Cap int
	CapField      string
	Flows         []string
}

func (e *CapacityError) Error() string {
	return fmt.Sprintf("environment %q: %s: the money routes admit up to %d write units per second (%s; WCU per flow from docs/cost.md) "+
		"but the table takes at most %d: lower api.moneyRouteThrottleRatePerSecond or raise %s",
		e.Env, e.CapField, e.WorstWCU, strings.Join(e.Flows, " + "), e.Cap, e.CapField)
}

// CheckCapacity compares the environment's table write cap (on-demand
// maxWriteRequestUnits, or provisioned maxWrite) with the worst case its
// API throttles admit: every money route at its own rate, the most
// expensive flows first, the total within the stage's rate. An environment
// without a cap passes.
func CheckCapacity(cfg envconfig.Config) error {
	capUnits, field := cfg.Capacity.MaxWriteRequestUnits, "capacity.maxWriteRequestUnits"
	if cfg.Capacity.Mode == envconfig.Provisioned {
		capUnits, field = cfg.Capacity.MaxWrite, "capacity.maxWrite"
	}
	if capUnits == 0 {
		return nil
	}
	a := cfg.API
	perRoute := a.MoneyRouteThrottleRatePerSecond
	if perRoute == 0 {
		perRoute = max(1, a.ThrottleRatePerSecond/2) // paymentsapi's default
	}
	type flow struct {
		name string
		wcu  int
	}
	var flows []flow
	for _, r := range httpapi.Routes() {
		if wcu, ok := FlowWCU[r.Function]; ok {
			flows = append(flows, flow{r.Function, wcu})
		}
	}
	sort.SliceStable(flows, func(i, j int) bool { return flows[i].wcu > flows[j].wcu })
	left, worst := a.ThrottleRatePerSecond, 0
	var parts []string
	for _, f := range flows {
		rate := min(perRoute, left)
		if rate == 0 {
			break
		}
		left -= rate
		worst += rate * f.wcu
		parts = append(parts, fmt.Sprintf("%s %d/s × %d WCU", f.name, rate, f.wcu))
	}
	if worst > capUnits {
		return &CapacityError{Env: cfg.Name, WorstWCU: worst, Cap: capUnits, CapField: field, Flows: parts}
	}
	return nil
}
