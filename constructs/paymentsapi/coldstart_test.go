package paymentsapi

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/oncetable/oncetable/constructs/gofunction"
	"github.com/oncetable/oncetable/runtime/config"
	"github.com/oncetable/oncetable/runtime/cursorsecret"
	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/httpapi"
	"github.com/oncetable/oncetable/runtime/schema/provision"
)

// runtimeAPI is a stand-in for the Lambda Runtime API (2018-06-01) that
// serves one event, and for the AWS endpoints the functions call: DynamoDB
// (the embedded engine) and Secrets Manager's GetSecretValue. It records
// when the function first asks for an event (its init is done) and when it
// answers.
type runtimeAPI struct {
	event    []byte
	dynamodb http.Handler

	mu        sync.Mutex
	nextAt    time.Time
	answerAt  time.Time
	answer    string
	ddbCalls  int
	answered  chan struct{}
	served    bool
	closeOnce sync.Once
}

const secretValue = "a cursor-signing secret of at least 32 bytes for the benchmark"

func (s *runtimeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/2018-06-01/runtime/invocation/next":
		s.next(w, r)
	case strings.HasPrefix(r.URL.Path, "/2018-06-01/runtime/"):
		body := new(bytes.Buffer)
		body.ReadFrom(r.Body)
		s.mu.Lock()
		s.answerAt, s.answer = time.Now(), r.URL.Path+" "+body.String()
		s.mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
		s.closeOnce.Do(func() { close(s.answered) })
	case strings.HasPrefix(r.Header.Get("X-Amz-Target"), "secretsmanager."):
		s.secret(w, r)
	default:
		s.mu.Lock()
		s.ddbCalls++
		s.mu.Unlock()
		s.dynamodb.ServeHTTP(w, r)
	}
}

func (s *runtimeAPI) next(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	first := !s.served
	if first {
		s.nextAt, s.served = time.Now(), true
	}
	s.mu.Unlock()
	if !first { // the function waits for a second event until it is killed
		<-r.Context().Done()
		return
	}
	h := w.Header()
	h.Set("Lambda-Runtime-Aws-Request-Id", "cold-start-1")
	h.Set("Lambda-Runtime-Deadline-Ms", strconv.FormatInt(time.Now().Add(10*time.Second).UnixMilli(), 10))
	h.Set("Lambda-Runtime-Invoked-Function-Arn", "arn:aws:lambda:eu-west-1:111122223333:function:bench")
	h.Set("Lambda-Runtime-Trace-Id", "Root=1-00000000-000000000000000000000000;Sampled=0")
	w.Write(s.event)
}

func (s *runtimeAPI) secret(w http.ResponseWriter, r *http.Request) {
	var in struct{ VersionStage string }
	json.NewDecoder(r.Body).Decode(&in)
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	if in.VersionStage != cursorsecret.StageCurrent {
		w.Header().Set("X-Amzn-ErrorType", "ResourceNotFoundException")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"__type":"ResourceNotFoundException","message":"no such version"}`)
		return
	}
	json.NewEncoder(w).Encode(map[string]any{"SecretString": secretValue, "VersionId": "v1",
		"VersionStages": []string{cursorsecret.StageCurrent}, "CreatedDate": float64(time.Now().Add(-48 * time.Hour).Unix())})
}

// coldStartEvents is one realistic first request per function; each reads
// or writes the table.
func coldStartEvents() map[string]events.APIGatewayV2HTTPRequest {
	req := func(method, path, body string) events.APIGatewayV2HTTPRequest {
		e := events.APIGatewayV2HTTPRequest{Version: "2.0", RawPath: path, Body: body,
			Headers: map[string]string{"content-type": "application/json", "idempotency-key": "0b6f3c1e-cold-start-key-0001"}}
		e.RequestContext.HTTP.Method, e.RequestContext.HTTP.Path = method, path
		e.RequestContext.RequestID, e.RequestContext.Stage = "cold-start-1", "$default"
		e.RequestContext.Authorizer = &events.APIGatewayV2HTTPRequestContextAuthorizerDescription{
			IAM: &events.APIGatewayV2HTTPRequestContextAuthorizerIAMDescription{UserARN: "arn:aws:iam::111122223333:user/bench"}}
		return e
	}
	amount := `{"amount":1250,"currency":"EUR"}`
	return map[string]events.APIGatewayV2HTTPRequest{
		httpapi.FunctionAPI:    req(http.MethodGet, "/users/u1", ""),
		httpapi.FunctionCharge: req(http.MethodPost, "/orders/o1/payments", amount),
		httpapi.FunctionDebit:  req(http.MethodPost, "/users/u1/debits", amount),
		httpapi.FunctionSettle: req(http.MethodPost, "/orders/o1/settle", ""),
	}
}

// coldStart is one measured start of a bootstrap.
type coldStart struct {
	init, answer time.Duration // from exec to the first /next, to the answer
	ddbCalls     int
	answerText   string
	stderr       string
}

func startOnce(bin string, event []byte, env []string) (coldStart, error) {
	engine := ddblocal.New()
	defer engine.Close()
	if _, err := engine.Client().CreateTable(context.Background(), provision.CreateTableInput("bench")); err != nil {
		return coldStart{}, err
	}
	api := &runtimeAPI{event: event, dynamodb: engine.Handler(), answered: make(chan struct{})}
	srv := httptest.NewServer(api)
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")

	cmd := exec.Command(bin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Env = append([]string{"AWS_LAMBDA_RUNTIME_API=" + host, "AWS_ENDPOINT_URL=" + srv.URL,
		"AWS_REGION=eu-west-1", "AWS_ACCESS_KEY_ID=AKIDBENCH", "AWS_SECRET_ACCESS_KEY=bench", "AWS_SESSION_TOKEN=bench",
		"AWS_LAMBDA_FUNCTION_NAME=bench", "AWS_LAMBDA_FUNCTION_MEMORY_SIZE=256", "TABLE_NAME=bench", "HOME=" + os.TempDir(),
		config.CursorSecretARNEnv + "=arn:aws:secretsmanager:eu-west-1:111122223333:secret:bench"}, env...)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return coldStart{}, err
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	select {
	case <-api.answered:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		return coldStart{}, fmt.Errorf("no answer in 20s; stderr:\n%s", stderr.String())
	}
	api.mu.Lock()
	defer api.mu.Unlock()
	if api.nextAt.IsZero() {
		return coldStart{}, fmt.Errorf("answered before asking for an event: %s", api.answer)
	}
	cmd.Process.Kill()
	cmd.Wait()
	return coldStart{init: api.nextAt.Sub(start), answer: api.answerAt.Sub(start), ddbCalls: api.ddbCalls,
		answerText: api.answer, stderr: stderr.String()}, nil
}

// BenchmarkColdStart measures, per function, the time from exec of the
// bootstrap (built for this machine with the bundle's flags) to its first
// answered invocation, through the stand-in Runtime API: Go's start,
// package initialization, configuration, client creation (and, for the
// api function, reading the cursor secret), then one request that reads
// or writes the table. Run it with make bench-coldstart.
func BenchmarkColdStart(b *testing.B) {
	root, err := gofunction.ModuleRoot(".")
	if err != nil {
		b.Fatal(err)
	}
	evs := coldStartEvents()
	entries := map[string]string{"baseline": "./constructs/gofunction/testdata/hello"}
	for _, fn := range Functions() {
		entries[fn] = "./lambdas/" + fn
	}
	// Function bundles leave the OTLP exporter out (runtime/tracing otlp.go),
	// so the traced variants export to the console exporter.
	traced := []string{"OTEL_TRACES_EXPORTER=console"}
	type variant struct {
		name, fn string
		env      []string
	}
	var variants []variant
	for _, name := range append([]string{"baseline"}, Functions()...) {
		variants = append(variants, variant{name: name, fn: name})
	}
	// The traced variants: the SDK's provider, batcher and spans on every
	// call, exporting as JSON (docs/observability.md).
	for _, name := range []string{httpapi.FunctionCharge, httpapi.FunctionAPI} {
		variants = append(variants, variant{name: name + "-traced", fn: name, env: traced})
	}
	for _, v := range variants {
		name := v.fn
		b.Run(v.name, func(b *testing.B) {
			bin, err := gofunction.BuildNative(root, entries[name], filepath.Join(b.TempDir(), name))
			if err != nil {
				b.Fatal(err)
			}
			event, _ := json.Marshal(evs[name])
			if name == "baseline" {
				event = []byte(`"cold start"`)
			}
			st, _ := os.Stat(bin)
			var inits, answers []time.Duration
			var last coldStart
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if last, err = startOnce(bin, event, v.env); err != nil {
					b.Fatal(err)
				}
				inits, answers = append(inits, last.init), append(answers, last.answer)
			}
			b.StopTimer()
			b.ReportMetric(ms(median(inits)), "init-ms")
			b.ReportMetric(ms(median(answers)), "first-answer-ms")
			b.ReportMetric(float64(st.Size())/(1<<20), "native-MiB")
			b.Logf("%s: %d starts, median init %.1f ms, median first answer %.1f ms, %d DynamoDB calls; answer %.120s",
				v.name, len(answers), ms(median(inits)), ms(median(answers)), last.ddbCalls, last.answerText)
			if inits, err := startOnce(bin, event, append([]string{"GODEBUG=inittrace=1"}, v.env...)); err == nil {
				b.Logf("%s: slowest package initializations: %s", v.name, slowestInits(inits.stderr, 5))
			}
		})
	}
}

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

var initLine = regexp.MustCompile(`^init (\S+) @[0-9.]+ ms, ([0-9.]+) ms clock`)

// slowestInits reads GODEBUG=inittrace=1 output: the n package
// initializations that took the most clock time, and their total.
func slowestInits(stderr string, n int) string {
	type pkg struct {
		name string
		ms   float64
	}
	var pkgs []pkg
	total := 0.0
	sc := bufio.NewScanner(strings.NewReader(stderr))
	for sc.Scan() {
		if m := initLine.FindStringSubmatch(sc.Text()); m != nil {
			v, _ := strconv.ParseFloat(m[2], 64)
			pkgs = append(pkgs, pkg{m[1], v})
			total += v
		}
	}
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].ms > pkgs[j].ms })
	var parts []string
	for i := 0; i < n && i < len(pkgs); i++ {
		parts = append(parts, fmt.Sprintf("%s %.2f ms", pkgs[i].name, pkgs[i].ms))
	}
	return fmt.Sprintf("%d packages, %.2f ms in all; %s", len(pkgs), total, strings.Join(parts, ", "))
}
