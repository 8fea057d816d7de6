package regionsim

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

var simReport = flag.String("sim-report", "", "TestSimulationReport: the page whose simulation section it rewrites (a copy of docs/multi-region.md)")

const (
	simStart = "<!-- simulation: make bench-regions -->"
	simEnd   = "<!-- end of simulation -->"
	// forwardRTT is the round trip between Regions that the figures of a
	// forwarded request assume (us-east-1 to us-west-2 is of this order).
	forwardRTT = 70 * time.Millisecond
)

// tally is the figures of one configuration over its runs.
type tally struct {
	cfg                                                             SimConfig
	runs, violating                                                 int
	requests, acked, refused, forwarded, hops, planned, takeovers   int
	crashes, late, duplicate                                        int
	lateAmount, duplicateAmount                                     int64
	doubles, negatives, mismatches, lost, diverged, wrongQuarantine int
	plannedUnwritable, takeoverUnwritable                           time.Duration
	firstViolation                                                  string
}

func (t *tally) add(r SimReport) {
	t.runs++
	t.requests += r.Requests
	t.acked += r.Acked
	t.refused += r.Refused
	t.forwarded += r.Forwarded
	t.hops += r.Hops
	t.planned += r.Planned
	t.takeovers += r.Takeovers
	t.crashes += r.Crashes
	t.plannedUnwritable += r.PlannedUnwritable
	t.takeoverUnwritable += r.TakeoverUnwritable
	for _, q := range r.Quarantined {
		if q.Reason == "duplicate" {
			t.duplicate++
			t.duplicateAmount += abs(q.Amount)
		} else {
			t.late++
			t.lateAmount += abs(q.Amount)
		}
	}
	if len(r.Violations) > 0 {
		t.violating++
		if t.firstViolation == "" {
			t.firstViolation = fmt.Sprintf("seed %d: %s", r.Config.Seed, r.Violations[0])
		}
	}
	for _, v := range r.Violations {
		switch {
		case strings.Contains(v, "applied") && strings.Contains(v, "times"), strings.Contains(v, "paid") && strings.Contains(v, "times"):
			t.doubles++
		case strings.Contains(v, "below zero"), strings.Contains(v, "'s balance at epoch"):
			t.negatives++
		case strings.Contains(v, "its balance is"):
			t.mismatches++
		case strings.Contains(v, "is lost"), strings.Contains(v, "not live and not quarantined"):
			t.lost++
		case strings.Contains(v, "replicas differ"):
			t.diverged++
		case strings.Contains(v, "never taken over"):
			t.wrongQuarantine++
		}
	}
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

func per(d time.Duration, n int) string {
	if n == 0 {
		return "none"
	}
	return (d / time.Duration(n)).Round(10 * time.Millisecond).String()
}

// TestSimulationReport runs -sim-runs seeds of every configuration and
// rewrites the simulation section of the page -sim-report names; it is
// make bench-regions, and is skipped without -sim-report.
func TestSimulationReport(t *testing.T) {
	if *simReport == "" {
		t.Skip("make bench-regions sets -sim-report")
	}
	runs := max(*simRuns, 1)
	var tallies []*tally
	start := time.Now()
	for _, base := range configs() {
		tl := &tally{cfg: base}
		reps, err := simulateSeeds(context.Background(), base, runs)
		if err != nil {
			t.Fatal(err)
		}
		for _, rep := range reps {
			tl.add(rep)
		}
		tallies = append(tallies, tl)
	}
	wall := time.Since(start)
	total := runs * len(tallies)
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n## Simulation results\n\n", simStart)
	fmt.Fprintf(&b, "`make bench-regions` (BENCH_REGIONS_RUNS=%d): %d seeded runs, %d of each configuration, %d steps each, in %s on %d CPUs (GOMAXPROCS %d): **%.1f runs per second**.\n\n",
		runs, total, runs, SimConfig{}.stepsOrDefault(), wall.Round(time.Second), runtime.NumCPU(), runtime.GOMAXPROCS(0), float64(total)/wall.Seconds())
	b.WriteString("| configuration | runs | runs with a violation | double applies | negative balances | ledger mismatches | acknowledged movements lost | replicas differing | quarantined without takeover |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, tl := range tallies {
		fmt.Fprintf(&b, "| %d Regions, %s | %d | %d | %d | %d | %d | %d | %d | %d |\n", tl.cfg.Regions, tl.cfg.Unplanned, tl.runs, tl.violating,
			tl.doubles, tl.negatives, tl.mismatches, tl.lost, tl.diverged, tl.wrongQuarantine)
	}
	b.WriteString("\nWhat the runs did:\n\n| configuration | requests | acknowledged | refused (503, unreachable) | forwarded to the home | retries | crashes | planned failovers | takeovers | quarantined late (amount) | quarantined duplicates (amount) |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, tl := range tallies {
		fmt.Fprintf(&b, "| %d Regions, %s | %d | %d | %d | %d | %d | %d | %d | %d | %d (%d) | %d (%d) |\n", tl.cfg.Regions, tl.cfg.Unplanned,
			tl.requests, tl.acked, tl.refused, tl.forwarded, tl.hops, tl.crashes, tl.planned, tl.takeovers, tl.late, tl.lateAmount, tl.duplicate, tl.duplicateAmount)
	}
	b.WriteString("\nRecovery, in simulated time:\n\n| configuration | cell unwritable per planned failover (mean) | home unreachable to takeover (mean) | movements quarantined late per takeover |\n|---|---:|---:|---:|\n")
	for _, tl := range tallies {
		q := "n/a"
		if tl.takeovers > 0 {
			q = fmt.Sprintf("%.2f", float64(tl.late)/float64(tl.takeovers))
		}
		fmt.Fprintf(&b, "| %d Regions, %s | %s | %s | %s |\n", tl.cfg.Regions, tl.cfg.Unplanned, per(tl.plannedUnwritable, tl.planned), per(tl.takeoverUnwritable, tl.takeovers), q)
	}
	forwarded, acked := 0, 0
	for _, tl := range tallies {
		forwarded += tl.forwarded
		acked += tl.acked
	}
	fmt.Fprintf(&b, "\nA forwarded request costs one round trip between Regions more than a local one: %s at the stated %s RTT; %d of %d acknowledged requests (%.0f%%) were forwarded, because the simulated clients pick a Region at random. Clients routed to their cell's home Region pay nothing.\n",
		forwardRTT, forwardRTT, forwarded, acked, 100*float64(forwarded)/float64(max(acked, 1)))
	for _, tl := range tallies {
		if tl.firstViolation != "" {
			fmt.Fprintf(&b, "\nFirst violation, %d Regions, %s: %s\n", tl.cfg.Regions, tl.cfg.Unplanned, tl.firstViolation)
		}
	}
	b.WriteString("\n" + simEnd)
	page, err := os.ReadFile(*simReport)
	if err != nil {
		t.Fatal(err)
	}
	s, e := strings.Index(string(page), simStart), strings.Index(string(page), simEnd)
	if s < 0 || e < s {
		t.Fatalf("%s has no simulation section (%s … %s)", *simReport, simStart, simEnd)
	}
	out := string(page)[:s] + b.String() + string(page)[e+len(simEnd):]
	if err := os.WriteFile(*simReport, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Log(b.String())
	for _, tl := range tallies {
		if tl.violating > 0 {
			t.Errorf("%d Regions, %s: %d runs with a violation; first: %s", tl.cfg.Regions, tl.cfg.Unplanned, tl.violating, tl.firstViolation)
		}
	}
}
