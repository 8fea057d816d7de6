package workload

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/httpapi"
	"github.com/oncetable/oncetable/runtime/localrun"
	"github.com/oncetable/oncetable/runtime/schema/provision"
	"github.com/oncetable/oncetable/runtime/streampoll"
	"github.com/oncetable/oncetable/runtime/verify"
)

// Config is a workload run. Every field has a default.
type Config struct {
	// Duration of the run. Default: 30s.
	Duration time.Duration
	// Clients is the number of concurrent clients. Default: 16.
	Clients int
	// Intruders is the number of hostile customers beside the clients:
	// each calls, as a customer, other users' debits, orders, charges,
	// settles, balances and ledgers and the back office's routes, and must
	// be refused every time. Default: 2; negative: none.
	Intruders int
	// Users caps how many users the clients create. Default: 24.
	Users int
	// Seed seeds the clients' choices and the engine's faults. Default: 1.
	Seed uint64
	// NoFaults turns fault injection off: the engine keeps the faults of
	// its options (Engine), none by default. Default: false (all faults
	// on, in windows).
	NoFaults bool
	// Phase is the length of one fault window. Default: 10s.
	Phase time.Duration
	// Timeout is a client's usual patience for one attempt. Default: 2s.
	Timeout time.Duration
	// ShortTimeout is the patience of one attempt in ten, so latency
	// spikes produce client timeouts. Default: 60ms.
	ShortTimeout time.Duration
	// MaxTries bounds the attempts of one request. Default: 12.
	MaxTries int
	// MaxRetryAfter caps how long a client honours Retry-After.
	// Default: 100ms.
	MaxRetryAfter time.Duration
	// HoldExpiry makes the API's clock jump by HoldClockJump at the start
	// of each fault window after the first, so that the short holds the
	// clients authorize expire in the next window, among captures, voids
	// and the flows that release them. The API's timestamps then run
	// ahead of the machine's, which a check that compares them with its
	// own clock (the reconciler's) must not be run beside. Default: false.
	HoldExpiry bool
	// Focus multiplies by ten the weights of these operations in the
	// clients' mix (their races too), so that a short run makes many of
	// them: a mutant test focuses on the flows its guard protects.
	// Default: none, the soak's mix.
	Focus []Op
	// Without takes these operations out of the clients' mix (their
	// races too). Default: none.
	Without []Op
	// History, if set, receives every attempt as one JSON line.
	History io.Writer
	// Progress, if set, receives a line every ten seconds.
	Progress io.Writer
	// ClientOptions change the DynamoDB client the API uses. Tests use them
	// to break the system on purpose and prove the checker notices.
	// Default: none.
	ClientOptions []func(*dynamodb.Options)
	// Consumer, if set, wraps the stream handler the events pipeline
	// drives (the production outbox.Publisher behind the consumer-crash
	// fault). Tests use it to break the outbox on purpose. Default: none.
	Consumer func(streampoll.Handler) streampoll.Handler
	// PartitionThroughput limits each partition-key value of the engine's
	// table and indexes (ddblocal.PartitionThroughput). Default: off.
	PartitionThroughput ddblocal.PartitionThroughput
	// Engine changes the engine's options after the workload's own (the
	// dr-drill's point-in-time recovery lag, say). Default: none.
	Engine []func(*ddblocal.Options)
	// API changes the API's configuration (the first deploy); the table is
	// created with the indexes of its Schema. Default: none.
	API []func(*httpapi.Config)
	// During, if set, runs beside the clients from their start, for
	// example a migration with deploys (Live.Deploy). The clients go on
	// until it has returned and Duration has passed; its error is
	// Result.During. Default: none.
	During func(ctx context.Context, live *Live) error
	// Check, if set, adds its violations to the run's, after the run, on
	// the table at rest (faults cleared). Its error is a setup error of Run.
	Check func(ctx context.Context, live *Live, st *State) ([]Violation, error)
}

func (c Config) withDefaults() Config {
	if c.Duration <= 0 {
		c.Duration = 30 * time.Second
	}
	if c.Clients <= 0 {
		c.Clients = 16
	}
	if c.Users <= 0 {
		c.Users = 24
	}
	if c.Intruders == 0 {
		c.Intruders = 2
	}
	if c.Seed == 0 {
		c.Seed = 1
	}
	if c.Phase <= 0 {
		c.Phase = 10 * time.Second
	}
	if c.Timeout <= 0 {
		c.Timeout = 2 * time.Second
	}
	if c.ShortTimeout <= 0 {
		c.ShortTimeout = 60 * time.Millisecond
	}
	if c.MaxTries <= 0 {
		c.MaxTries = 12
	}
	if c.MaxRetryAfter <= 0 {
		c.MaxRetryAfter = 100 * time.Millisecond
	}
	return c
}

// Result is a finished run.
type Result struct {
	Config     Config
	Elapsed    time.Duration
	History    *History
	Windows    []Window
	Faults     ddblocal.FaultCounts
	Seconds    []Second
	Violations []Violation
	// Observations are outcomes the invariants allow but that a client
	// would notice: a request refused with a business failure while an
	// earlier attempt of it was still in flight, which then committed.
	Observations []Violation
	// CheckPoints counts the check points taken during the run (the
	// table's invariants checked at each fault window; see CheckTable).
	CheckPoints int
	// APIClock is the API's clock when the run ended (it runs ahead of
	// the machine's by HoldClockJump per fault window).
	APIClock time.Time
	// State is the table as the checker read it.
	State *State
	// Events are the outbox's deliveries to the fake EventBridge, and
	// EventStats their counts. Event violations are in Violations.
	Events     *EventLog
	EventStats EventStats
	// During is the error Config.During returned.
	During error
}

// Second is what completed in one second of the run.
type Second struct {
	Attempts int           // HTTP exchanges that completed (any status)
	Acked    int           // of them, success responses
	P99      time.Duration // 99th percentile latency of the attempts
	P50      time.Duration
}

// Table is the name of the workload's table.
const Table = "oncetable-workload"

// runner is one run in progress.
type runner struct {
	cfg     Config
	url     string
	http    *http.Client
	start   time.Time
	history *History
	world   *world
	window  atomic.Int32 // index into windows, -1 before the start

	windows []Window
	latMu   sync.Mutex
	lat     [][]time.Duration // per second
	acked   []int
	reads   []balanceRead

	// skew is how far the API's clock runs ahead of the machine's: it
	// jumps by HoldClockJump at each fault window with HoldExpiry.
	skew   atomic.Int64
	points checkPoints
}

// HoldClockJump is how far the API's clock jumps at the start of each
// fault window after the first, with Config.HoldExpiry: past a short
// hold's expiry, so the holds of one window expire in the next while the
// clients still capture, void and spend around them.
const HoldClockJump = HoldExpirySeconds*time.Second + time.Second

// now is the API's clock.
func (r *runner) now() time.Time { return time.Now().Add(time.Duration(r.skew.Load())) }

type balanceRead struct {
	intent             int
	balance, available int64
}

// Run runs the workload and checks its invariants. It returns an error only
// when the run could not be set up; violations are in the Result.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	cfg = cfg.withDefaults()
	eng, err := ddblocal.Open(func(o *ddblocal.Options) {
		o.TTLSweepInterval = -1
		o.PartitionThroughput = cfg.PartitionThroughput
		for _, f := range cfg.Engine {
			f(o)
		}
	})
	if err != nil {
		return nil, err
	}
	defer eng.Close()
	db := eng.Client(cfg.ClientOptions...)
	horizon := cfg.Duration
	if cfg.During != nil {
		horizon += time.Hour // the windows go on cycling while During runs; trimmed at the end
	}
	r := &runner{cfg: cfg, world: &world{}, windows: schedule(horizon, cfg.Phase, !cfg.NoFaults)}
	r.window.Store(-1)
	apiCfg := r.apiConfig()
	if err := provision.EnsureTableFor(ctx, db, Table, apiCfg.Schema); err != nil {
		return nil, fmt.Errorf("workload: create table: %w", err)
	}
	pipe, err := startEvents(ctx, eng, db, cfg, r.windowKind)
	if err != nil {
		return nil, err
	}
	live := &Live{Engine: eng, DB: db, Table: Table, r: r,
		api: newSwapHandler(localrun.Handler(httpapi.New(db, apiCfg).Handle, nil))}
	srv := httptest.NewServer(live.api)
	defer srv.Close()

	r.url = srv.URL
	r.http = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2 * cfg.Clients, MaxConnsPerHost: 0}}
	r.start = time.Now()
	r.history = newHistory(r.start, cfg.History)

	// A few users exist before the clients start, so every operation has
	// something to act on from the first second.
	seedRng := rand.New(rand.NewPCG(cfg.Seed, 0))
	boot := &client{id: -1, caller: "boot", rng: seedRng, run: r}
	for range min(4, cfg.Users) {
		boot.step(ctx, OpCreateUser, KindNew)
	}
	if r.world.userCount() == 0 {
		return nil, errors.New("workload: could not create the first users")
	}

	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	r.start = time.Now()
	r.history.start = r.start
	var during error
	duringDone := make(chan struct{})
	go func() {
		defer close(duringDone)
		if cfg.During != nil {
			during = cfg.During(ctx, live)
		}
	}()
	go func() {
		// The clients stop when Duration has passed and During returned.
		select {
		case <-ctx.Done():
		case <-time.After(cfg.Duration):
		}
		<-duringDone
		cancel()
	}()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); r.injectFaults(runCtx, eng) }()
	for i := range cfg.Clients {
		c := &client{id: i, caller: fmt.Sprintf("caller-%d", i%4), rng: rand.New(rand.NewPCG(cfg.Seed, uint64(i)+1)), run: r}
		wg.Add(1)
		go func() { defer wg.Done(); c.loop(runCtx) }()
	}
	for i := range max(0, cfg.Intruders) {
		// Streams of their own (second PCG word above the clients'), so the
		// clients' choices are those of a run without intruders.
		c := &client{id: cfg.Clients + i, rng: rand.New(rand.NewPCG(cfg.Seed, 1<<32+uint64(i))), run: r}
		wg.Add(1)
		go func() { defer wg.Done(); c.intrudeLoop(runCtx) }()
	}
	wg.Wait()
	elapsed := time.Since(r.start)
	r.points.wait()
	eng.ClearFaults("")
	faults := eng.FaultCounts()
	if err := r.history.flush(); err != nil {
		return nil, fmt.Errorf("workload: history: %w", err)
	}
	// GSI writes held back by a delay land within its length; the checker
	// reads the base table only, but waits so the table is at rest.
	time.Sleep(1100 * time.Millisecond)

	state, err := ReadState(context.Background(), db, Table)
	if err != nil {
		return nil, err
	}
	// The outbox catches up with the stream (the faults are cleared, so no
	// record is held back) before its deliveries are checked.
	evlog, evstats, err := pipe.drain(context.Background())
	if err != nil {
		return nil, err
	}
	res := &Result{Config: cfg, Elapsed: elapsed, History: r.history, Windows: trim(r.windows, elapsed), Faults: faults,
		Seconds: r.seconds(), State: state, Events: evlog, EventStats: evstats, During: during, APIClock: r.now()}
	res.Violations, res.Observations = check(r.history, r.reads, state)
	res.CheckPoints, res.Violations = r.points.taken(), append(r.points.violations(), res.Violations...)
	res.Violations = append(res.Violations, CheckEvents(state, evlog)...)
	if evstats.Stalled != "" {
		res.Violations = append(res.Violations, Violation{Invariant: InvEventDelivered, Detail: "the stream did not drain: " + evstats.Stalled})
	}
	money, err := checkMoney(context.Background(), db, apiCfg)
	if err != nil {
		return nil, err
	}
	res.Violations = append(res.Violations, money...)
	if cfg.Check != nil {
		more, err := cfg.Check(context.Background(), live, state)
		if err != nil {
			return nil, fmt.Errorf("workload: check: %w", err)
		}
		res.Violations = append(res.Violations, more...)
	}
	return res, nil
}

// trim cuts the windows at the end of the run.
func trim(ws []Window, end time.Duration) []Window {
	var out []Window
	for _, w := range ws {
		if w.Start < end {
			w.End = min(w.End, end)
			out = append(out, w)
		}
	}
	return out
}

// windowKind is the fault window the run is in, "" before the first; the
// last one lasts until the run is checked, so the events pipeline's faults
// (eventFaultsFor) go on while it drains.
func (r *runner) windowKind() FaultKind {
	i := r.window.Load()
	if i < 0 {
		return ""
	}
	return r.windows[i].Kind
}

// injectFaults moves the engine through the fault windows.
func (r *runner) injectFaults(ctx context.Context, eng *ddblocal.Engine) {
	for i, w := range r.windows {
		if d := time.Until(r.start.Add(w.Start)); d > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(d):
			}
		}
		if i > 0 {
			if r.cfg.HoldExpiry {
				r.skew.Add(int64(HoldClockJump))
			}
			r.points.take(ctx, eng, i, time.Since(r.start))
		}
		if !r.cfg.NoFaults {
			eng.SetFaults("", faultsFor(w.Kind, r.cfg.Seed, i))
		}
		r.window.Store(int32(i))
		if r.cfg.Progress != nil {
			fmt.Fprintf(r.cfg.Progress, "%6.1fs window %d: %s (%d attempts so far)\n", time.Since(r.start).Seconds(), i, w.Kind, r.attempts())
		}
	}
}

func (r *runner) attempts() int {
	r.history.mu.Lock()
	defer r.history.mu.Unlock()
	return len(r.history.Attempts)
}

// dropRate is the share of keyed responses a client throws away: many in
// the lost-response windows, a few at any time.
func (r *runner) dropRate() float64 {
	i := r.window.Load()
	if i < 0 {
		return 0
	}
	switch r.windows[i].Kind {
	case LostReplies, AllFaults:
		return 0.08
	case Calm:
		return 0
	}
	return 0.01
}

// observe adds an attempt to the per-second series and keeps balance reads.
func (r *runner) observe(in *Intent, a *Attempt) {
	sec := int((a.Start + a.Latency) / time.Second)
	r.latMu.Lock()
	defer r.latMu.Unlock()
	for len(r.lat) <= sec {
		r.lat = append(r.lat, nil)
		r.acked = append(r.acked, 0)
	}
	r.lat[sec] = append(r.lat[sec], a.Latency)
	if a.Status >= 200 && a.Status < 300 && a.Err == ErrNone {
		r.acked[sec]++
	}
	if in.Op == OpBalance && a.Status == http.StatusOK {
		var b struct{ Balance, Available int64 }
		if err := jsonUnmarshal(a.Body, &b); err == nil {
			r.reads = append(r.reads, balanceRead{intent: in.ID, balance: b.Balance, available: b.Available})
		}
	}
}

func (r *runner) seconds() []Second {
	r.latMu.Lock()
	defer r.latMu.Unlock()
	out := make([]Second, len(r.lat))
	for i, l := range r.lat {
		sort.Slice(l, func(a, b int) bool { return l[a] < l[b] })
		out[i] = Second{Attempts: len(l), Acked: r.acked[i], P99: quantile(l, 0.99), P50: quantile(l, 0.5)}
	}
	return out
}

func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted))*q+0.999999) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// InvMoney is the invariants runtime/verify checks on the table alone (the
// checker above checks most of them too, with the requests' history).
const InvMoney = "the table holds the money invariants of runtime/verify"

// checkMoney runs the verifier, as a restore would be checked, on the
// table at rest.
func checkMoney(ctx context.Context, db *dynamodb.Client, api httpapi.Config) ([]Violation, error) {
	rep, err := verify.Table(ctx, db, func(o *verify.Options) {
		o.Table, o.Schema, o.Keys, o.MaxRCU, o.ConsistentRead = Table, api.Schema, api.Keys, -1, true
	})
	if err != nil {
		return nil, fmt.Errorf("workload: verify: %w", err)
	}
	var out []Violation
	for _, v := range rep.Violations {
		detail := string(v.Kind) + ": " + v.Detail
		for _, k := range v.Keys {
			detail += " [" + k.PK + " " + k.SK + "]"
		}
		out = append(out, Violation{Invariant: InvMoney, Detail: detail})
	}
	return out, nil
}
