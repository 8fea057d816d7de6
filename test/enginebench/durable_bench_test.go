package enginebench_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/oncetable/oncetable/test/enginebench"
	"github.com/oncetable/oncetable/test/machine"
)

var durableReport = flag.String("durable-report", "", "write BenchmarkDurable's report (markdown) to this file")

// BenchmarkDurable measures what a data directory and the durable mode
// (ddblocal.Options.Durable, an fsync per commit) cost on the write rows,
// paired as BenchmarkPaired measures the in-memory engine (measureDurable,
// -durable-rounds rounds, by default -paired-rounds). It writes its report
// to -durable-report, and records the rows for -paired-out and -report.
func BenchmarkDurable(b *testing.B) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(pairedGOMAXPROCS()))
	rows := measureDurable(b, durableRounds())
	for _, d := range rows {
		results.PutDurable(d)
	}
	if *durableReport != "" {
		if err := writeDurableReport(*durableReport, rows); err != nil {
			b.Fatal(err)
		}
	}
}

// measureDurable measures each pair of enginebench.DurablePairs on each
// row of enginebench.DurableOps, rounds rounds each: the engine on a data
// directory and the durable engine as shares of the SDK client alone, and
// the durable engine over the engine on disk. The two engines on disk keep
// their data in temporary directories of b and are closed when it ends.
func measureDurable(b *testing.B, rounds int) []enginebench.DurablePaired {
	disk, err := enginebench.NewEngineOnDisk(b.TempDir(), false)
	if err != nil {
		b.Fatal(err)
	}
	defer disk.Close()
	durable, err := enginebench.NewEngineOnDisk(b.TempDir(), true)
	if err != nil {
		b.Fatal(err)
	}
	defer durable.Close()
	byName := map[string]*enginebench.Peer{disk.Name: disk, durable.Name: durable,
		enginebench.PeerSDKAlone: pairedPeer(b, enginebench.PeerSDKAlone)}
	var rows []enginebench.DurablePaired
	for _, w := range workloads() {
		if !slices.Contains(enginebench.DurableOps, w.op) {
			continue
		}
		for _, pair := range enginebench.DurablePairs {
			pr, err := measurePaired(w, byName[pair[0]], byName[pair[1]], rounds)
			if err != nil {
				b.Fatal(err)
			}
			rows = append(rows, enginebench.DurablePaired{A: pair[0], B: pair[1], Paired: pr})
			b.Logf("%s, %s ÷ %s: median %.3f over %d rounds (load %s)", w.op, pair[0], pair[1], pr.Median(), len(pr.Rounds), pr.Load)
		}
	}
	return rows
}

func writeDurableReport(path string, rows []enginebench.DurablePaired) error {
	var buf bytes.Buffer
	p := func(format string, a ...any) { fmt.Fprintf(&buf, format, a...) }
	p("# Engine durability cost\n\n")
	p("Use this page to see what the durable mode (an fsync per commit) costs against the default mode of a data directory.\n\n")
	p("Measured by `make bench-durable` (test/enginebench BenchmarkDurable) on %s on %s, %d CPUs, %s, GOMAXPROCS %d, GOGC %s, load average %s at the start; slices of about %v, ABBA order, as in the paired ratios of engine-benchmark.md. Absolute figures move with the load; the paired ratios are the point, and the load at the start of each row stands beside it.\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), machine.CPU(), runtime.NumCPU(), runtime.Version(), pairedGOMAXPROCS(), gogc(), startLoad, *pairedSlice)
	p("- **%s**: the engine with `Options.Dir` (a bbolt file) in its default mode: each commit reaches the operating system, not the disk. A killed process loses nothing acknowledged; a machine crash may lose the last seconds (and Open then checks the file).\n", enginebench.PeerEngineDisk)
	p("- **%s**: `Options.Durable` (`lambdas/local -durable`): each commit is fsynced before it is acknowledged, so nothing acknowledged is lost in a machine crash either.\n\n", enginebench.PeerEngineDurable)
	p("| Operation | ratio | paired median | interquartile range | min–max | rounds | operations (first / second) | ops/s (first / second, all rounds) | load average at start |\n")
	p("|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		pr := r.Paired
		q1, q3 := pr.Quartiles()
		lo, hi := pr.Range()
		na, nb := pr.Ops()
		var wa, wb time.Duration
		for _, rd := range pr.Rounds {
			wa += rd.Engine.Wall
			wb += rd.Ceiling.Wall
		}
		p("| %s | %s ÷ %s | %.3f× | %.3f–%.3f× | %.3f–%.3f× | %d | %d / %d | %.0f / %.0f | %s |\n", pr.Op, r.A, r.B, pr.Median(), q1, q3, lo, hi,
			len(pr.Rounds), na, nb, float64(na)/wa.Seconds(), float64(nb)/wb.Seconds(), pr.Load)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}
