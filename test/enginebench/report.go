package enginebench

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"sync"
	"time"
)

// Result is one measured cell: one operation on one peer.
type Result struct {
	Op, Peer string
	N        int
	Wall     time.Duration
	P50, P99 time.Duration
	// Note replaces the figures when the peer lacks the operation or
	// could not run.
	Note string
}

// OpsPerSec is the throughput of the run.
func (r Result) OpsPerSec() float64 {
	if r.Wall <= 0 {
		return 0
	}
	return float64(r.N) / r.Wall.Seconds()
}

// NewResult summarizes a run of n operations.
func NewResult(op, peer string, n int, wall time.Duration, lat []time.Duration) Result {
	s := slices.Clone(lat)
	slices.Sort(s)
	return Result{Op: op, Peer: peer, N: n, Wall: wall, P50: percentile(s, 0.50), P99: percentile(s, 0.99)}
}

func percentile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// Results collects the cells of one run; a later result for the same cell
// replaces an earlier one (testing.B reruns with growing b.N).
type Results struct {
	mu     sync.Mutex
	cells  map[[2]string]Result
	paired map[string]Paired
	// durable are this process's durability rows, by operation and pair.
	durable map[[3]string]DurablePaired
	// regions is this process's two-Region row.
	regions *RegionsRow
	// runs are the paired runs the report shows and judges.
	runs PairedRuns
}

// PutPaired records the paired measurement of p.Op, replacing an earlier
// one.
func (rs *Results) PutPaired(p Paired) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.paired == nil {
		rs.paired = map[string]Paired{}
	}
	rs.paired[p.Op] = p
}

// GetPaired returns the paired measurement of op.
func (rs *Results) GetPaired(op string) (Paired, bool) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	p, ok := rs.paired[op]
	return p, ok
}

// Put records r.
func (rs *Results) Put(r Result) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.cells == nil {
		rs.cells = map[[2]string]Result{}
	}
	rs.cells[[2]string{r.Op, r.Peer}] = r
}

// Get returns the cell for op and peer.
func (rs *Results) Get(op, peer string) (Result, bool) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	r, ok := rs.cells[[2]string{op, peer}]
	return r, ok
}

// Memory is the cmd/rssload measurement.
type Memory struct {
	Items       int     `json:"items"`
	ItemBytes   int     `json:"item_bytes"`
	LoadSeconds float64 `json:"load_seconds"`
	RSSBytes    int64   `json:"rss_bytes"`
	HWMBytes    int64   `json:"hwm_bytes"`
	HeapBytes   uint64  `json:"heap_inuse_bytes"`
	Note        string  `json:"-"`
}

// Environment describes where the numbers were taken.
type Environment struct {
	When      time.Time
	GoVersion string
	CPU       string
	CPUs      int
	Load      string
	BenchTime string
	Node      string
	// GOGC and GOMAXPROCS are the process's settings.
	GOGC       string
	GOMAXPROCS int
	// PairedSlice is the target length of one slice of the paired
	// measurement, PairedProcs and PairedGOGC the settings it ran with, and
	// PairedAlone whether its process held only the two peers' tables.
	PairedSlice time.Duration
	PairedProcs int
	PairedGOGC  string
	PairedAlone bool
}

// PeerOrder is the order of the peers in the report.
var PeerOrder = []string{PeerEngineRaw, PeerEngineInproc, PeerEngineHTTP, PeerSDKAlone, PeerMinidyn, PeerMinidynSDK, PeerDynalite}

var opOrder = []string{OpPut, OpHotUpdate, OpTx1k, OpTx100k, OpQuery, OpStartup}

// comparison is one ratio column: a over b.
type comparison struct {
	a, b, title string
}

var comparisons = []comparison{
	{PeerEngineRaw, PeerMinidyn, "no client on either side: engine ÷ minidyn direct"},
	{PeerEngineInproc, PeerMinidynSDK, "same SDK client, both in-process: engine ÷ minidyn"},
	{PeerEngineInproc, PeerMinidyn, "engine through the SDK ÷ minidyn direct"},
	{PeerEngineInproc, PeerDynalite, "engine in-process (SDK) ÷ dynalite"},
	{PeerEngineRaw, PeerDynalite, "engine, no client ÷ dynalite"},
	{PeerEngineHTTP, PeerDynalite, "both over loopback TCP: engine HTTP ÷ dynalite"},
	{PeerEngineInproc, PeerSDKAlone, "engine in-process ÷ SDK client alone (1.0× would be an engine costing nothing; unpaired, see Paired ratios)"},
	{PeerSDKAlone, PeerMinidynSDK, "ceiling through the SDK: SDK client alone ÷ minidyn in-process (SDK)"},
}

// WriteMarkdown renders docs/reports/engine-benchmark.md.
func WriteMarkdown(w io.Writer, rs *Results, env Environment, mem Memory) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("# Engine benchmark\n\n")
	p("Use this page to compare the embedded engine's speed with other local DynamoDB engines and with the SDK client alone, and to check its goals.\n\n")
	p("Measured by `make bench-engine` (test/enginebench) on %s on %s, %d CPUs, %s, GOGC %s, GOMAXPROCS %d, load average %s at the start; Node.js %s for dynalite %s; `-benchtime %s` per cell. Absolute figures move with the machine's load; the ratios within one run are the point.\n\n",
		env.When.UTC().Format("2006-01-02 15:04 UTC"), env.CPU, env.CPUs, env.GoVersion, env.GOGC, env.GOMAXPROCS, env.Load, env.Node, DynaliteVersion, env.BenchTime)
	p("## Peers\n\n")
	p("- **%s**: the engine's `http.Handler` called in process with the JSON request bodies the SDK would send; no client, no sockets. Tables are prepared through the SDK.\n", PeerEngineRaw)
	p("- **%s**: the unmodified aws-sdk-go-v2 client, whose HTTP client calls the engine's handler without sockets (`Engine.Client()`), as `go test` uses it.\n", PeerEngineInproc)
	p("- **%s**: the same SDK client over loopback TCP to the engine's handler on 127.0.0.1.\n", PeerEngineHTTP)
	p("- **%s**: the same SDK client with a transport that replays the engine's last answer for each operation without calling it: what the client costs by itself, so the ceiling for any engine reached through it.\n", PeerSDKAlone)
	p("- **%s**: minidyn's fake client (`aws-v2/client`), called directly with the SDK's typed inputs: nothing is serialized.\n", PeerMinidyn)
	p("- **%s**: minidyn's own DynamoDB JSON handler (its `server` package) behind the same SDK client and the same kind of socket-free transport as the engine.\n", PeerMinidynSDK)
	p("- **%s**: dynalite %s under Node.js on loopback, through the same SDK client over TCP.\n\n", PeerDynalite, DynaliteVersion)
	p("The hot-item row runs %d goroutines against one item (`SET cnt = cnt + :one` with `cnt >= :zero`); every other row runs one goroutine. ", HotWorkers)
	p("Transactions update four distinct random items of a table preloaded with 1,000 or 100,000 items of about 200 bytes. The start-up row is the time from creating a new engine (or starting the dynalite process) to its first answered request (CreateTable), with latencies only; for the SDK peers it includes creating the client.\n\n")

	p("## Figures\n\n")
	p("Each cell is operations per second, then the median (p50) and 99th percentile (p99) latency of one operation.\n\n")
	p("| Operation | %s |\n", strings.Join(PeerOrder, " | "))
	p("|---|%s\n", strings.Repeat("---|", len(PeerOrder)))
	for _, op := range opOrder {
		cells := []string{op}
		for _, peer := range PeerOrder {
			r, ok := rs.Get(op, peer)
			switch {
			case !ok:
				cells = append(cells, "not measured")
			case r.Note != "":
				cells = append(cells, r.Note)
			case op == OpStartup:
				cells = append(cells, fmt.Sprintf("p50 %s · p99 %s (%d starts)", dur(r.P50), dur(r.P99), r.N))
			default:
				cells = append(cells, fmt.Sprintf("%s ops/s · p50 %s · p99 %s", thousands(r.OpsPerSec()), dur(r.P50), dur(r.P99)))
			}
		}
		p("| %s |\n", strings.Join(cells, " | "))
	}

	p("\n## Ratios\n\n")
	p("Throughput of the first peer over the second (for start-up: how many times faster the first starts, by p50). Above 1 the engine is faster.\n\n")
	p("| Operation |")
	for _, c := range comparisons {
		p(" %s |", c.title)
	}
	p("\n|---|%s\n", strings.Repeat("---|", len(comparisons)))
	for _, op := range opOrder {
		cells := []string{op}
		for _, c := range comparisons {
			cells = append(cells, ratio(rs, op, c.a, c.b))
		}
		p("| %s |\n", strings.Join(cells, " | "))
	}

	writePairedRatios(w, rs, env)

	p("\n## Goals\n\n")
	p("The goals are at least 10× dynalite and at least 3× minidyn on every row, in-process. dynalite can only be reached through a client, so the engine is compared with it both in-process through the same SDK client and without a client; with minidyn it is compared like for like, both without a client and both behind the same SDK client. Where the SDK client by itself is too slow for a goal, the line says so: no engine behind that client could meet it.\n\n")
	for _, op := range opOrder {
		p("- %s: %s\n", op, goal(rs, op))
	}
	if a, ok1 := rs.Get(OpTx1k, PeerEngineInproc); ok1 && a.Note == "" {
		if b, ok2 := rs.Get(OpTx100k, PeerEngineInproc); ok2 && b.Note == "" {
			p("- Transaction cost against table size (in-process): p50 %s on 1k items, %s on 100k items (%.2f×); throughput %s vs %s ops/s.\n",
				dur(a.P50), dur(b.P50), float64(b.P50)/float64(max(a.P50, 1)), thousands(a.OpsPerSec()), thousands(b.OpsPerSec()))
		}
	}
	if a, ok1 := rs.Get(OpTx1k, PeerEngineRaw); ok1 && a.Note == "" {
		if b, ok2 := rs.Get(OpTx100k, PeerEngineRaw); ok2 && b.Note == "" {
			p("- Transaction cost against table size (no client): p50 %s on 1k items, %s on 100k items (%.2f×).\n",
				dur(a.P50), dur(b.P50), float64(b.P50)/float64(max(a.P50, 1)))
		}
	}

	writeEngineGoals(w, rs)

	p("\n## Memory\n\n")
	if mem.Note != "" {
		p("%s\n", mem.Note)
		return
	}
	p("`go run ./test/enginebench/cmd/rssload` loads %s items of about %d bytes into an in-memory engine through its in-process client (BatchWriteItem, 25 items a call), runs the garbage collector, and reads its own `/proc/self/status`:\n\n", thousands(float64(mem.Items)), mem.ItemBytes)
	p("| Items | Load time | RSS after load (VmRSS) | Peak RSS (VmHWM) | Go heap in use | Goal |\n|---|---|---|---|---|---|\n")
	verdict := "met (under 1 GB)"
	if mem.RSSBytes >= 1<<30 {
		verdict = "NOT met (1 GB or more)"
	}
	p("| %s | %.1f s | %s | %s | %s | %s |\n", thousands(float64(mem.Items)), mem.LoadSeconds, mib(mem.RSSBytes), mib(mem.HWMBytes), mib(int64(mem.HeapBytes)), verdict)
}

// goal states each goal of one row with its verdict.
func goal(rs *Results, op string) string {
	var parts, missing []string
	usable := func(peer string) (Result, bool) {
		r, ok := rs.Get(op, peer)
		if !ok || r.Note != "" {
			if !slices.Contains(missing, peer) {
				missing = append(missing, peer)
			}
			return r, false
		}
		return r, true
	}
	check := func(a, b string, want float64, label string) {
		ra, ok1 := usable(a)
		rb, ok2 := usable(b)
		if !ok1 || !ok2 {
			return
		}
		x := speedup(op, ra, rb)
		verdict := "met"
		if x < want {
			verdict = "NOT met"
		}
		parts = append(parts, fmt.Sprintf("%s %s (goal ≥ %.0f×: %s)", label, times(x), want, verdict))
	}
	ceiling := func(peer string, want float64) {
		c, ok1 := rs.Get(op, PeerSDKAlone)
		m, ok2 := rs.Get(op, peer)
		if !ok1 || !ok2 || c.Note != "" || m.Note != "" {
			return
		}
		if x := speedup(op, c, m); x < want {
			parts = append(parts, fmt.Sprintf("the SDK client alone, with an engine costing nothing, reaches only %s %s", times(x), peer))
		}
	}
	check(PeerEngineInproc, PeerDynalite, 10, "dynalite through the SDK")
	check(PeerEngineRaw, PeerDynalite, 10, "dynalite without a client")
	ceiling(PeerDynalite, 10)
	check(PeerEngineRaw, PeerMinidyn, 3, "minidyn without a client")
	check(PeerEngineInproc, PeerMinidynSDK, 3, "minidyn through the SDK")
	ceiling(PeerMinidynSDK, 3)
	if len(missing) > 0 {
		parts = append(parts, "no figure for "+strings.Join(missing, ", "))
	}
	return strings.Join(parts, "; ")
}

// times formats a ratio with one decimal, rounded down so that a goal
// missed never reads as met.
func times(x float64) string { return fmt.Sprintf("%.1f×", math.Floor(x*10)/10) }

func speedup(op string, a, b Result) float64 {
	if op == OpStartup {
		return float64(b.P50) / float64(max(a.P50, 1))
	}
	return a.OpsPerSec() / math.Max(b.OpsPerSec(), 1e-9)
}

func ratio(rs *Results, op, a, b string) string {
	ra, ok1 := rs.Get(op, a)
	rb, ok2 := rs.Get(op, b)
	if !ok1 || !ok2 || ra.Note != "" || rb.Note != "" {
		return "—"
	}
	return times(speedup(op, ra, rb))
}

func dur(d time.Duration) string {
	switch {
	case d < time.Microsecond:
		return fmt.Sprintf("%d ns", d.Nanoseconds())
	case d < time.Millisecond:
		return fmt.Sprintf("%.1f µs", float64(d)/float64(time.Microsecond))
	case d < time.Second:
		return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
	default:
		return fmt.Sprintf("%.2f s", d.Seconds())
	}
}

func thousands(x float64) string {
	if x < 10 {
		return fmt.Sprintf("%.2f", x)
	}
	s := fmt.Sprintf("%.0f", x)
	var out []byte
	for i := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}

func mib(b int64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }

// ceilingGoals is the least share of the "SDK client alone" ceiling the
// engine in-process must reach on each row (the standards: 0.6× on
// the transactions, and no fall below 0.8× on the rows that reached it at
// 9f303ac).
var ceilingGoals = []struct {
	op   string
	want float64
}{{OpPut, 0.8}, {OpTx1k, 0.6}, {OpTx100k, 0.6}, {OpQuery, 0.8}}

// txPutGoal is how many times a PutItem's p50 a 4-item transaction may take
// without a client.
const txPutGoal = 5

// writeEngineGoals states the engine's own goals: a transaction's cost
// against a PutItem's, and the engine's share of the SDK-alone ceiling.
func writeEngineGoals(w io.Writer, rs *Results) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("\n## Engine goals\n\n")
	p("The engine's own goals: a 4-item TransactWriteItems without a client costs at most %d× a PutItem without a client, by p50; and in-process through the SDK the engine reaches at least 0.6× of the SDK client alone on the transaction rows and at least 0.8× on PutItem and Query (the rows where it reached 0.8× before). The shares of the ceiling are the rows' medians of the paired measurement (section Paired ratios: the median of the run medians), judged unrounded against the run-to-run spread: a goal is met with margin only when the row's median exceeds it by more than the spread (the greatest run median less the least) and every run's median reaches it; met, but not by more than the run-to-run spread, when the median reaches it by less, since another run may then miss it; with a single run the spread is unknown and no goal is met with margin. The least run median stands beside each, and the ratio of the unpaired cells follows. Costs are rounded up and shares of the ceiling down, so that a goal missed never reads as met.\n\n", txPutGoal)
	put, okPut := rs.Get(OpPut, PeerEngineRaw)
	for _, op := range []string{OpTx1k, OpTx100k} {
		tx, ok := rs.Get(op, PeerEngineRaw)
		if !ok || tx.Note != "" || !okPut || put.Note != "" {
			p("- %s ÷ PutItem, no client: no figure\n", op)
			continue
		}
		x := float64(tx.P50) / float64(max(put.P50, 1))
		p("- %s ÷ PutItem, no client: p50 %s ÷ %s = %s (goal ≤ %d×: %s); throughput %s ops/s against PutItem's %s\n",
			op, dur(tx.P50), dur(put.P50), timesUp(x), txPutGoal, verdict(x <= txPutGoal), thousands(tx.OpsPerSec()), thousands(put.OpsPerSec()))
	}
	for _, g := range ceilingGoals {
		p("- %s, engine in-process ÷ SDK client alone: %s\n", g.op, ceilingShare(rs, g.op, g.want))
	}
}

// times2 formats a ratio with two decimals, rounded down like times.
func times2(x float64) string { return ratio2(x) + "×" }

func ratio2(x float64) string { return fmt.Sprintf("%.2f", math.Floor(x*100+1e-9)/100) }

// timesUp formats a cost ratio rounded up, so that a cost over its goal
// never reads as met.
func timesUp(x float64) string { return fmt.Sprintf("%.1f×", math.Ceil(x*10)/10) }

func verdict(met bool) string {
	if met {
		return "met"
	}
	return "NOT met"
}
