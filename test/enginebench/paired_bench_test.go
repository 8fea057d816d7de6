package enginebench_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/oncetable/oncetable/test/enginebench"
	"github.com/oncetable/oncetable/test/machine"
)

var (
	pairedRounds = flag.Int("paired-rounds", 15, "rounds of the paired engine ÷ SDK-alone measurement (BenchmarkPaired)")
	pairedSlice  = flag.Duration("paired-slice", 200*time.Millisecond, "target length of one slice of the paired measurement")
	pairedProcs  = flag.Int("paired-procs", 0, "GOMAXPROCS during the paired measurement (0 leaves it as for the other benchmarks)")
	pairedOut    = flag.String("paired-out", "", "write the paired measurement of this process to this file (JSON) after the benchmarks")
	pairedIn     = flag.String("paired-in", "", "take the paired measurement from this file (written by -paired-out) instead of measuring it here")
)

// pairedGOMAXPROCS is the GOMAXPROCS the paired measurement runs with.
func pairedGOMAXPROCS() int {
	if *pairedProcs > 0 {
		return *pairedProcs
	}
	return runtime.GOMAXPROCS(0)
}

// BenchmarkPaired measures every row on the engine in-process and on the
// SDK client alone in alternating slices (enginebench.MeasurePaired), so
// that the ratio of the two is not the drift of a shared machine between
// two cells. It starts only those two peers: run by itself
// (-bench '^BenchmarkPaired$', as make bench-engine does) its process holds
// only their tables, as a user's process would; after BenchmarkEngine in
// the same process it uses the tables that prepared. Each row is measured
// once per process, however often testing calls it, and not at all with
// -paired-in: its figures are the custom metrics, not ns/op.
func BenchmarkPaired(b *testing.B) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(pairedGOMAXPROCS()))
	for _, w := range workloads() {
		b.Run(w.op, func(b *testing.B) {
			pr, ok := results.GetPaired(w.op)
			if !ok && *pairedIn != "" {
				b.Skipf("%s has no row %s", *pairedIn, w.op)
			}
			if !ok {
				var err error
				if pr, err = measurePaired(w, pairedPeer(b, enginebench.PeerEngineInproc), pairedPeer(b, enginebench.PeerSDKAlone)); err != nil {
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

// pairedPeer starts (once) and returns the named peer alone.
func pairedPeer(b *testing.B, name string) *enginebench.Peer {
	p := find(startPeers(b, name), name)
	if p == nil {
		b.Fatalf("%s: %s", name, peerErr[name])
	}
	return p
}

// loadedPaired is the run read from -paired-in.
var loadedPaired *enginebench.PairedRun

// loadPaired records the rows of the run in path, if any.
func loadPaired(path string) error {
	if path == "" {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	run, err := enginebench.ReadPairedRun(f)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	for _, pr := range run.Rows {
		results.PutPaired(pr)
	}
	loadedPaired = &run
	return nil
}

// pairedRun is the paired measurement the report shows: the one read from
// -paired-in, else this process's.
func pairedRun() enginebench.PairedRun {
	if loadedPaired != nil {
		return *loadedPaired
	}
	return enginebench.PairedRun{Rows: results.AllPaired(), Slice: *pairedSlice, GOMAXPROCS: pairedGOMAXPROCS(), GOGC: gogc(), Peers: startedPeers()}
}

// savePaired writes this process's paired measurement to path.
func savePaired(path string) error {
	run := pairedRun()
	if len(run.Rows) == 0 {
		return errors.New("no paired measurement in this run (-bench BenchmarkPaired)")
	}
	var buf bytes.Buffer
	if err := enginebench.WritePairedRun(&buf, run); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// setPairedEnv describes run in env.
func setPairedEnv(env *enginebench.Environment, run enginebench.PairedRun) {
	env.PairedSlice, env.PairedProcs, env.PairedGOGC, env.PairedAlone = run.Slice, run.GOMAXPROCS, run.GOGC, run.Alone()
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
	load := machine.Load()
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
