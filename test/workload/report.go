package workload

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"
	"strings"
	"time"
)

// Outcome of an intent, as the summary counts it.
func outcome(in *Intent) string {
	switch {
	case in.Status == 0:
		return "gave up"
	case in.Acked() && in.Replayed:
		return "ok (replayed)"
	case in.Acked():
		return "ok"
	}
	return fmt.Sprintf("%d %s", in.Status, http.StatusText(in.Status))
}

// Counts are the totals of a run.
type Counts struct {
	Intents, Attempts, Retries         int
	ReplayedResponses                  int // attempts answered with Idempotent-Replayed: true
	Timeouts, TransportErrors, Dropped int
	ServerErrors                       int // 5xx attempts
	Resubmits, Reuses                  int
	// Intrusions are hostile customers' calls (KindIntrude); of them,
	// IntrusionsRefused were answered 403 or 404 (400 for an order id of
	// another user's on create, or a forged cursor) in the end (the others
	// got no definitive answer; any success is a violation).
	Intrusions, IntrusionsRefused int
}

// Counts sums the history.
func (r *Result) Counts() Counts {
	var c Counts
	h := r.History
	c.Intents, c.Attempts = len(h.Intents), len(h.Attempts)
	for _, in := range h.Intents {
		c.Retries += max(0, len(in.Attempts)-1)
		switch in.Kind {
		case KindResubmit:
			c.Resubmits++
		case KindReuse:
			c.Reuses++
		case KindIntrude:
			c.Intrusions++
			if in.Status == http.StatusForbidden || in.Status == http.StatusNotFound || in.Refusal != 0 && in.Status == in.Refusal {
				c.IntrusionsRefused++
			}
		}
	}
	for _, a := range h.Attempts {
		switch {
		case a.Err == ErrTimeout:
			c.Timeouts++
		case a.Err == ErrNetwork:
			c.TransportErrors++
		case a.Err == ErrDropped:
			c.Dropped++
		}
		if a.Replayed {
			c.ReplayedResponses++
		}
		if a.Status >= 500 {
			c.ServerErrors++
		}
	}
	return c
}

// WriteSummary writes the run's summary as Markdown tables.
func (r *Result) WriteSummary(w io.Writer) {
	c := r.Counts()
	fmt.Fprintf(w, "Run: %s with %d clients, seed %d, fault windows of %s (faults %s); %d users, %d orders, %d items in the table at the end.\n\n",
		r.Elapsed.Round(time.Second), r.Config.Clients, r.Config.Seed, r.Config.Phase, onOff(!r.Config.NoFaults),
		len(r.State.Users), len(r.State.Orders), r.State.Items)

	// operations by type and outcome
	table := map[string]map[string]int{}
	outcomes := map[string]bool{}
	for _, in := range r.History.Intents {
		row := string(in.Op)
		if in.Kind != KindNew {
			row += " (" + in.Kind + ")"
		}
		if table[row] == nil {
			table[row] = map[string]int{}
		}
		o := outcome(in)
		table[row][o]++
		outcomes[o] = true
	}
	cols := sortedKeys(outcomes)
	rows := make([]string, 0, len(table))
	for k := range table {
		rows = append(rows, k)
	}
	sort.Strings(rows)
	fmt.Fprintf(w, "| operation | total | %s |\n|---|---:|%s\n", strings.Join(cols, " | "), strings.Repeat("---:|", len(cols)))
	for _, row := range rows {
		total := 0
		var cells []string
		for _, col := range cols {
			n := table[row][col]
			total += n
			cells = append(cells, cell(n))
		}
		fmt.Fprintf(w, "| %s | %d | %s |\n", row, total, strings.Join(cells, " | "))
	}

	f := r.Faults
	fmt.Fprintf(w, "\n| faults injected by the engine | count |\n|---|---:|\n")
	fmt.Fprintf(w, "| throttled requests | %d |\n| throttled batch items (returned unprocessed) | %d |\n| unprocessed batch items | %d |\n",
		f.Throttled, f.ThrottledItems, f.Unprocessed)
	fmt.Fprintf(w, "| transactions cancelled with TransactionConflict | %d |\n| single writes rejected with TransactionConflictException | %d |\n",
		f.TransactionConflicts, f.WriteConflicts)
	fmt.Fprintf(w, "| responses lost after commit | %d |\n| GSI writes delayed | %d |\n| latency added (total) | %s |\n",
		f.LostResponses, f.DelayedIndexWrites, f.Latency.Round(time.Millisecond))

	r.writeEvents(w)

	fmt.Fprintf(w, "\n| client side | count |\n|---|---:|\n")
	fmt.Fprintf(w, "| requests (intents) | %d |\n| HTTP attempts | %d |\n| retries (same key, same body) | %d |\n", c.Intents, c.Attempts, c.Retries)
	fmt.Fprintf(w, "| responses marked Idempotent-Replayed | %d |\n| old keys resubmitted | %d |\n| keys reused with a different body | %d |\n",
		c.ReplayedResponses, c.Resubmits, c.Reuses)
	fmt.Fprintf(w, "| customers' calls on other users' data or back-office routes | %d |\n| of them refused (403/404; 400 for another user's order id or a forged cursor) | %d |\n", c.Intrusions, c.IntrusionsRefused)
	fmt.Fprintf(w, "| client timeouts | %d |\n| connection errors | %d |\n| responses dropped by the client | %d |\n| 5xx responses | %d |\n",
		c.Timeouts, c.TransportErrors, c.Dropped, c.ServerErrors)
	fmt.Fprintf(w, "| refused, then applied by an earlier attempt still in flight (allowed, see below) | %d |\n", len(r.Observations))
	fmt.Fprintf(w, "| check points (the table's invariants checked during the run) | %d |\n", r.CheckPoints)
	fmt.Fprintf(w, "| **violations** | **%d** |\n", len(r.Violations))

	fmt.Fprintf(w, "\n| fault window | windows | seconds |\n|---|---:|---:|\n")
	count, secs := map[FaultKind]int{}, map[FaultKind]time.Duration{}
	for _, win := range r.Windows {
		count[win.Kind]++
		secs[win.Kind] += win.End - win.Start
	}
	for _, k := range Cycle {
		if count[k] > 0 {
			fmt.Fprintf(w, "| %s | %d | %.0f |\n", k, count[k], secs[k].Seconds())
		}
	}
}

// writeEvents writes the counts of the outbox: the table's stream read by
// streampoll into outbox.Publisher into a fake EventBridge; then each
// event invariant with its violations, and the counts by fault window.
func (r *Result) writeEvents(w io.Writer) {
	e := r.EventStats
	byInv, byWindow, n := map[string]int{}, map[FaultKind]int{}, 0
	for _, v := range r.Violations {
		if slices.Contains(EventInvariants, v.Invariant) {
			byInv[v.Invariant]++
			byWindow[v.Window]++
			n++
		}
	}
	fmt.Fprintf(w, "\n| events (stream -> outbox.Publisher -> fake EventBridge) | count |\n|---|---:|\n")
	fmt.Fprintf(w, "| stream records | %d |\n| events delivered (entries accepted) | %d |\n| distinct event ids | %d |\n| redeliveries (same id again) | %d |\n",
		e.Records, e.Delivered, e.Distinct, e.Redeliveries)
	fmt.Fprintf(w, "| PutEvents calls | %d |\n| PutEvents calls per distinct event | %.3f |\n| entries refused (injected partial failures) | %d |\n",
		e.Calls, ratio(e.Calls, e.Distinct), e.Refused)
	fmt.Fprintf(w, "| consumer invocations failed mid-batch (batch retried) | %d |\n| consumer processes killed mid-batch, restarted from the checkpoint | %d |\n| records given up by the poller | %d |\n",
		e.Crashes, e.Restarts, e.GivenUp)
	fmt.Fprintf(w, "| not promised: a user's events adjacent in commit order whose committedAt is reversed | %d |\n", e.CommittedAtInversions)
	fmt.Fprintf(w, "| **event violations** | **%d** |\n", n)

	fmt.Fprintf(w, "\n| events checker | violations |\n|---|---:|\n")
	for _, inv := range EventInvariants {
		fmt.Fprintf(w, "| %s | %d |\n", inv, byInv[inv])
	}

	fmt.Fprintf(w, "\n| fault window | events first delivered | redeliveries | entries refused | PutEvents calls | invocations failed mid-batch | processes restarted | event violations |\n")
	fmt.Fprintf(w, "|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, k := range Cycle {
		x := e.Windows[k]
		if x == nil {
			continue
		}
		fmt.Fprintf(w, "| %s | %d | %d | %d | %d | %d | %d | %d |\n", k, x.First, x.Redelivered, x.Refused, x.Calls, x.Crashes, x.Restarts, byWindow[k])
	}
	if byWindow[""] > 0 {
		fmt.Fprintf(w, "| (never delivered) |  |  |  |  |  |  | %d |\n", byWindow[""])
	}
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// WriteObservations writes every observation with its history.
func (r *Result) WriteObservations(w io.Writer) {
	for i, v := range r.Observations {
		fmt.Fprintf(w, "observation %d: %s\n  %s\n", i+1, v.Invariant, v.Detail)
		for _, l := range v.History {
			fmt.Fprintf(w, "    %s\n", l)
		}
	}
}

// WriteViolations writes every violation with its history.
func (r *Result) WriteViolations(w io.Writer) {
	for i, v := range r.Violations {
		fmt.Fprintf(w, "violation %d: %s\n  %s\n", i+1, v.Invariant, v.Detail)
		for _, l := range v.History {
			fmt.Fprintf(w, "    %s\n", l)
		}
	}
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func cell(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprint(n)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		// successes first, then statuses in order, "gave up" last
		ri, rj := rank(out[i]), rank(out[j])
		if ri != rj {
			return ri < rj
		}
		return out[i] < out[j]
	})
	return out
}

func rank(o string) int {
	switch {
	case o == "ok":
		return 0
	case o == "ok (replayed)":
		return 1
	case o == "gave up":
		return 3
	}
	return 2
}
