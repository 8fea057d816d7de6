package enginebench_test

import (
	"bytes"
	"cmp"
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
	pairedRounds      = flag.Int("paired-rounds", 15, "rounds of the paired engine ÷ SDK-alone measurement (BenchmarkPaired)")
	pairedSlice       = flag.Duration("paired-slice", 200*time.Millisecond, "target length of one slice of the paired measurement")
	pairedProcs       = flag.Int("paired-procs", 0, "GOMAXPROCS during the paired measurement (0 leaves it as for the other benchmarks)")
	pairedOut         = flag.String("paired-out", "", "write the paired measurement of this process to this file (JSON) after the benchmarks")
	pairedIn          = flag.String("paired-in", "", "take the paired measurement from these runs (files written by -paired-out, separated by commas, or directories of them) instead of measuring it here")
	pairedDurableFlag = flag.Bool("paired-durable", false, "BenchmarkPaired also measures the durability rows (BenchmarkDurable's) after the in-memory rows")
	durableRoundsFlag = flag.Int("durable-rounds", 0, "rounds of each durability row (0: -paired-rounds)")
	pairedRegionsFlag = flag.Bool("paired-regions", false, "BenchmarkPaired also measures the two-Region row (PutItem on a global table of two Regions over one Region, and its replication) after the in-memory rows")
	regionsItems      = flag.Int("regions-items", 20_000, "items written for the two-Region row's replication figures")
)

// durableRounds is how many rounds each durability row runs.
func durableRounds() int { return cmp.Or(*durableRoundsFlag, *pairedRounds) }

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
// the same process it uses the tables that prepared. With -paired-durable
// it then measures the durability rows too (measureDurable), unless
// BenchmarkDurable did in this process. Each row is measured once per
// process, however often testing calls it, and not at all with -paired-in:
// its figures are the custom metrics, not ns/op.
func BenchmarkPaired(b *testing.B) {
	if *pairedIn != "" {
		b.Skip("the paired rows are read from -paired-in")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(pairedGOMAXPROCS()))
	for _, w := range workloads() {
		b.Run(w.op, func(b *testing.B) {
			pr, ok := results.GetPaired(w.op)
			if !ok {
				var err error
				if pr, err = measurePaired(w, pairedPeer(b, enginebench.PeerEngineInproc), pairedPeer(b, enginebench.PeerSDKAlone), *pairedRounds); err != nil {
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
	if *pairedDurableFlag {
		b.Run("durable", func(b *testing.B) {
			if len(results.AllDurable()) == 0 {
				for _, d := range measureDurable(b, durableRounds()) {
					results.PutDurable(d)
				}
			}
		})
	}
	if *pairedRegionsFlag {
		b.Run("regions", func(b *testing.B) {
			if results.Regions() == nil {
				results.PutRegions(measureRegions(b, durableRounds()))
			}
		})
	}
}

// measureRegions measures the two-Region row: PutItem on a global table of
// two Regions over one Region with the same stream, rounds rounds, then
// the replication figures of -regions-items items. Both peers are started
// for the row alone and closed after it.
func measureRegions(b *testing.B, rounds int) enginebench.RegionsRow {
	regions, one := enginebench.NewEngineRegions(), enginebench.NewEngineStream()
	defer regions.Close()
	defer one.Close()
	var put workload
	for _, w := range workloads() {
		if w.op == enginebench.OpPut {
			put = w
		}
	}
	pr, err := measurePaired(put, regions, one, rounds)
	if err != nil {
		b.Fatal(err)
	}
	repl, err := enginebench.MeasureReplication(*regionsItems)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%s ÷ %s: median %.3f over %d rounds (load %s); %d items replicated at %.0f/s, heap per item %.0f B in 1 Region, %.0f B in 2",
		enginebench.RegionPair[0], enginebench.RegionPair[1], pr.Median(), len(pr.Rounds), pr.Load, repl.Items, repl.PerSecond, repl.HeapPerItem[0], repl.HeapPerItem[1])
	return enginebench.RegionsRow{Paired: pr, Replication: repl}
}

// pairedPeer starts (once) and returns the named peer alone.
func pairedPeer(b *testing.B, name string) *enginebench.Peer {
	p := find(startPeers(b, name), name)
	if p == nil {
		b.Fatalf("%s: %s", name, peerErr[name])
	}
	return p
}

// loadedPaired are the runs read from -paired-in.
var loadedPaired enginebench.PairedRuns

// loadPaired reads the runs of list (-paired-in), if any.
func loadPaired(list string) error {
	if list == "" {
		return nil
	}
	runs, err := enginebench.ReadPairedRuns(list)
	if err != nil {
		return err
	}
	loadedPaired = runs
	return nil
}

// pairedRun is this process's paired measurement.
func pairedRun() enginebench.PairedRun {
	return enginebench.PairedRun{Rows: results.AllPaired(), Durable: results.AllDurable(), Regions: results.Regions(), Slice: *pairedSlice, GOMAXPROCS: pairedGOMAXPROCS(),
		GOGC: gogc(), Peers: startedPeers(), Load: startLoad}
}

// pairedRuns are the runs the report shows: those read from -paired-in,
// else this process's, if it measured any row.
func pairedRuns() enginebench.PairedRuns {
	if loadedPaired != nil {
		return loadedPaired
	}
	if run := pairedRun(); len(run.Rows) > 0 {
		return enginebench.PairedRuns{run}
	}
	return nil
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

// setPairedEnv describes runs in env (all runs share their settings), or
// this process's settings without runs.
func setPairedEnv(env *enginebench.Environment, runs enginebench.PairedRuns) {
	run := pairedRun()
	if len(runs) > 0 {
		run = runs[0]
	}
	env.PairedSlice, env.PairedProcs, env.PairedGOGC, env.PairedAlone = run.Slice, run.GOMAXPROCS, run.GOGC, runs.Alone()
}

// measurePaired sizes one slice for each peer, then runs rounds rounds.
func measurePaired(w workload, engine, ceiling *enginebench.Peer, rounds int) (enginebench.Paired, error) {
	nEngine, err := calibrate(w, engine)
	if err != nil {
		return enginebench.Paired{}, err
	}
	nCeiling, err := calibrate(w, ceiling)
	if err != nil {
		return enginebench.Paired{}, err
	}
	load := machine.Load()
	pr, err := enginebench.MeasurePaired(w.op, rounds, func(isEngine bool) (enginebench.Slice, error) {
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
