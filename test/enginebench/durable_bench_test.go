package enginebench_test

import (
	"bytes"
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

var durableReport = flag.String("durable-report", "", "write BenchmarkDurable's report (markdown) to this file")

// durablePair is one paired comparison of BenchmarkDurable: a over b.
type durablePair struct{ a, b string }

var durablePairs = []durablePair{
	{enginebench.PeerEngineDisk, enginebench.PeerSDKAlone},
	{enginebench.PeerEngineDurable, enginebench.PeerSDKAlone},
	{enginebench.PeerEngineDurable, enginebench.PeerEngineDisk},
}

// BenchmarkDurable measures what a data directory and the durable mode
// (ddblocal.Options.Durable, an fsync per commit) cost on the write rows,
// paired as BenchmarkPaired measures the in-memory engine: the engine on
// disk and the durable engine as shares of the SDK client alone, and the
// durable engine over the engine on disk. It writes its report to
// -durable-report.
func BenchmarkDurable(b *testing.B) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(pairedGOMAXPROCS()))
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
	var rows []durableRow
	for _, w := range workloads() {
		if w.op != enginebench.OpPut && w.op != enginebench.OpTx1k {
			continue
		}
		for _, pair := range durablePairs {
			pr, err := measurePaired(w, byName[pair.a], byName[pair.b])
			if err != nil {
				b.Fatal(err)
			}
			rows = append(rows, durableRow{pair: pair, paired: pr})
			b.Logf("%s, %s ÷ %s: median %.3f over %d rounds (load %s)", w.op, pair.a, pair.b, pr.Median(), len(pr.Rounds), pr.Load)
		}
	}
	if *durableReport != "" {
		if err := writeDurableReport(*durableReport, rows); err != nil {
			b.Fatal(err)
		}
	}
}

type durableRow struct {
	pair   durablePair
	paired enginebench.Paired
}

func writeDurableReport(path string, rows []durableRow) error {
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
		pr := r.paired
		q1, q3 := pr.Quartiles()
		lo, hi := pr.Range()
		na, nb := pr.Ops()
		var wa, wb time.Duration
		for _, rd := range pr.Rounds {
			wa += rd.Engine.Wall
			wb += rd.Ceiling.Wall
		}
		p("| %s | %s ÷ %s | %.3f× | %.3f–%.3f× | %.3f–%.3f× | %d | %d / %d | %.0f / %.0f | %s |\n", pr.Op, r.pair.a, r.pair.b, pr.Median(), q1, q3, lo, hi,
			len(pr.Rounds), na, nb, float64(na)/wa.Seconds(), float64(nb)/wb.Seconds(), pr.Load)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}
