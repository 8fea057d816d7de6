package localrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/home"
	"github.com/oncetable/oncetable/runtime/httpapi"
	"github.com/oncetable/oncetable/runtime/httpapi/openapi"
	"github.com/oncetable/oncetable/runtime/obs"
	"github.com/oncetable/oncetable/runtime/retry"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/schema/provision"
	"github.com/oncetable/oncetable/runtime/store"
	"github.com/oncetable/oncetable/runtime/tracing"
)

// Options configures the local runner. Every field has a default.
type Options struct {
	// APIAddr is where the API listens. Default: 127.0.0.1:8080.
	APIAddr string
	// DynamoDBAddr is where the embedded engine listens (DynamoDB JSON 1.0
	// protocol, for the AWS CLI or an SDK). Default: 127.0.0.1:8000.
	DynamoDBAddr string
	// DynamoDBEndpoint, when set, is an external DynamoDB endpoint used
	// instead of the embedded engine. Default: "" (embedded).
	DynamoDBEndpoint string
	// DataDir keeps the embedded engine's data across restarts.
	// Default: "" (in memory).
	DataDir string
	// Durable makes the embedded engine fsync every commit to DataDir
	// before it answers (see ddblocal.Options.Durable). Default: false.
	Durable bool
	// PartitionThroughput limits each partition-key value of the embedded
	// engine's tables and indexes, so that hot keys are throttled as in
	// DynamoDB (see ddblocal.PartitionThroughput). Default: off.
	PartitionThroughput ddblocal.PartitionThroughput
	// Regions makes the embedded engine serve these Regions on
	// DynamoDBAddr, each request routed by the Region it is signed for
	// (ddblocal.Options.Regions); the API and the table are in the first.
	// Default: none (one Region).
	Regions []string
	// Table is the table name. Default: $TABLE_NAME, else "oncetable".
	Table string
	// IdempotencyExpiry is how long keys block. Default: 24h.
	IdempotencyExpiry time.Duration
	// Out receives the banner and one JSON log line per request.
	// Default: os.Stdout.
	Out io.Writer
	// Metrics receives EMF lines. Default: discarded.
	Metrics io.Writer
	// Orders is the order layout (stage and shards of orders-by-status-v2);
	// the table is created with the stage's indexes. Default: v1, 4 shards.
	Orders store.OrderLayout
	// Auth maps X-Local-Scopes onto roles as in AWS (scopes, user claim);
	// the local IAM principals (no X-Local-Scopes) are always operators
	// (OperatorAuth). Default: httpapi.Auth's defaults.
	Auth httpapi.Auth
	// Timeouts bound each connection of the API. Default: DefaultTimeouts.
	Timeouts Timeouts
}

// Timeouts bound the API server's connections, so that a client that
// trickles a request, or holds an idle connection, cannot hold a
// connection for ever. Zero fields take DefaultTimeouts' values.
type Timeouts struct {
	// ReadHeader bounds reading the request line and headers.
	ReadHeader time.Duration
	// Read bounds reading the whole request, body included.
	Read time.Duration
	// Write bounds the request from the end of its headers to the end of
	// the response; it must outlast the API's own retries.
	Write time.Duration
	// Idle bounds the wait for the next request on a kept-alive connection.
	Idle time.Duration
}

// DefaultTimeouts: a request of at most 64 KB arrives within 10 seconds;
// an answer takes at most 30 seconds, as API Gateway's integration
// timeout allows in AWS.
var DefaultTimeouts = Timeouts{ReadHeader: 5 * time.Second, Read: 10 * time.Second, Write: 30 * time.Second, Idle: 60 * time.Second}

func (t Timeouts) withDefaults() Timeouts {
	for _, f := range []struct{ v, def *time.Duration }{
		{&t.ReadHeader, &DefaultTimeouts.ReadHeader}, {&t.Read, &DefaultTimeouts.Read},
		{&t.Write, &DefaultTimeouts.Write}, {&t.Idle, &DefaultTimeouts.Idle},
	} {
		if *f.v <= 0 {
			*f.v = *f.def
		}
	}
	return t
}

// Listeners, as named by AddrInUseError.
const (
	ListenerAPI      = "api"
	ListenerDynamoDB = "dynamodb"
)

// AddrInUseError is returned by Start when a listener's address is taken,
// usually by another runner.
type AddrInUseError struct {
	Listener string // ListenerAPI or ListenerDynamoDB
	Addr     string
	Err      error
}

func (e *AddrInUseError) Error() string {
	return "localrun: " + e.Listener + " address " + e.Addr + " is already in use"
}
func (e *AddrInUseError) Unwrap() error { return e.Err }

// DataDirInUseError is returned by Start when another runner holds
// Options.DataDir.
type DataDirInUseError struct{ Dir string }

func (e *DataDirInUseError) Error() string {
	return "localrun: data directory " + e.Dir + " is in use by another runner"
}
func (e *DataDirInUseError) Unwrap() error { return ddblocal.ErrDirInUse }

// listen opens a listener, naming it in the error when its address is taken.
func listen(name, addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, &AddrInUseError{Listener: name, Addr: addr, Err: err}
	}
	if err != nil {
		return nil, fmt.Errorf("localrun: %s listener: %w", name, err)
	}
	return ln, nil
}

// Server is a running local runner.
type Server struct {
	APIURL      string
	DynamoDBURL string
	// Regions lists each Region's API of a multi-Region run (Options.Regions
	// with more than one Region), the first at APIURL; nil otherwise.
	Regions []RegionAPI
	apis    []*http.Server
	ddb     *http.Server
	engine  *ddblocal.Engine
	done    chan error
	out     io.Writer
	// Events is the local stand-in for EventBridge; nil on an external
	// endpoint, whose stream the runner does not read.
	Events     *EventSink
	stopEvents func()
}

// Start opens the listeners, creates the table and serves until Shutdown.
func Start(ctx context.Context, o Options) (*Server, error) {
	if o.APIAddr == "" {
		o.APIAddr = "127.0.0.1:8080"
	}
	if o.DynamoDBAddr == "" {
		o.DynamoDBAddr = "127.0.0.1:8000"
	}
	if o.Table == "" {
		o.Table = os.Getenv(schema.TableNameEnv)
	}
	if o.Table == "" {
		o.Table = schema.DefaultTableName
	}
	if o.Out == nil {
		o.Out = os.Stdout
	}
	// One lock for every writer of Out: each Region's logger and event sink.
	o.Out = obs.Sync(o.Out)
	if o.Metrics == nil {
		o.Metrics = io.Discard
	}
	s := &Server{done: make(chan error, 2+len(o.Regions)), out: o.Out}
	var client *dynamodb.Client
	if o.DynamoDBEndpoint != "" {
		client = retry.NewClient(aws.Config{
			Region:       envOr("AWS_REGION", "us-east-1"),
			BaseEndpoint: aws.String(o.DynamoDBEndpoint),
			// Works around a smithy-go request-body race that a very fast
			// local server triggers on large responses; harmless elsewhere.
			HTTPClient: ddblocal.HTTPClient(),
			Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
				return aws.Credentials{AccessKeyID: envOr("AWS_ACCESS_KEY_ID", "local"),
					SecretAccessKey: envOr("AWS_SECRET_ACCESS_KEY", "local"), SessionToken: os.Getenv("AWS_SESSION_TOKEN")}, nil
			}),
		}, tracing.DynamoDB)
		s.DynamoDBURL = o.DynamoDBEndpoint
	} else {
		eng, err := ddblocal.Open(func(eo *ddblocal.Options) {
			eo.Dir = o.DataDir
			eo.Durable = o.Durable
			eo.PartitionThroughput = o.PartitionThroughput
			eo.Regions = o.Regions
		})
		if errors.Is(err, ddblocal.ErrDirInUse) {
			return nil, &DataDirInUseError{Dir: o.DataDir}
		}
		if err != nil {
			return nil, fmt.Errorf("localrun: open engine: %w", err)
		}
		s.engine = eng
		ln, err := listen(ListenerDynamoDB, o.DynamoDBAddr)
		if err != nil {
			eng.Close()
			return nil, err
		}
		s.DynamoDBURL = "http://" + ln.Addr().String()
		s.ddb = &http.Server{Handler: eng.Handler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
		go func() { s.done <- ignoreClosed(s.ddb.Serve(ln)) }()
		client = eng.Client(retry.Off, tracing.DynamoDB)
	}
	if err := ensureTable(ctx, client, o.Table, o.Orders.Stage); err != nil {
		s.Shutdown(context.Background())
		return nil, fmt.Errorf("localrun: table %s: %w", o.Table, err)
	}
	if s.engine != nil {
		s.Events = NewEventSink(o.Out, 100)
		stop, err := startEvents(ctx, s.engine, client, o.Table, o.DataDir, s.Events)
		if err != nil {
			s.Shutdown(context.Background())
			return nil, err
		}
		s.stopEvents = stop
	}
	auth := OperatorAuth(o.Auth)
	regions := []string{""}
	var leases *home.Leases
	if s.engine != nil && len(o.Regions) > 1 {
		var err error
		if leases, err = globalTable(ctx, s.engine, o.Table, o.Regions); err != nil {
			s.Shutdown(context.Background())
			return nil, err
		}
		regions = o.Regions
	}
	lns := make([]net.Listener, len(regions))
	peers := map[string]string{}
	for i, r := range regions {
		addr, err := nextAddr(o.APIAddr, i)
		if err == nil {
			lns[i], err = listen(ListenerAPI, addr)
		}
		if err != nil {
			for _, ln := range lns[:i] {
				ln.Close()
			}
			s.Shutdown(context.Background())
			return nil, err
		}
		peers[r] = "http://" + lns[i].Addr().String()
	}
	s.APIURL = peers[regions[0]]
	t := o.Timeouts.withDefaults()
	for i, r := range regions {
		cfg := httpapi.Config{Table: o.Table, IdempotencyExpiry: o.IdempotencyExpiry, Log: o.Out, Metrics: o.Metrics,
			Orders: o.Orders, Auth: auth, Freeze: true}
		db := client
		if leases != nil {
			db = s.engine.Region(r).Client(retry.Off)
			cfg.Homes = regionHomes(r, o.Table, leases, peers)
			s.Regions = append(s.Regions, RegionAPI{Region: r, URL: peers[r]})
		}
		routes := withOpenAPI(Handler(httpapi.New(db, cfg).Handle, nil))
		if s.Events != nil && i == 0 {
			routes = withEvents(s.Events, auth, routes)
		}
		srv := &http.Server{Handler: routes, ReadHeaderTimeout: t.ReadHeader, ReadTimeout: t.Read, WriteTimeout: t.Write, IdleTimeout: t.Idle}
		s.apis = append(s.apis, srv)
		ln := lns[i]
		go func() { s.done <- ignoreClosed(srv.Serve(ProblemListener(ln))) }()
	}

	storage := "embedded engine, in memory"
	switch {
	case o.DynamoDBEndpoint != "":
		storage = "external endpoint"
	case o.DataDir != "":
		storage = "embedded engine, data in " + o.DataDir
		if o.Durable {
			storage += ", fsync per commit"
		}
	}
	if s.engine != nil && s.engine.Recovery() != "" {
		fmt.Fprintf(o.Out, "WARNING: %s\n", s.engine.Recovery())
	}
	trust := ""
	if s.engine != nil {
		trust = "            accepts any credentials: whoever reaches this port reads and writes every item\n"
	}
	regionLines := ""
	for _, ra := range s.Regions {
		regionLines += fmt.Sprintf("  Region:   %s API %s\n", ra.Region, ra.URL)
	}
	if len(s.Regions) > 0 {
		regionLines += fmt.Sprintf("  Homes:    %d cells, all homed in %s; leases in table %s%s (make failover moves them)\n", LocalCells, s.Regions[0].Region, o.Table, LeaseTableSuffix)
	}
	fmt.Fprintf(o.Out, "oncetable local runner\n  API:      %s\n%s  DynamoDB: %s (%s), table %s\n%s  Caller:   header %s (default %q)\n  Scopes:   header %s (JWT scopes, space-separated; without it the caller is an operator)\nTry:\n  curl -s -X POST %s/v1/users -H 'Content-Type: application/json' -d '{\"userId\":\"alice\",\"name\":\"Alice\",\"email\":\"alice@example.com\"}'\n",
		s.APIURL, regionLines, s.DynamoDBURL, storage, o.Table, trust, CallerHeader, DefaultCaller, ScopesHeader, s.APIURL)
	return s, nil
}

// ensureTable creates the table with the indexes of the order stage, and
// adds OrdersByStatus to a table kept in DataDir from an earlier stage (the
// local form of deploy 1 of orders-by-status-v2; GSI1 is never dropped).
func ensureTable(ctx context.Context, client *dynamodb.Client, table string, stage schema.OrderIndexes) error {
	if err := provision.EnsureTableFor(ctx, client, table, schema.Schema{Orders: stage}); err != nil {
		return err
	}
	if stage == schema.OrdersBoth || stage == schema.OrdersV2 {
		return provision.AddIndex(ctx, client, table, schema.OrdersByStatus)
	}
	return nil
}

// OpenAPIPath is where the runner serves the API's OpenAPI document.
const OpenAPIPath = "/openapi.json"

// withOpenAPI serves GET OpenAPIPath beside the API's routes (in AWS the
// document is docs/openapi.json, not a route).
func withOpenAPI(api http.Handler) http.Handler {
	doc := openapi.Document()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != OpenAPIPath || r.Method != http.MethodGet {
			api.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(doc)))
		w.Write(doc)
	})
}

// Shutdown stops both listeners, waiting for requests in flight, and closes
// the engine.
func (s *Server) Shutdown(ctx context.Context) error {
	var errs []error
	for _, api := range s.apis {
		errs = append(errs, api.Shutdown(ctx))
	}
	if s.stopEvents != nil {
		s.stopEvents()
	}
	if s.ddb != nil {
		errs = append(errs, s.ddb.Shutdown(ctx))
	}
	if s.engine != nil {
		errs = append(errs, s.engine.Close())
	}
	return errors.Join(errs...)
}

// Run starts the runner and serves until ctx ends (SIGINT/SIGTERM in
// lambdas/local), then shuts down within 10 seconds.
func Run(ctx context.Context, o Options) error {
	s, err := Start(ctx, o)
	if err != nil {
		return err
	}
	select {
	case <-ctx.Done():
	case err = <-s.done:
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = errors.Join(err, s.Shutdown(sctx))
	fmt.Fprintln(s.out, "oncetable local runner stopped")
	return err
}

func ignoreClosed(err error) error {
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
