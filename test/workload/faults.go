package workload

import (
	"time"

	"github.com/oncetable/oncetable/runtime/ddblocal"
)

// FaultKind names a fault window.
type FaultKind string

// Fault windows, in the order of one cycle.
const (
	Calm        FaultKind = "calm"
	Throttling  FaultKind = "throttling"
	Conflicts   FaultKind = "transaction-conflict"
	Latency     FaultKind = "latency-spike"
	LostReplies FaultKind = "lost-response"
	GSIDelay    FaultKind = "gsi-and-stream-delay"
	// ConsumerRestart kills the events consumer's process in the middle
	// of a batch, after it published part of it, in a quarter of its
	// invocations; a new poller resumes from the checkpoint.
	ConsumerRestart FaultKind = "consumer-restart"
	AllFaults       FaultKind = "all-faults"
)

// Cycle is the order in which fault windows follow each other.
var Cycle = []FaultKind{Calm, Throttling, Conflicts, Latency, LostReplies, GSIDelay, ConsumerRestart, AllFaults}

// Window is one fault window of a run, in offsets from its start.
type Window struct {
	Kind       FaultKind
	Start, End time.Duration
}

// schedule cuts [0, d) into windows of length phase, cycling through Cycle,
// or all calm without faults (each window still has its check point and
// its jump of the API's clock).
func schedule(d, phase time.Duration, faults bool) []Window {
	var ws []Window
	for i, at := 0, time.Duration(0); at < d; i, at = i+1, at+phase {
		end := min(at+phase, d)
		kind := Calm
		if faults {
			kind = Cycle[i%len(Cycle)]
		}
		ws = append(ws, Window{Kind: kind, Start: at, End: end})
	}
	return ws
}

// faultsFor is what the engine injects during a window; i numbers the
// window, so that each window draws from its own seeded source.
func faultsFor(k FaultKind, seed uint64, i int) ddblocal.Faults {
	f := ddblocal.Faults{Seed: seed*1_000_003 + uint64(i)}
	code := "ProvisionedThroughputExceededException"
	if i%2 == 1 {
		code = "ThrottlingException"
	}
	mode := ddblocal.LoseAs500
	if i%2 == 1 {
		mode = ddblocal.LoseAsReset
	}
	switch k {
	case Throttling:
		f.ThrottleRate, f.ThrottleCode, f.UnprocessedRate = 0.5, code, 0.3
	case Conflicts:
		f.TransactionConflictRate, f.WriteConflictRate = 0.5, 0.3
	case Latency:
		f.Latency = 100 * time.Millisecond
	case LostReplies:
		f.LoseResponseRate, f.LoseResponseMode = 0.15, mode
	case GSIDelay:
		f.GSIDelay, f.StreamDelay = time.Second, time.Second
	case AllFaults:
		f.ThrottleRate, f.ThrottleCode, f.UnprocessedRate = 0.08, code, 0.1
		f.TransactionConflictRate, f.WriteConflictRate = 0.1, 0.1
		f.Latency = 10 * time.Millisecond
		f.LoseResponseRate, f.LoseResponseMode = 0.06, mode
		f.GSIDelay, f.StreamDelay = 500*time.Millisecond, 500*time.Millisecond
	}
	return f
}

// EventFaults are the faults of the events pipeline in a window.
type EventFaults struct {
	// EntryFailRate is the share of PutEvents entries the fake EventBridge
	// endpoint refuses (partial failures).
	EntryFailRate float64
	// ErrorRate is the share of handler invocations that fail after
	// publishing part of their batch, as a function that crashes: the
	// mapping retries the batch.
	ErrorRate float64
	// RestartRate is the share of handler invocations during which the
	// consumer's process dies after publishing part of the batch: its
	// poller is gone, and a new one resumes from the checkpoint.
	RestartRate float64
}

// eventFaultsFor is what the events pipeline injects during a window:
// refusals and function errors in every window but calm, process restarts
// in the consumer-restart window and, fewer, in all-faults.
func eventFaultsFor(k FaultKind) EventFaults {
	f := EventFaults{EntryFailRate: EventEntryFailRate, ErrorRate: ConsumerCrashRate}
	switch k {
	case "", Calm:
		return EventFaults{}
	case ConsumerRestart:
		f.RestartRate = ConsumerRestartRate
	case AllFaults:
		f.RestartRate = ConsumerRestartRate / 5
	}
	return f
}
