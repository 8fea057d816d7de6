package scalebench

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/store"
	"github.com/oncetable/oncetable/test/machine"
	"github.com/oncetable/oncetable/test/population"
)

// Report is a whole run.
type Report struct {
	Config  Config
	Started time.Time
	// Took is the run's wall time; Load the load average at its start.
	Took      time.Duration
	LoadStart string
	Procs     int
	Stats     population.Stats
	// HotUserShare is the hottest user's share of the activity.
	HotUserShare, TopProductShare float64
	// UserShares are the activity shares of the hot users and the most
	// active ordinary one, in rank order.
	UserShares []float64
	// Loaded is how long loading took per variant.
	Loaded  map[string]time.Duration
	Results []Result
}

// Variants are the tables measured, and the patterns each ramps (nil:
// all).
var Variants = []struct {
	Variant
	Patterns []string
}{
	{Variant{Name: "v1", Stage: schema.OrdersV1}, nil},
	{Variant{Name: "v2", Stage: schema.OrdersV2}, []string{"OrdersByStatus", "CreateOrder", "Charge", "Settle", "OrderLifecycle"}},
	{Variant{Name: "v2+queue", Stage: schema.OrdersV2}, []string{"UnprocessedPayments", "Charge", "ProcessPayment", "OrderLifecycle"}},
	// v1's PlatformTotals runs on the default shards; this one on the
	// single platform item they replace.
	{Variant{Name: "platform-1", Stage: schema.OrdersV1, PlatformShards: 1}, []string{PlatformTotals}},
}

// Run measures every variant.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	cfg = cfg.WithDefaults()
	rep := &Report{Config: cfg, Started: time.Now().UTC(), LoadStart: machine.Load(), Procs: runtime.GOMAXPROCS(0), Loaded: map[string]time.Duration{}}
	for _, vp := range Variants {
		v := vp.Variant
		if v.Name == "v2+queue" {
			v.QueueShards = cfg.QueueShards
		}
		keep := func(name string) bool {
			if cfg.Only != nil {
				return cfg.Only(v.Name, name)
			}
			if vp.Patterns == nil {
				return true
			}
			for _, n := range vp.Patterns {
				if n == name {
					return true
				}
			}
			return false
		}
		if !anyKept(keep) {
			continue
		}
		b, err := open(ctx, cfg, v)
		if err != nil {
			return nil, err
		}
		rep.Loaded[v.Name] = b.loaded
		rep.Stats = b.pop.Stats()
		rep.HotUserShare, rep.TopProductShare = b.pop.UserActivity.Share(0), topShare(b.pop.ProductActivity)
		rep.UserShares = nil
		for i := range min(cfg.Population.HotUsers+1, b.pop.UserActivity.Len()) {
			rep.UserShares = append(rep.UserShares, b.pop.UserActivity.Share(i))
		}
		fmt.Fprintf(cfg.Log, "%s: loaded %d users, %d products, %d orders in %s\n", v.Name, rep.Stats.Users, rep.Stats.Products, rep.Stats.Orders, b.loaded.Round(time.Millisecond))
		for _, p := range b.patterns() {
			if !keep(p.name) {
				continue
			}
			rep.Results = append(rep.Results, b.ramp(ctx, p))
		}
		b.close()
	}
	rep.Took = time.Since(rep.Started)
	return rep, nil
}

// anyKept reports whether keep keeps any pattern of a variant.
func anyKept(keep func(string) bool) bool {
	for _, p := range store.New(nil).Patterns() {
		if keep(p.Name) {
			return true
		}
	}
	for _, n := range FlowNames {
		if keep(n) {
			return true
		}
	}
	return false
}

func topShare(w population.Weighted) float64 {
	top := 0.0
	for i := range w.Len() {
		top = max(top, w.Share(i))
	}
	return top
}
