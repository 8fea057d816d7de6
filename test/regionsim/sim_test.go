package regionsim

import (
	"context"
	"flag"
	"testing"
)

var simRuns = flag.Int("sim-runs", 0, "seeded runs per configuration of TestSimulation (0: the short version)")

// shortSeeds is the short version's seeds per configuration, the runs
// make test makes: 16 in all.
const shortSeeds = 4

// configs are the simulated configurations: 2 and 3 Regions, freeze and
// takeover.
func configs() []SimConfig {
	var out []SimConfig
	for _, regions := range []int{2, 3} {
		for _, mode := range []Unplanned{Freeze, Takeover} {
			out = append(out, SimConfig{Regions: regions, Design: Fenced, Unplanned: mode})
		}
	}
	return out
}

// TestSimulation runs the fenced design through seeded faults and fails
// on any violation the audit finds.
func TestSimulation(t *testing.T) {
	runs := *simRuns
	if runs == 0 {
		runs = shortSeeds
	}
	for _, base := range configs() {
		reps, err := simulateSeeds(context.Background(), base, runs)
		if err != nil {
			t.Fatal(err)
		}
		for i, rep := range reps {
			if len(rep.Violations) > 0 {
				t.Errorf("%d Regions, %s, seed %d: %q", base.Regions, base.Unplanned, i+1, rep.Violations)
			}
		}
	}
}

// TestSimulationFindsMutants: with the fence check taken out of the
// transaction, or the drain proof skipped in planned failover, the short
// version's runs (the same seeds and configurations) find a violation.
func TestSimulationFindsMutants(t *testing.T) {
	for name, m := range map[string]Mutants{"no fence": {NoFence: true}, "no drain proof": {NoDrainProof: true}} {
		t.Run(name, func(t *testing.T) {
			for seed := int64(1); seed <= shortSeeds; seed++ {
				for _, base := range configs() {
					cfg := base
					cfg.Seed, cfg.Mutants = seed, m
					rep, err := Simulate(context.Background(), cfg)
					if err != nil {
						t.Fatal(err)
					}
					if len(rep.Violations) > 0 {
						t.Logf("found by %d Regions, %s, seed %d: %s", cfg.Regions, cfg.Unplanned, seed, rep.Violations[0])
						return
					}
				}
			}
			t.Errorf("the short version found no violation in %d seeds of each configuration", shortSeeds)
		})
	}
}
