package enginebench

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// writePairedRatios renders the paired measurement of every row: each
// run's median, the row's median and the run-to-run spread, and beside the
// write rows the durability rows.
func writePairedRatios(w io.Writer, rs *Results, env Environment) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	runs := rs.PairedRuns()
	p("\n## Paired ratios\n\n")
	p("The cells above are measured one after the other, minutes apart, and on a shared machine the same work can drift by a quarter between them, so their ratio of the engine in-process to the SDK client alone is mostly noise. Here the two run the same workload on the same prepared tables in alternating slices of about %v each (GOMAXPROCS %d, GOGC %s), the engine first in odd rounds and second in even ones (ABBA), so that a slow spell falls on both alike; each round gives one ratio, engine ÷ SDK client alone, and a run's median is the median of its rounds. %s %s With `-paired-procs 1` the collector's work counts in full on both sides, instead of partly on a second core that other work may or may not be using.\n\n",
		env.PairedSlice, env.PairedProcs, env.PairedGOGC, pairedProcess(env.PairedAlone), runsSentence(runs))
	p("| Operation | median of the run medians | run medians | run-to-run spread | rounds per run | operations (engine / SDK alone, all runs) | load average at the row's start, each run | unpaired cells | data directory ÷ SDK alone | durable ÷ SDK alone | durable ÷ data directory | durable ÷ in-memory |\n")
	p("|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, op := range opOrder {
		if op != OpStartup {
			p("| %s |\n", strings.Join(pairedCells(rs, runs, op), " | "))
		}
	}
	p("\n%s\n", durableSentence(runs))
	p("%s", regionsSection(runs))
}

// runsSentence says how many runs there were, what a row's median and
// spread are, and the load at the start of each run.
func runsSentence(runs PairedRuns) string {
	switch len(runs) {
	case 0:
		return "No paired measurement was taken in this run."
	case 1:
		return fmt.Sprintf("The measurement ran once (load average %s at its start), so a row's median is that run's and its run-to-run spread is unknown (`make bench-engine` runs it PAIRED_RUNS times, 5 by default). The table gives each row's median (rounded down to two decimals), the unpaired cells' ratio for comparison, and how many operations each side ran in all.",
			cmp.Or(runs[0].Load, "unknown"))
	}
	var loads []string
	for _, r := range runs {
		loads = append(loads, cmp.Or(r.Load, "unknown"))
	}
	return fmt.Sprintf("The measurement ran %d times, in as many processes one after the other (load average at the start of each: %s). A row's median is the median of its run medians, and its run-to-run spread the greatest run median less the least: the engine goals below count as met with margin only when a row's median exceeds its goal by more than that spread. The table gives each row's median and each run's (rounded down to two decimals), the spread (rounded up to three), the unpaired cells' ratio for comparison, and how many operations each side ran in all runs.",
		len(runs), strings.Join(loads, "; "))
}

// pairedCells are the cells of op's row of the paired table.
func pairedCells(rs *Results, runs PairedRuns, op string) []string {
	unpaired := ratio(rs, op, PeerEngineInproc, PeerSDKAlone)
	rows := runs.Row(op)
	s := spreadOf(rows)
	if s.Runs() == 0 {
		return append([]string{op, "not measured", "—", "—", "0", "—", "—", unpaired}, durableCells(runs, op, s)...)
	}
	var medians, loads []string
	ne, nc := 0, 0
	for i, row := range rows {
		medians = append(medians, ratio2(s.Medians[i]))
		loads = append(loads, cmp.Or(strings.Fields(row.Load)...))
		e, c := row.Ops()
		ne, nc = ne+e, nc+c
	}
	spread := "unknown (one run)"
	if x, ok := s.Spread(); ok {
		spread = fixed3(x, true)
	}
	cells := []string{op, times2(s.Median()), strings.Join(medians, ", ") + "×", spread, roundsPerRun(s.Rounds),
		thousands(float64(ne)) + " / " + thousands(float64(nc)), cmp.Or(strings.Join(slices.DeleteFunc(loads, func(l string) bool { return l == "" }), ", "), "unknown"), unpaired}
	return append(cells, durableCells(runs, op, s)...)
}

// durableCells are the durability columns of op's row: "—" on a row that
// is not a write row.
func durableCells(runs PairedRuns, op string, inMemory RunSpread) []string {
	if !slices.Contains(DurableOps, op) {
		return []string{"—", "—", "—", "—"}
	}
	var cells []string
	for _, pair := range DurablePairs {
		rows, _ := runs.Durable(op, pair[0], pair[1])
		cells = append(cells, durableCell(rows))
	}
	rows, _ := runs.Durable(op, PeerEngineDurable, PeerSDKAlone)
	if len(rows) == 0 || inMemory.Runs() == 0 {
		return append(cells, "—")
	}
	return append(cells, times3(spreadOf(rows).Median()/inMemory.Median()))
}

// durableCell is the median of one durability row, with its interquartile
// range when one run measured it, else the run-to-run spread.
func durableCell(rows []Paired) string {
	switch len(rows) {
	case 0:
		return "not measured"
	case 1:
		q1, q3 := rows[0].Quartiles()
		return fmt.Sprintf("%s (interquartile %s–%s)", times3(rows[0].Median()), fixed3(q1, false), fixed3(q3, false))
	}
	s := spreadOf(rows)
	spread, _ := s.Spread()
	return fmt.Sprintf("%s (median of %d runs, spread %s)", times3(s.Median()), s.Runs(), fixed3(spread, true))
}

// durableSentence says what the durability columns are and where they
// were measured.
func durableSentence(runs PairedRuns) string {
	which := runs.DurableRuns()
	if len(which) == 0 {
		return "The durability columns are empty: no run measured them (`-paired-durable`; `make bench-engine` measures them in its first run). What a data directory and the durable mode (an fsync per commit) cost on the write rows is also in [engine-durability.md](engine-durability.md) (`make bench-durable`)."
	}
	var nums, rounds []string
	for _, n := range which {
		nums = append(nums, fmt.Sprint(n))
		for _, d := range runs[n-1].Durable {
			if r := fmt.Sprint(len(d.Rounds)); !slices.Contains(rounds, r) {
				rounds = append(rounds, r)
			}
		}
	}
	return fmt.Sprintf("The rows above are the in-memory engine. The last four columns are the write rows on a data directory (`Options.Dir`, a bbolt file) in its default mode, where each commit reaches the operating system, and in the durable mode (`Options.Durable`, an fsync per commit before it is acknowledged), as shares of the SDK client alone, and the durable engine over the data directory, each paired the same way in alternating slices; they were measured in run %s of %d, after its in-memory rows, over %s rounds per row, and each cell is the median of the rounds with their interquartile range (rounded down to three decimals). durable ÷ in-memory is the durable column over the row's median: a quotient of two medians, not a paired measurement. [engine-durability.md](engine-durability.md) (`make bench-durable`) has these rows with the load beside each.",
		strings.Join(nums, ", "), len(runs), strings.Join(rounds, " or "))
}

// roundsPerRun is "15" when every run had as many rounds, else each run's.
func roundsPerRun(rounds []int) string {
	var out []string
	for _, r := range rounds {
		out = append(out, fmt.Sprint(r))
	}
	if len(slices.Compact(slices.Clone(out))) == 1 {
		return out[0]
	}
	return strings.Join(out, ", ")
}

// ceilingShare states the engine's share of the SDK-alone ceiling on op:
// the paired row's median judged against the run-to-run spread when there
// is one, else the unpaired cells' ratio, which is always shown too.
func ceilingShare(rs *Results, op string, want float64) string {
	unpaired := ""
	x, have := 0.0, false
	a, ok1 := rs.Get(op, PeerEngineInproc)
	c, ok2 := rs.Get(op, PeerSDKAlone)
	if ok1 && ok2 && a.Note == "" && c.Note == "" {
		x, have = speedup(op, a, c), true
		unpaired = fmt.Sprintf("%s ÷ %s ops/s = %s", thousands(a.OpsPerSec()), thousands(c.OpsPerSec()), times(x))
	}
	s := rs.PairedRuns().Spread(op)
	if s.Runs() == 0 {
		if have {
			return fmt.Sprintf("unpaired cells %s (goal ≥ %.1f×: %s); no paired measurement", unpaired, want, verdict(x >= want))
		}
		return "no figure"
	}
	unpaired = "unpaired cells " + unpaired
	if !have {
		unpaired = "no unpaired cells"
	}
	return fmt.Sprintf("%s (goal ≥ %.1f×: %s); %s", spreadSummary(s, want), want, s.Judge(want), unpaired)
}

// spreadSummary is "median of 5 run medians 0.85× (runs 0.83, 0.84, 0.85,
// 0.88, 0.90×, 15 rounds each; least 0.83×; run-to-run spread 0.070;
// 0.050 above the goal)".
func spreadSummary(s RunSpread, want float64) string {
	m := s.Median()
	margin := fixed3(m-want, false) + " above the goal"
	if m < want {
		margin = fixed3(want-m, true) + " under the goal"
	}
	rounds := roundsPerRun(s.Rounds) + " rounds"
	spread, known := s.Spread()
	if !known {
		return fmt.Sprintf("median of one run %s over %s (run-to-run spread unknown; %s)", times2(m), rounds, margin)
	}
	if !strings.Contains(rounds, ",") {
		rounds += " each"
	}
	var medians []string
	for _, x := range s.Medians {
		medians = append(medians, ratio2(x))
	}
	return fmt.Sprintf("median of %d run medians %s (runs %s×, %s; least %s; run-to-run spread %s; %s)",
		s.Runs(), times2(m), strings.Join(medians, ", "), rounds, times2(s.Least()), fixed3(spread, true), margin)
}

// fixed3 formats x with three decimals, rounded up or down.
func fixed3(x float64, up bool) string {
	if up {
		return fmt.Sprintf("%.3f", math.Ceil(x*1000-1e-9)/1000)
	}
	return fmt.Sprintf("%.3f", math.Floor(x*1000+1e-9)/1000)
}

// times3 formats a ratio with three decimals, rounded down: the durable
// mode's shares are a few hundredths.
func times3(x float64) string { return fixed3(x, false) + "×" }

// pairedProcess says which heap the paired slices ran beside.
func pairedProcess(alone bool) string {
	if alone {
		return "The paired measurement ran in a process of its own, holding only the two peers' tables (as a user's process holds no other emulator), so that no other peer's heap weighs on the garbage collector during the slices."
	}
	return "The paired measurement ran in the same process as the cells above, with the tables of every peer started there live on the heap, which the garbage collector marks during the slices too (`make bench-engine` runs it in a process of its own)."
}
