package enginebench_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	miniclient "github.com/truora/minidyn/aws-v2/client"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/test/enginebench"
	"github.com/oncetable/oncetable/test/machine"
)

var (
	reportPath = flag.String("report", os.Getenv("ENGINEBENCH_REPORT"), "write the markdown report to this file after the benchmarks")
	rssItems   = flag.Int("rss-items", 1_000_000, "items cmd/rssload loads for the memory figure (0 skips it)")
	largeTable = flag.Int("large-table", 100_000, "items in the large transaction table (smaller only for a quick trial run)")
)

var results enginebench.Results

func TestMain(m *testing.M) {
	flag.Parse()
	if err := loadPaired(*pairedIn); err != nil {
		fmt.Fprintln(os.Stderr, "enginebench: -paired-in:", err)
		os.Exit(1)
	}
	code := m.Run()
	closePeers()
	if code == 0 && *pairedOut != "" {
		if err := savePaired(*pairedOut); err != nil {
			fmt.Fprintln(os.Stderr, "enginebench: -paired-out:", err)
			code = 1
		}
	}
	if code == 0 && *reportPath != "" {
		if err := writeReport(*reportPath); err != nil {
			fmt.Fprintln(os.Stderr, "enginebench: report:", err)
			code = 1
		}
	}
	os.Exit(code)
}

var (
	peersMu sync.Mutex
	peers   []*enginebench.Peer // in the order started
	peerErr = map[string]string{}
)

// newPeer starts each peer by name.
var newPeer = map[string]func(context.Context) (*enginebench.Peer, error){
	enginebench.PeerEngineRaw:    func(context.Context) (*enginebench.Peer, error) { return enginebench.NewEngineRaw(), nil },
	enginebench.PeerEngineInproc: func(context.Context) (*enginebench.Peer, error) { return enginebench.NewEngineInproc(), nil },
	enginebench.PeerEngineHTTP:   func(context.Context) (*enginebench.Peer, error) { return enginebench.NewEngineHTTP() },
	enginebench.PeerSDKAlone:     func(context.Context) (*enginebench.Peer, error) { return enginebench.NewSDKAlone(), nil },
	enginebench.PeerMinidyn:      func(context.Context) (*enginebench.Peer, error) { return enginebench.NewMinidyn(), nil },
	enginebench.PeerMinidynSDK:   func(context.Context) (*enginebench.Peer, error) { return enginebench.NewMinidynSDK(), nil },
	enginebench.PeerDynalite:     enginebench.NewDynalite,
}

// allPeers starts every peer once per process.
func allPeers(b *testing.B) []*enginebench.Peer { return startPeers(b, enginebench.PeerOrder...) }

// startPeers starts those of the named peers this process has not tried to
// start yet and returns every peer started so far; a peer that cannot start
// is reported with the reason instead of figures.
func startPeers(b *testing.B, names ...string) []*enginebench.Peer {
	peersMu.Lock()
	defer peersMu.Unlock()
	for _, name := range names {
		if _, failed := peerErr[name]; failed || find(peers, name) != nil {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		p, err := newPeer[name](ctx)
		cancel()
		if err != nil {
			peerErr[name] = "not available: " + strings.ReplaceAll(err.Error(), "\n", " ")
			b.Logf("%s: %v", name, err)
			continue
		}
		peers = append(peers, p)
	}
	return peers
}

// startedPeers names the peers started in this process.
func startedPeers() []string {
	peersMu.Lock()
	defer peersMu.Unlock()
	var names []string
	for _, p := range peers {
		names = append(names, p.Name)
	}
	return names
}

func closePeers() {
	for _, p := range peers {
		p.Close()
	}
}

// fixture is a table prepared once per peer and workload.
type fixture struct {
	table string
	err   error
}

var (
	fixturesMu sync.Mutex
	fixtures   = map[string]*fixture{}
)

func prepared(p *enginebench.Peer, name string, load func(ctx context.Context, table string) error) *fixture {
	fixturesMu.Lock()
	defer fixturesMu.Unlock()
	k := p.Name + "/" + name
	if f, ok := fixtures[k]; ok {
		return f
	}
	ctx := context.Background()
	table := "bench-" + strings.NewReplacer(" ", "-", ",", "", "÷", "").Replace(name)
	f := &fixture{table: table}
	if _, err := p.API.CreateTable(ctx, enginebench.TableInput(table)); err != nil {
		f.err = err
	} else if err := enginebench.WaitCreated(ctx, p.API, table); err != nil {
		f.err = err
	} else if load != nil {
		f.err = load(ctx, table)
	}
	fixtures[k] = f
	return f
}

type workload struct {
	op      string
	lacks   string // operation a peer may lack
	workers int
	prepare func(ctx context.Context, api enginebench.API, table string) error
	run     func(ctx context.Context, api enginebench.API, table string) func(*rand.Rand, int) error
	// raw is the same workload without a client.
	raw func(do enginebench.Raw, table string) func(*rand.Rand, int) error
}

var putSeq int

func workloads() []workload {
	return []workload{
		{op: enginebench.OpPut, workers: 1,
			run: func(ctx context.Context, api enginebench.API, table string) func(*rand.Rand, int) error {
				// Fresh keys on every b.N round.
				putSeq++
				return enginebench.Put(ctx, api, table, fmt.Sprintf("R%d#", putSeq))
			},
			raw: func(do enginebench.Raw, table string) func(*rand.Rand, int) error {
				putSeq++
				return enginebench.RawPut(do, table, fmt.Sprintf("R%d#", putSeq))
			}},
		{op: enginebench.OpHotUpdate, workers: enginebench.HotWorkers,
			prepare: func(ctx context.Context, api enginebench.API, table string) error {
				it := enginebench.Item("HOT", 0)
				it["sk"] = it["pk"]
				_, err := api.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: it})
				return err
			},
			run: enginebench.HotUpdate, raw: enginebench.RawHotUpdate},
		{op: enginebench.OpTx1k, lacks: enginebench.OpTransact, workers: 1,
			prepare: func(ctx context.Context, api enginebench.API, table string) error {
				return enginebench.Load(ctx, api, table, 1_000, enginebench.UserPartition)
			},
			run: func(ctx context.Context, api enginebench.API, table string) func(*rand.Rand, int) error {
				return enginebench.Transact(ctx, api, table, 1_000)
			},
			raw: func(do enginebench.Raw, table string) func(*rand.Rand, int) error {
				return enginebench.RawTransact(do, table, 1_000)
			}},
		{op: enginebench.OpTx100k, lacks: enginebench.OpTransact, workers: 1,
			prepare: func(ctx context.Context, api enginebench.API, table string) error {
				return enginebench.Load(ctx, api, table, *largeTable, enginebench.UserPartition)
			},
			run: func(ctx context.Context, api enginebench.API, table string) func(*rand.Rand, int) error {
				return enginebench.Transact(ctx, api, table, *largeTable)
			},
			raw: func(do enginebench.Raw, table string) func(*rand.Rand, int) error {
				return enginebench.RawTransact(do, table, *largeTable)
			}},
		{op: enginebench.OpQuery, workers: 1,
			prepare: func(ctx context.Context, api enginebench.API, table string) error {
				if err := enginebench.Load(ctx, api, table, 100, func(int) string { return enginebench.QueryPartition }); err != nil {
					return err
				}
				// Neighbouring partitions the query must skip.
				return enginebench.Load(ctx, api, table, 400, func(i int) string { return fmt.Sprintf("QUERY#%d", 2+i%4) })
			},
			run: enginebench.Query, raw: enginebench.RawQuery},
	}
}

// BenchmarkEngine measures every workload on every peer; the cells of the
// report come from the last (largest) round of each sub-benchmark.
func BenchmarkEngine(b *testing.B) {
	ps := allPeers(b)
	for _, w := range workloads() {
		for _, name := range enginebench.PeerOrder {
			b.Run(w.op+"/"+name, func(b *testing.B) {
				p := find(ps, name)
				if p == nil {
					results.Put(enginebench.Result{Op: w.op, Peer: name, Note: peerErr[name]})
					b.Skip(peerErr[name])
				}
				if reason, ok := p.Lacks[w.lacks]; ok && w.lacks != "" {
					results.Put(enginebench.Result{Op: w.op, Peer: name, Note: "not supported (" + reason + ")"})
					b.Skip(reason)
				}
				op, err := w.on(p)
				if err != nil {
					b.Fatal(err)
				}
				disarm := func() {}
				if p.Arm != nil {
					disarm = p.Arm()
				}
				b.ResetTimer()
				wall, lat, err := enginebench.Run(b.N, w.workers, op)
				b.StopTimer()
				disarm()
				if err != nil {
					b.Fatalf("%s on %s: %v", w.op, name, err)
				}
				r := enginebench.NewResult(w.op, name, b.N, wall, lat)
				results.Put(r)
				b.ReportMetric(r.OpsPerSec(), "ops/s")
				b.ReportMetric(float64(r.P50.Nanoseconds()), "p50-ns")
				b.ReportMetric(float64(r.P99.Nanoseconds()), "p99-ns")
			})
		}
	}
}

// on prepares w's table on p (once per peer and workload) and returns a
// fresh run of w on it.
func (w workload) on(p *enginebench.Peer) (func(*rand.Rand, int) error, error) {
	f := prepared(p, w.op, func(ctx context.Context, table string) error {
		if w.prepare == nil {
			return nil
		}
		return w.prepare(ctx, p.API, table)
	})
	if f.err != nil {
		return nil, fmt.Errorf("prepare %s on %s: %w", w.op, p.Name, f.err)
	}
	if p.Raw != nil {
		return w.raw(p.Raw, f.table), nil
	}
	return w.run(context.Background(), p.API, f.table), nil
}

func find(ps []*enginebench.Peer, name string) *enginebench.Peer {
	for _, p := range ps {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// BenchmarkStartup measures the time from a new engine (or a new dynalite
// process) to its first answered request; each of the b.N rounds is one
// start.
func BenchmarkStartup(b *testing.B) {
	starters := []struct {
		name  string
		start func() (time.Duration, error)
	}{
		{enginebench.PeerEngineRaw, startRaw},
		{enginebench.PeerEngineInproc, startInproc},
		{enginebench.PeerEngineHTTP, startHTTP},
		{enginebench.PeerMinidyn, startMinidyn},
		{enginebench.PeerMinidynSDK, startMinidynSDK},
		{enginebench.PeerDynalite, startDynalite},
	}
	for _, s := range starters {
		b.Run(s.name, func(b *testing.B) {
			var lat []time.Duration
			for range b.N {
				d, err := s.start()
				if err != nil {
					results.Put(enginebench.Result{Op: enginebench.OpStartup, Peer: s.name, Note: "not available: " + err.Error()})
					b.Skip(err)
				}
				lat = append(lat, d)
			}
			var total time.Duration
			for _, d := range lat {
				total += d
			}
			r := enginebench.NewResult(enginebench.OpStartup, s.name, len(lat), total, lat)
			results.Put(r)
			b.ReportMetric(float64(r.P50.Nanoseconds()), "p50-ns")
			b.ReportMetric(float64(r.P99.Nanoseconds()), "p99-ns")
		})
	}
}

func firstRequest(api enginebench.API) error {
	_, err := api.CreateTable(context.Background(), enginebench.TableInput("startup"))
	return err
}

func startRaw() (time.Duration, error) {
	t0 := time.Now()
	e := ddblocal.New()
	err := enginebench.HandlerRaw(e.Handler())("CreateTable", enginebench.RawCreateTable("startup"), nil)
	d := time.Since(t0)
	_ = e.Close()
	return d, err
}

func startMinidynSDK() (time.Duration, error) {
	t0 := time.Now()
	err := firstRequest(enginebench.NewMinidynSDK().API)
	return time.Since(t0), err
}

func startInproc() (time.Duration, error) {
	t0 := time.Now()
	e := ddblocal.New()
	err := firstRequest(e.Client())
	d := time.Since(t0)
	_ = e.Close()
	return d, err
}

func startHTTP() (time.Duration, error) {
	t0 := time.Now()
	e := ddblocal.New()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	srv := &http.Server{Handler: e.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	err = firstRequest(enginebench.HTTPClient("http://" + ln.Addr().String()))
	d := time.Since(t0)
	_ = srv.Close()
	_ = e.Close()
	return d, err
}

func startMinidyn() (time.Duration, error) {
	t0 := time.Now()
	err := firstRequest(miniclient.NewClient())
	return time.Since(t0), err
}

func startDynalite() (time.Duration, error) {
	dir, err := enginebench.DynaliteCacheDir()
	if err != nil {
		return 0, err
	}
	ctx := context.Background()
	cli, err := enginebench.InstallDynalite(ctx, dir) // installed already by BenchmarkEngine, or now (not timed)
	if err != nil {
		return 0, err
	}
	node, err := enginebench.NodeBinary()
	if err != nil {
		return 0, err
	}
	t0 := time.Now()
	d, err := enginebench.StartDynalite(ctx, node, cli)
	if err != nil {
		return 0, err
	}
	err = firstRequest(enginebench.HTTPClient(d.Endpoint))
	took := time.Since(t0)
	d.Stop()
	return took, err
}

func writeReport(path string) error {
	env := enginebench.Environment{
		When:       time.Now(),
		GoVersion:  runtime.Version(),
		CPU:        machine.CPU(),
		CPUs:       runtime.NumCPU(),
		Load:       startLoad,
		BenchTime:  benchTime(),
		Node:       nodeVersion(),
		GOGC:       gogc(),
		GOMAXPROCS: runtime.GOMAXPROCS(0),
	}
	runs := pairedRuns()
	setPairedEnv(&env, runs)
	results.SetPairedRuns(runs)
	mem := measureRSS()
	var buf bytes.Buffer
	enginebench.WriteMarkdown(&buf, &results, env, mem)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// measureRSS runs cmd/rssload as a separate process.
func measureRSS() enginebench.Memory {
	if *rssItems <= 0 {
		return enginebench.Memory{Note: "Not measured in this run (-rss-items 0)."}
	}
	cmd := exec.Command("go", "run", "./cmd/rssload", "-items", fmt.Sprint(*rssItems))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return enginebench.Memory{Note: fmt.Sprintf("cmd/rssload failed: %v %s", err, strings.TrimSpace(stderr.String()))}
	}
	var m enginebench.Memory
	if err := json.Unmarshal(out, &m); err != nil {
		return enginebench.Memory{Note: fmt.Sprintf("cmd/rssload printed %q: %v", out, err)}
	}
	return m
}

var startLoad = machine.Load()

func benchTime() string {
	if f := flag.Lookup("test.benchtime"); f != nil {
		return f.Value.String()
	}
	return "default"
}

// gogc is the GOGC setting of this process (100 when unset).
func gogc() string { return cmp.Or(os.Getenv("GOGC"), "100") }

func nodeVersion() string {
	node, err := enginebench.NodeBinary()
	if err != nil {
		return "not found"
	}
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}
