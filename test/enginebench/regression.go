package enginebench

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Samples holds the figures of one version's benchmark runs: for each
// benchmark (named without its -GOMAXPROCS suffix) and unit (ns/op, ops/s,
// p50-ns, ...), every measured value in the order of the runs.
type Samples struct {
	names []string
	vals  map[string]map[string][]float64
}

var procSuffix = regexp.MustCompile(`-\d+$`)

// ParseBench reads `go test -bench` output; lines other than benchmark
// results are skipped.
func ParseBench(r io.Reader) (*Samples, error) {
	s := &Samples{vals: map[string]map[string][]float64{}}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") || len(f)%2 != 0 {
			continue
		}
		name := procSuffix.ReplaceAllString(f[0], "")
		if s.vals[name] == nil {
			s.vals[name] = map[string][]float64{}
			s.names = append(s.names, name)
		}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, fmt.Errorf("%s: value %q: %w", name, f[i], err)
			}
			s.vals[name][f[i+1]] = append(s.vals[name][f[i+1]], v)
		}
	}
	return s, sc.Err()
}

// Median is the median of name's values in unit, and how many there are.
func (s *Samples) Median(name, unit string) (float64, int) {
	v := slices.Clone(s.vals[name][unit])
	if len(v) == 0 {
		return math.NaN(), 0
	}
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2], len(v)
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2, len(v)
}

// throughput is the benchmark's operations per second: its ops/s metric,
// or else the inverse of ns/op.
func (s *Samples) throughput(name string) (float64, int) {
	if v, n := s.Median(name, "ops/s"); n > 0 {
		return v, n
	}
	v, n := s.Median(name, "ns/op")
	return 1e9 / v, n
}

// throughputs is every run's operations per second, in run order.
func (s *Samples) throughputs(name string) []float64 {
	if v := s.vals[name]["ops/s"]; len(v) > 0 {
		return v
	}
	var out []float64
	for _, ns := range s.vals[name]["ns/op"] {
		out = append(out, 1e9/ns)
	}
	return out
}

// pairedRatios is after ÷ before of each round, sorted: run i of a version
// is its run in round i, right beside the other version's, so that both
// met the same load. Nil when the versions ran a different number of times.
func pairedRatios(before, after []float64) []float64 {
	if len(before) == 0 || len(before) != len(after) {
		return nil
	}
	r := make([]float64, len(before))
	for i := range before {
		r[i] = after[i] / before[i]
	}
	slices.Sort(r)
	return r
}

// Verdicts of a row.
const (
	verdictWithin  = "yes"
	verdictSlower  = "NO"
	verdictUnclear = "unclear: the spread crosses the limit"
	verdictControl = "control"
)

// judge is a row's verdict from its paired ratios: slower when the median
// is past the limit and so is the quartile nearest to it (most rounds
// were slower by more than the limit), unclear when the median is past the
// limit but that quartile is not (the rounds disagree: more rounds
// decide), else within. worse tells which side is past the limit.
func judge(ratios []float64, worse func(float64) bool, nearQuartile float64) string {
	switch {
	case len(ratios) == 0 || !worse(quantile(ratios, 0.5)):
		return verdictWithin
	case worse(quantile(ratios, nearQuartile)):
		return verdictSlower
	}
	return verdictUnclear
}

// worst of two verdicts.
func worst(a, b string) string {
	rank := map[string]int{verdictWithin: 0, verdictUnclear: 1, verdictSlower: 2}
	if rank[b] > rank[a] {
		return b
	}
	return a
}

// ratioCell is the median paired ratio with its interquartile range, or the
// quotient of the medians when the runs cannot be paired.
func ratioCell(ratios []float64, medians float64) string {
	if len(ratios) == 0 {
		return fmt.Sprintf("%.2f× (unpaired)", medians)
	}
	return fmt.Sprintf("%.2f× (%.2f–%.2f)", quantile(ratios, 0.5), quantile(ratios, 0.25), quantile(ratios, 0.75))
}

// RegressionRun describes how the two versions were measured.
type RegressionRun struct {
	Before, After string // the versions, e.g. "9f303ac"
	Command       string
	Rounds        int
	Loads         []string // load averages seen during the run
	When          string
}

// regressionLimit is how much slower a row may get: within 10%.
const regressionLimit = 0.90

// WriteRegression renders the side-by-side comparison of two versions:
// every benchmark both measured, its medians and the after ÷ before ratio,
// then the engine goals for each version.
func WriteRegression(w io.Writer, before, after *Samples, run RegressionRun) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("# Engine regression check\n\n")
	p("Generated on %s by `%s`. Do not edit by hand: rerun the command.\n\n", run.When, run.Command)
	p("**Before** is %s, **after** is %s. Both were built as test binaries, each from its own commit's sources, and run on the same machine in one run, alternating row by row (before then after in odd rounds, after then before in even ones), %d rounds of `-benchtime 1s`, except the PutItem rows: they insert a new item per operation, so that their cost grows with the table, and run the same fixed count of operations on both sides. The before and after columns are the medians over the rounds. Load averages seen during the run: %s (the machine is shared: absolute figures are noisy, the ratios side by side are the point).\n\n",
		run.Before, run.After, run.Rounds, strings.Join(run.Loads, "; "))
	p("The ratios are paired: each round's after ÷ before, of two runs made one beside the other, so that both met the same load; a cell is their median with the interquartile range in brackets. The standard is that no row gets more than 10%% slower: after ÷ before throughput at least %.2f×, and p50 at most %.2f×. A row is NO when its median ratio and the quartile nearest the limit are both past it (most rounds were slower by more than 10%%); unclear when the median is past it but that quartile is not (the rounds disagree, and more `ROUNDS` decide); yes otherwise. The rows of the SDK client alone run no engine code: they are the control, and their spread is what the machine's noise does to a pair.\n\n", regressionLimit, 1/regressionLimit)
	p("| Benchmark | runs | before | after | throughput after ÷ before | p50 before | p50 after | p50 after ÷ before | within 10%% |\n")
	p("|---|---|---|---|---|---|---|---|---|\n")
	for _, name := range before.names {
		if _, ok := after.vals[name]; !ok {
			continue
		}
		p("| %s |\n", strings.Join(regressionCells(name, before, after), " | "))
	}
	for _, s := range []struct {
		label string
		s     *Samples
	}{{"before", before}, {"after", after}} {
		p("\n## Engine goals, %s\n\n", s.label)
		for _, line := range engineGoalLines(s.s) {
			p("- %s\n", line)
		}
	}
}

func regressionCells(name string, before, after *Samples) []string {
	tb, nb := before.throughput(name)
	ta, na := after.throughput(name)
	pb, _ := before.Median(name, "p50-ns")
	pa, _ := after.Median(name, "p50-ns")
	thr := pairedRatios(before.throughputs(name), after.throughputs(name))
	slower := func(r float64) bool { return r < regressionLimit }
	later := func(r float64) bool { return r > 1/regressionLimit }
	v := judge(thr, slower, 0.75)
	if len(thr) == 0 && slower(ta/tb) {
		v = verdictSlower
	}
	p50 := []string{"—", "—", "—"}
	if !math.IsNaN(pb) && !math.IsNaN(pa) {
		lat := pairedRatios(before.vals[name]["p50-ns"], after.vals[name]["p50-ns"])
		p50 = []string{dur(ns(pb)), dur(ns(pa)), ratioCell(lat, pa/pb)}
		vl := judge(lat, later, 0.25)
		if len(lat) == 0 && later(pa/pb) {
			vl = verdictSlower
		}
		if strings.HasPrefix(name, "BenchmarkStartup/") {
			v = vl // start-up is judged by its latency only
		} else {
			v = worst(v, vl)
		}
	}
	if strings.HasSuffix(name, "/"+strings.ReplaceAll(PeerSDKAlone, " ", "_")) {
		v = verdictControl
	}
	return append([]string{displayName(name), fmt.Sprintf("%d / %d", nb, na),
		thousands(tb) + " ops/s", thousands(ta) + " ops/s", ratioCell(thr, ta/tb)},
		append(p50, v)...)
}

// engineGoalLines states the engine's goals from one version's medians.
func engineGoalLines(s *Samples) []string {
	var lines []string
	row := func(op, peer string) string {
		return "BenchmarkEngine/" + strings.ReplaceAll(op+"/"+peer, " ", "_")
	}
	put, _ := s.Median(row(OpPut, PeerEngineRaw), "p50-ns")
	for _, op := range []string{OpTx1k, OpTx100k} {
		tx, n := s.Median(row(op, PeerEngineRaw), "p50-ns")
		if n == 0 || math.IsNaN(put) {
			continue
		}
		x := tx / put
		lines = append(lines, fmt.Sprintf("%s ÷ PutItem, no client, by p50: %s ÷ %s = %s (goal ≤ %d×: %s)",
			op, dur(ns(tx)), dur(ns(put)), timesUp(x), txPutGoal, verdict(x <= txPutGoal)))
	}
	for _, g := range ceilingGoals {
		a, n1 := s.throughput(row(g.op, PeerEngineInproc))
		c, n2 := s.throughput(row(g.op, PeerSDKAlone))
		if n1 == 0 || n2 == 0 {
			continue
		}
		x := a / c
		lines = append(lines, fmt.Sprintf("%s, engine in-process ÷ SDK client alone: %s ÷ %s ops/s = %s (goal ≥ %.1f×: %s)",
			g.op, thousands(a), thousands(c), times(x), g.want, verdict(x >= g.want)))
	}
	return lines
}

func displayName(name string) string {
	return strings.ReplaceAll(strings.TrimPrefix(name, "Benchmark"), "_", " ")
}

func ns(x float64) time.Duration { return time.Duration(math.Round(x)) }
