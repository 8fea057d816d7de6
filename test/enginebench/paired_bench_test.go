package enginebench_test

import (
	"flag"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/oncetable/oncetable/test/enginebench"
)

var (
	pairedRounds = flag.Int("paired-rounds", 15, "rounds of the paired engine ÷ SDK-alone measurement (BenchmarkPaired)")
	pairedSlice  = flag.Duration("paired-slice", 200*time.Millisecond, "target length of one slice of the paired measurement")
	pairedProcs  = flag.Int("paired-procs", 0, "GOMAXPROCS during the paired measurement (0 leaves it as for the other benchmarks)")
)

// pairedGOMAXPROCS is the GOMAXPROCS the paired measurement runs with.
func pairedGOMAXPROCS() int {
	if *pairedProcs > 0 {
		return *pairedProcs
	}
	return runtime.GOMAXPROCS(0)
}

// BenchmarkPaired measures every row on the engine in-process and on the
// SDK client alone in alternating slices (enginebench.MeasurePaired), on
// the tables BenchmarkEngine prepared, so that the ratio of the two is not
// the drift of a shared machine between two cells. Each row is measured
// once per process, however often testing calls it: its figures are the
// custom metrics, not ns/op.
func BenchmarkPaired(b *testing.B) {
	ps := allPeers(b)
	engine, ceiling := find(ps, enginebench.PeerEngineInproc), find(ps, enginebench.PeerSDKAlone)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(pairedGOMAXPROCS()))
	for _, w := range workloads() {
		b.Run(w.op, func(b *testing.B) {
			pr, ok := results.GetPaired(w.op)
			if !ok {
				var err error
				if pr, err = measurePaired(w, engine, ceiling); err != nil {
					b.Fatal(err)
				}
				results.PutPaired(pr)
			}
			q1, q3 := pr.Quartiles()
			b.ReportMetric(pr.Median(), "median-ratio")
			b.ReportMetric(q1, "q1-ratio")
			b.ReportMetric(q3, "q3-ratio")
			b.ReportMetric(float64(len(pr.Rounds)), "rounds")
		})
	}
}

// measurePaired sizes one slice for each peer, then runs the rounds.
func measurePaired(w workload, engine, ceiling *enginebench.Peer) (enginebench.Paired, error) {
	nEngine, err := calibrate(w, engine)
	if err != nil {
		return enginebench.Paired{}, err
	}
	nCeiling, err := calibrate(w, ceiling)
	if err != nil {
		return enginebench.Paired{}, err
	}
	load := loadAverage()
	pr, err := enginebench.MeasurePaired(w.op, *pairedRounds, func(isEngine bool) (enginebench.Slice, error) {
		if isEngine {
			return slice(w, engine, nEngine)
		}
		return slice(w, ceiling, nCeiling)
	})
	pr.Load = load
	return pr, err
}

// calibrate finds how many operations of w on p take about -paired-slice;
// the runs it times also warm p up.
func calibrate(w workload, p *enginebench.Peer) (int, error) {
	for n := 32; ; n *= 4 {
		s, err := slice(w, p, n)
		if err != nil {
			return 0, err
		}
		if s.Wall >= *pairedSlice/4 || n >= 1<<20 {
			return enginebench.SliceOps(s.N, s.Wall, *pairedSlice), nil
		}
	}
}

// slice times n operations of a fresh run of w on p, armed, after a
// garbage collection (as testing collects before each benchmark run).
func slice(w workload, p *enginebench.Peer, n int) (enginebench.Slice, error) {
	op, err := w.on(p)
	if err != nil {
		return enginebench.Slice{}, err
	}
	runtime.GC()
	disarm := func() {}
	if p.Arm != nil {
		disarm = p.Arm()
	}
	wall, _, err := enginebench.Run(n, w.workers, op)
	disarm()
	if err != nil {
		return enginebench.Slice{}, fmt.Errorf("%s on %s: %w", w.op, p.Name, err)
	}
	return enginebench.Slice{N: n, Wall: wall}, nil
}
