package scalebench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/test/machine"
)

// Step is one offered rate held for a window.
type Step struct {
	// Rate is the offered calls per second, at bench scale.
	Rate float64
	// Offered, Sent and Dropped count the calls scheduled in the window,
	// started, and dropped because every worker was busy.
	Offered, Sent, Dropped int
	// OK, Throttled, Failed and Empty split the calls sent: succeeded,
	// throttled (any request of the call), failed otherwise, found nothing
	// to act on.
	OK, Throttled, Failed, Empty int
	// FailedSample is one error of a failed call.
	FailedSample string
	// Requests is what reached the engine in the window; Units the
	// capacity they consumed.
	Requests int64
	Units    float64
	// Conflicts are the transaction conflicts the calls met and retried
	// (the totaller's on its totals items, PlatformTotals).
	Conflicts int64 `json:",omitempty"`
	// Reasons counts the ThrottlingReasons (reason@resource kind) and
	// transaction cancellation codes the throttled calls got.
	Reasons map[string]int
	// Keys are the partition-key values the engine throttled in the window.
	Keys []ddblocal.ThrottledKey
	// P50 and P99 are call latencies; Late the mean delay of the
	// dispatcher behind its schedule; Span the time from the window's start
	// to the last call started (more than the window when the dispatcher
	// fell behind).
	P50, P99, Late, Span time.Duration
	Window               time.Duration // the run's Config.Window
	// CPU is the cores the process used (user + system) over the window;
	// Load the machine's 1-minute load average at its end.
	CPU  float64
	Load string
}

// ThrottledShare is the share of sent calls that were throttled.
func (s Step) ThrottledShare() float64 {
	if s.Sent == 0 {
		return 0
	}
	return float64(s.Throttled) / float64(s.Sent)
}

// Achieved is the successful calls per second at bench scale.
func (s Step) Achieved(window time.Duration) float64 { return float64(s.OK) / window.Seconds() }

// Delivered is the rate at which calls were actually started in the
// window (calls per second at bench scale).
func (s Step) Delivered() float64 {
	if s.Span <= 0 {
		return 0
	}
	return float64(s.Sent) / s.Span.Seconds()
}

// ClientBound reports whether the client, not the partitions, limited the
// step: more than 1% of the calls were dropped for want of a free worker,
// or the calls were started at less than 90% of the offered rate (the
// dispatcher, starved of CPU, fell behind its schedule).
func (s Step) ClientBound() bool {
	return float64(s.Dropped) > 0.01*float64(s.Offered) || float64(s.Sent)*s.Window.Seconds() < 0.9*float64(s.Offered)*s.Span.Seconds()
}

// throttledErr classifies a call's error: throttled, with the reasons.
func throttledErr(err error) ([]string, bool) {
	var reasons []string
	var pe *types.ProvisionedThroughputExceededException
	if errors.As(err, &pe) {
		for _, r := range pe.ThrottlingReasons {
			kind := "table"
			if strings.Contains(aws.ToString(r.Resource), "/index/") {
				kind = "index " + aws.ToString(r.Resource)[strings.LastIndex(aws.ToString(r.Resource), "/")+1:]
			}
			reasons = append(reasons, aws.ToString(r.Reason)+" on "+kind)
		}
		if len(reasons) == 0 {
			reasons = []string{"ProvisionedThroughputExceeded"}
		}
		return reasons, true
	}
	var tc *types.TransactionCanceledException
	if errors.As(err, &tc) {
		for _, r := range tc.CancellationReasons {
			if aws.ToString(r.Code) == "ThrottlingError" {
				return []string{"TransactionCanceled: ThrottlingError"}, true
			}
		}
	}
	return nil, false
}

// cpuTime is the process's user + system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// step offers rate calls per second of p for cfg.Warm, then measures
// cfg.Window.
func (b *bench) step(ctx context.Context, p pattern, rate float64, r *rand.Rand) Step {
	cfg := b.cfg
	s := Step{Rate: rate, Reasons: map[string]int{}, Window: cfg.Window}
	sem := make(chan struct{}, cfg.MaxInFlight)
	var mu sync.Mutex
	var lat []time.Duration
	var wg sync.WaitGroup
	interval := time.Duration(float64(time.Second) / rate)
	start := time.Now()
	measureAt := start.Add(cfg.Warm)
	end := measureAt.Add(cfg.Window)
	var req0 int64
	var units0 float64
	var keys0 map[string]int64
	var cpu0 time.Duration
	var conflicts0 int64
	measuring := false
	var late time.Duration
	for i := 0; ; i++ {
		at := start.Add(time.Duration(i) * interval)
		if !at.Before(end) {
			break
		}
		if !measuring && !at.Before(measureAt) {
			measuring = true
			req0, units0 = b.meter.snapshot()
			conflicts0 = b.conflicts.Load()
			keys0 = keyCounts(b.eng.ThrottledKeys())
			cpu0 = cpuTime()
		}
		if d := time.Until(at); d > 0 {
			time.Sleep(d)
		}
		c := p.draw(r)
		if measuring {
			s.Offered++
			late += time.Since(at)
		}
		select {
		case sem <- struct{}{}:
		default:
			if measuring {
				s.Dropped++
			}
			continue
		}
		counted := measuring
		if counted {
			s.Sent++
			s.Span = max(cfg.Window, time.Since(measureAt))
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := time.Now()
			err := c(ctx)
			d := time.Since(t0)
			<-sem
			if !counted {
				return
			}
			reasons, throttled := throttledErr(err)
			mu.Lock()
			defer mu.Unlock()
			lat = append(lat, d)
			switch {
			case err == nil:
				s.OK++
			case errors.Is(err, errEmpty):
				s.Empty++
			case throttled:
				s.Throttled++
				for _, r := range reasons {
					s.Reasons[r]++
				}
			default:
				s.Failed++
				if s.FailedSample == "" {
					s.FailedSample = err.Error()
				}
			}
		}()
	}
	wg.Wait()
	wall := time.Since(measureAt)
	req1, units1 := b.meter.snapshot()
	s.Requests, s.Units = req1-req0, units1-units0
	s.Conflicts = b.conflicts.Load() - conflicts0
	s.CPU = float64(cpuTime()-cpu0) / float64(wall)
	s.Load = machine.Load()
	s.Keys = keyDelta(keys0, b.eng.ThrottledKeys())
	if s.Offered > 0 {
		s.Late = late / time.Duration(s.Offered)
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	if n := len(lat); n > 0 {
		s.P50, s.P99 = lat[n/2], lat[min(n-1, n*99/100)]
	}
	return s
}

func keyID(k ddblocal.ThrottledKey) string { return k.Resource + "\x00" + k.Key + "\x00" + k.Reason }

func keyCounts(ks []ddblocal.ThrottledKey) map[string]int64 {
	m := make(map[string]int64, len(ks))
	for _, k := range ks {
		m[keyID(k)] = k.Count
	}
	return m
}

func keyDelta(before map[string]int64, after []ddblocal.ThrottledKey) []ddblocal.ThrottledKey {
	var out []ddblocal.ThrottledKey
	for _, k := range after {
		if n := k.Count - before[keyID(k)]; n > 0 {
			k.Count = n
			out = append(out, k)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Count > out[j].Count })
	return out
}

// Result is one pattern's ramp.
type Result struct {
	Variant, Name, Kind, Hot string
	Steps                    []Step
	// Onset is the lowest rate at which at least 1% of calls were
	// throttled (bench scale), 0 when none was; Clean the highest rate
	// below it that had no throttling above 1%.
	Onset, Clean float64
	// OnsetStep is the step at Onset; Twice the step at 2 × Onset.
	OnsetStep, Twice *Step `json:"-"`
	// ClientBound reports that the ramp stopped because the client, not
	// the partitions, limited a step before any throttling.
	ClientBound bool
	// RequestsPerCall and UnitsPerCall are measured on the clean steps.
	RequestsPerCall, UnitsPerCall float64
}

// throttles is the share of calls that makes a step throttled, and
// minThrottled the fewest throttled calls that do (one throttled call of a
// few dozen is a chance collision of the hot user's calls, not a limit).
const (
	throttles    = 0.01
	minThrottled = 3
)

// throttled reports whether s counts as a throttled step.
func (s Step) throttled() bool { return s.ThrottledShare() >= throttles && s.Throttled >= minThrottled }

// ramp runs p's ramp.
func (b *bench) ramp(ctx context.Context, p pattern) Result {
	cfg := b.cfg
	res := Result{Variant: b.variant.Name, Name: p.name, Kind: p.kind, Hot: p.hot}
	r := rand.New(rand.NewPCG(cfg.Population.Seed, uint64(len(p.name))*7919))
	run := func(rate float64) *Step {
		need := int(rate*(cfg.Warm+cfg.Window).Seconds()*1.2) + 10
		if err := b.refill(ctx, p, need, r); err != nil {
			fmt.Fprintf(cfg.Log, "  %s %s: %v\n", b.variant.Name, p.name, err)
		}
		time.Sleep(cfg.Burst) // the step starts with full buckets
		s := b.step(ctx, p, rate, r)
		res.Steps = append(res.Steps, s)
		fmt.Fprintf(cfg.Log, "  %-8s %-20s %7.1f/s offered: sent %d ok %d throttled %d failed %d empty %d, %d requests, cpu %.2f, load %s%s\n",
			b.variant.Name, p.name, rate*cfg.Scale, s.Sent, s.OK, s.Throttled, s.Failed, s.Empty, s.Requests, s.CPU, s.Load, flag(s))
		for i, k := range s.Keys {
			if i == 3 {
				break
			}
			fmt.Fprintf(cfg.Log, "           throttled %q on %s (%s) x%d\n", k.Key, k.Resource[strings.LastIndex(k.Resource, ":")+1:], k.Reason, k.Count)
		}
		return &res.Steps[len(res.Steps)-1]
	}
	start := cfg.StartRate
	if p.kind == "read" {
		start *= 4
	}
	for rate := start; rate <= cfg.MaxRate; rate *= 2 {
		s := run(rate)
		if s.throttled() {
			res.Onset, res.OnsetStep = rate, s
			break
		}
		if s.ClientBound() {
			res.ClientBound = true
			break
		}
		res.Clean = rate
	}
	if res.Onset > 0 && res.Clean > 0 {
		mid := math.Sqrt(res.Clean * res.Onset)
		if s := run(mid); s.throttled() {
			res.Onset, res.OnsetStep = mid, s
		} else {
			res.Clean = mid
		}
	}
	if res.Onset > 0 {
		res.Twice = run(2 * res.Onset)
	}
	var calls, reqs int
	var units float64
	for _, s := range res.Steps {
		if !s.throttled() && !s.ClientBound() {
			calls += s.OK + s.Failed
			reqs += int(s.Requests)
			units += s.Units
		}
	}
	if calls > 0 {
		res.RequestsPerCall, res.UnitsPerCall = float64(reqs)/float64(calls), units/float64(calls)
	}
	// Steps are copied into res.Steps; re-point the step pointers there.
	for i := range res.Steps {
		s := &res.Steps[i]
		if res.Onset > 0 && s.Rate == res.Onset {
			res.OnsetStep = s
		}
		if res.Onset > 0 && s.Rate == 2*res.Onset {
			res.Twice = s
		}
	}
	return res
}

func flag(s Step) string {
	switch {
	case s.throttled():
		return fmt.Sprintf(" THROTTLED %.0f%%", 100*s.ThrottledShare())
	case s.ClientBound():
		return " CLIENT-BOUND"
	}
	return ""
}
