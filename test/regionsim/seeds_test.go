package regionsim

import (
	"context"
	"runtime"
	"sync"
)

// simulateSeeds runs seeds 1..runs of base, GOMAXPROCS at a time, and
// returns their reports in seed order. Each run has an engine and a clock
// of its own, so running them side by side changes no run: a seed's
// report is the same as when it runs alone.
func simulateSeeds(ctx context.Context, base SimConfig, runs int) ([]SimReport, error) {
	reps := make([]SimReport, runs)
	errs := make([]error, runs)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), runs) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				cfg := base
				cfg.Seed = int64(i + 1)
				reps[i], errs[i] = Simulate(ctx, cfg)
			}
		}()
	}
	for i := range runs {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return reps, nil
}
