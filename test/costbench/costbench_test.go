package costbench_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/httpapi"
	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/schema/provision"
)

const table = "oncetable-costbench"

// results holds the last (largest b.N) run of each measurement, for the
// report TestMain writes.
var (
	resultsMu sync.Mutex
	results   = map[string]*sample{}
	hot       = map[string]*hotResult{}
)

func record(name string, s *sample) {
	resultsMu.Lock()
	results[name] = s
	resultsMu.Unlock()
}

func TestMain(m *testing.M) {
	code := m.Run()
	if out := os.Getenv("COSTBENCH_OUT"); out != "" && code == 0 && len(results) > 0 {
		if err := os.WriteFile(out, []byte(report()), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "costbench:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// world is an engine with the table, the API on a metered client, and the
// baseline on the same client.
type world struct {
	db  *dynamodb.Client
	api *httpapi.API
	// own is the API once legacy records are no longer checked
	// (SkipLegacyRecords): the record in its own partition alone.
	own *httpapi.API
	pt  *powertools
	ext *powertools
	seq atomic.Int64
}

func newWorld(b testing.TB) *world {
	b.Helper()
	eng := ddblocal.New(func(o *ddblocal.Options) { o.TTLSweepInterval = -1 })
	b.Cleanup(func() { eng.Close() })
	db := eng.Client(func(o *dynamodb.Options) { o.APIOptions = append(o.APIOptions, meter) })
	if err := provision.EnsureTable(context.Background(), db, table); err != nil {
		b.Fatal(err)
	}
	x := &external{records: idempotency.NewTable(db, table)}
	cfg := httpapi.Config{Table: table, Log: io.Discard, Metrics: io.Discard,
		Auth: httpapi.Auth{IAMOperators: []string{"arn:aws:iam::123456789012:user/bench"}}}
	w := &world{db: db, pt: &powertools{db: db, table: table}, ext: &powertools{db: db, table: table, guard: x.guard},
		api: httpapi.New(db, cfg)}
	cfg.SkipLegacyRecords = true
	w.own = httpapi.New(db, cfg)
	return w
}

func (w *world) id(prefix string) string { return fmt.Sprintf("%s%d", prefix, w.seq.Add(1)) }

func event(method, path, key, body string) events.APIGatewayV2HTTPRequest {
	h := map[string]string{}
	if body != "" {
		h["content-type"] = "application/json"
	}
	if key != "" {
		h["idempotency-key"] = key
	}
	return events.APIGatewayV2HTTPRequest{Version: "2.0", RouteKey: "$default", RawPath: path, Headers: h, Body: body,
		RequestContext: events.APIGatewayV2HTTPRequestContext{RequestID: "bench", Stage: "$default",
			HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: method, Path: path},
			Authorizer: &events.APIGatewayV2HTTPRequestContextAuthorizerDescription{
				IAM: &events.APIGatewayV2HTTPRequestContextAuthorizerIAMDescription{UserARN: "arn:aws:iam::123456789012:user/bench"}}}}
}

// must runs a setup request, unmetered.
func (w *world) must(b testing.TB, status int, method, path, key, body string) {
	b.Helper()
	r, _ := w.api.Handle(context.Background(), event(method, path, key, body))
	if r.StatusCode != status {
		b.Fatalf("setup %s %s: %d %s, want %d", method, path, r.StatusCode, r.Body, status)
	}
}

func (w *world) user(b testing.TB, balance int64) string {
	u := w.id("u")
	w.must(b, 201, "POST", "/users", "", fmt.Sprintf(`{"userId":%q,"name":"U","email":"u@example.com"}`, u))
	w.must(b, 201, "POST", "/users/"+u+"/credits", w.id("seed-"), fmt.Sprintf(`{"amount":%d,"currency":"EUR"}`, balance))
	return u
}

func (w *world) order(b testing.TB, user string, total int64) string {
	o := w.id("o")
	w.must(b, 201, "POST", "/users/"+user+"/orders", w.id("seed-"),
		fmt.Sprintf(`{"orderId":%q,"currency":"EUR","items":[{"productId":"p","quantity":1,"unitPrice":%d}]}`, o, total))
	return o
}

// charged is an order of total that is charged, as a settle requires.
func (w *world) charged(b testing.TB, user string, total int64) string {
	o := w.order(b, user, total)
	w.must(b, 201, "POST", "/orders/"+o+"/payments", w.id("seed-"), fmt.Sprintf(`{"amount":%d,"currency":"EUR"}`, total))
	return o
}

// call is one request of a flow, either through oncetable's handler or
// through the baseline.
type call struct {
	method, path, body string
	key                string
	// baseline runs the same request through the Powertools sequence.
	baseline func(ctx context.Context) (string, bool, error)
	// external runs the baseline's effect under the library's external mode.
	external func(ctx context.Context) (string, bool, error)
}

// flow makes a fresh request of one flow (a new key, and a new order where
// the flow needs one).
type flow struct {
	name string
	make func(b testing.TB, w *world, user string) call
}

const amount = 1250

var flows = []flow{
	{"charge", func(b testing.TB, w *world, user string) call {
		o, k := w.order(b, user, amount), w.id("k")
		return call{"POST", "/orders/" + o + "/payments", fmt.Sprintf(`{"amount":%d,"currency":"EUR"}`, amount), k,
			func(ctx context.Context) (string, bool, error) { return w.pt.charge(ctx, hash(k), o, amount) },
			func(ctx context.Context) (string, bool, error) { return w.ext.charge(ctx, hash(k), o, amount) }}
	}},
	{"debit", func(b testing.TB, w *world, user string) call {
		k := w.id("k")
		return call{"POST", "/users/" + user + "/debits", fmt.Sprintf(`{"amount":%d,"currency":"EUR"}`, amount), k,
			func(ctx context.Context) (string, bool, error) { return w.pt.debit(ctx, hash(k), user, amount) },
			func(ctx context.Context) (string, bool, error) { return w.ext.debit(ctx, hash(k), user, amount) }}
	}},
	{"settle", func(b testing.TB, w *world, user string) call {
		o, k := w.charged(b, user, amount), w.id("k")
		return call{"POST", "/orders/" + o + "/settle", "", k,
			func(ctx context.Context) (string, bool, error) { return w.pt.settle(ctx, hash(k), o) },
			func(ctx context.Context) (string, bool, error) { return w.ext.settle(ctx, hash(k), o) }}
	}},
}

func hash(k string) string {
	s := sha256.Sum256([]byte(k))
	return hex.EncodeToString(s[:])
}

// run sends c through one implementation and returns what it cost, the
// latency, and whether the answer was a replay.
func (w *world) run(c call, impl string) (usage, time.Duration, bool, error) {
	var u usage
	ctx := metered(context.Background(), &u)
	start := time.Now()
	switch impl {
	case "baseline":
		_, replayed, err := c.baseline(ctx)
		return u, time.Since(start), replayed, err
	case "external":
		_, replayed, err := c.external(ctx)
		return u, time.Since(start), replayed, err
	}
	api := w.api
	if impl == ownPartition {
		api = w.own
	}
	r, _ := api.Handle(ctx, event(c.method, c.path, c.key, c.body))
	d := time.Since(start)
	if r.StatusCode != http.StatusCreated && r.StatusCode != http.StatusOK {
		return u, d, false, fmt.Errorf("%s %s: %d %s", c.method, c.path, r.StatusCode, r.Body)
	}
	return u, d, r.Headers["Idempotent-Replayed"] == "true", nil
}

// impls: oncetable's flows (the library's transactional mode, as deployed:
// checking the records' pre-upgrade place too), the same once that check is
// off (ownPartition), the Powertools-style baseline, and the library's
// external mode around the baseline's effects.
var impls = []string{"oncetable", ownPartition, "baseline", "external"}

// ownPartition is oncetable with httpapi.Config.SkipLegacyRecords.
const ownPartition = "oncetable-skip-legacy"

// calls makes b.N fresh calls of f, all for one new user of w, so that
// every iteration is a first call.
func (f flow) calls(b *testing.B, w *world) []call {
	user := w.user(b, 1_000_000_000)
	calls := make([]call, b.N)
	for i := range calls {
		calls[i] = f.make(b, w, user)
	}
	return calls
}

// BenchmarkFlows: each flow, each case, each implementation. ddb-req/op is
// the number of DynamoDB requests of one call.
func BenchmarkFlows(b *testing.B) {
	for _, f := range flows {
		for _, impl := range impls {
			b.Run(f.name+"/first/"+impl, func(b *testing.B) {
				w := newWorld(b)
				calls := f.calls(b, w)
				s := &sample{}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					u, d, replayed, err := w.run(calls[i], impl)
					if err != nil || replayed {
						b.Fatalf("first call: replayed %v, err %v", replayed, err)
					}
					s.add(&u, d)
				}
				finish(b, f.name+"/first/"+impl, s)
			})
			b.Run(f.name+"/replay/"+impl, func(b *testing.B) {
				w := newWorld(b)
				c := f.make(b, w, w.user(b, 1_000_000_000))
				if _, _, _, err := w.run(c, impl); err != nil {
					b.Fatal(err)
				}
				s := &sample{}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					u, d, replayed, err := w.run(c, impl)
					if err != nil || !replayed {
						b.Fatalf("replay: replayed %v, err %v", replayed, err)
					}
					s.add(&u, d)
				}
				finish(b, f.name+"/replay/"+impl, s)
			})
			b.Run(f.name+"/race-loser/"+impl, func(b *testing.B) {
				w := newWorld(b)
				calls := f.calls(b, w)
				s := &sample{}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					race(b, w, calls[i], impl, s)
				}
				finish(b, f.name+"/race-loser/"+impl, s)
			})
		}
	}
}

// race sends one request twice at the same moment and samples the loser:
// the call that did not apply the effect (oncetable: the replayed answer;
// baseline: the call whose Put failed, answered either from the COMPLETE
// record or with IdempotencyAlreadyInProgressError).
func race(b *testing.B, w *world, c call, impl string, s *sample) {
	type res struct {
		u        usage
		d        time.Duration
		replayed bool
		err      error
	}
	var out [2]res
	var wg sync.WaitGroup
	start := make(chan struct{})
	for j := range out {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			out[j].u, out[j].d, out[j].replayed, out[j].err = w.run(c, impl)
		}()
	}
	close(start)
	wg.Wait()
	winners, losers := 0, []res{}
	for _, r := range out {
		switch {
		case r.err == nil && !r.replayed:
			winners++
		case r.replayed || (impl != "oncetable" && r.err == errInProgress):
			losers = append(losers, r)
		default:
			b.Fatalf("race: unexpected outcome %+v", r)
		}
	}
	if winners != 1 || len(losers) != 1 {
		b.Fatalf("race: %d winners, %d losers; want 1 and 1", winners, len(losers))
	}
	l := losers[0]
	if l.err == errInProgress && impl == "external" {
		s.note("answered InProgressError, HTTP 409 (the client must retry later)")
	} else if l.err == errInProgress {
		s.note("answered IdempotencyAlreadyInProgressError (the client must retry later)")
	} else {
		s.note("answered the winner's stored response")
	}
	s.add(&l.u, l.d)
}

func finish(b *testing.B, name string, s *sample) {
	b.StopTimer()
	b.ReportMetric(s.perCall(float64(s.u.Requests)), "ddb-req/op")
	b.ReportMetric(s.perCall(s.u.WCU), "WCU/op")
	b.ReportMetric(s.perCall(s.u.RCU), "RCU/op")
	b.ReportMetric(float64(s.quantile(0.5).Microseconds()), "p50-µs")
	b.ReportMetric(float64(s.quantile(0.99).Microseconds()), "p99-µs")
	record(name, s)
}

// hotResult is one hot-account throughput run.
type hotResult struct {
	ops         int
	elapsed     time.Duration
	lat         *sample
	unavailable int
}

// BenchmarkHotAccount: concurrent clients debit one account, each request
// with its own key; ops/s is the throughput of successful debits.
func BenchmarkHotAccount(b *testing.B) {
	for _, clients := range []int{16, 64} {
		for _, impl := range impls {
			name := fmt.Sprintf("clients=%d/%s", clients, impl)
			b.Run(name, func(b *testing.B) {
				w := newWorld(b)
				user := w.user(b, 1_000_000_000_000)
				f := flows[1] // debit
				calls := make([]call, b.N)
				for i := range calls {
					calls[i] = f.make(b, w, user)
				}
				s := &sample{}
				var next atomic.Int64
				var unavailable atomic.Int64
				var wg sync.WaitGroup
				b.ResetTimer()
				start := time.Now()
				for range clients {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for {
							i := int(next.Add(1)) - 1
							if i >= b.N {
								return
							}
							u, d, _, err := w.run(calls[i], impl)
							if err != nil {
								unavailable.Add(1)
								continue
							}
							s.add(&u, d)
						}
					}()
				}
				wg.Wait()
				elapsed := time.Since(start)
				b.StopTimer()
				b.ReportMetric(float64(s.calls)/elapsed.Seconds(), "debits/s")
				b.ReportMetric(float64(s.quantile(0.99).Microseconds()), "p99-µs")
				b.ReportMetric(float64(unavailable.Load()), "failed")
				resultsMu.Lock()
				hot[name] = &hotResult{ops: s.calls, elapsed: elapsed, lat: s, unavailable: int(unavailable.Load())}
				resultsMu.Unlock()
			})
		}
	}
}
