package standalone

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/oncetable/oncetable/runtime/ddblocal"
)

// Options are DynamoDB Local's command-line options.
type Options struct {
	// Host is the interface to listen on; DynamoDB Local listens on all
	// of them. Default: "" (all).
	Host string
	// Port is the TCP port. Default: 8000; 0 picks a free one.
	Port int
	// InMemory keeps every database in memory.
	InMemory bool
	// DBPath is the directory of the databases. Default: ".".
	DBPath string
	// SharedDB uses one database for every credential and region.
	SharedDB bool
	// DelayTransientStatuses keeps CREATING, UPDATING and DELETING for
	// TransientDelay (default 5 s) instead of going ACTIVE (or away) at
	// once.
	DelayTransientStatuses bool
	TransientDelay         time.Duration
	// CORS is the comma-separated list of allowed origins; "*" allows
	// every origin. Default: "*".
	CORS string
	// PartitionThroughput throttles hot partition-key values as DynamoDB
	// does (ddblocal.PartitionThroughput with its defaults); DynamoDB Local
	// never throttles.
	PartitionThroughput bool
	// S3Dir stands for S3 in ExportTableToPointInTime and ImportTable:
	// bucket b is the directory S3Dir/b. Default: "" (no S3).
	S3Dir string
	// TTLSweepInterval is how often expired items are deleted. Default: 1 s.
	TTLSweepInterval time.Duration
	// Regions, when set, makes each database serve these Regions, routed
	// by the Region of each request's signature, with global tables
	// between them (ddblocal.Options.Regions); a database is then one per
	// access key ID (or one with SharedDB), not per access key and Region.
	// Default: none.
	Regions []string
	// RegionPorts serves each Region of Regions also on a port of its own,
	// Port+1 for the first, Port+2 for the second and so on, as each
	// Region of DynamoDB has an endpoint of its own: that port serves its
	// Region to unsigned requests and refuses a request signed for another
	// Region (ddblocal.Engine.RegionHandler). Needs Regions and a Port
	// other than 0. Default: false.
	RegionPorts bool
	// Engine changes the options of each engine opened. Optional.
	Engine func(*ddblocal.Options)
}

// ErrHelp is returned by ParseFlags for -help, after printing the usage.
var ErrHelp = flag.ErrHelp

// ParseFlags parses DynamoDB Local's options. Errors and -help's usage go
// to out.
func ParseFlags(args []string, out io.Writer) (Options, error) {
	o := Options{Port: 8000, DBPath: "", CORS: "*"}
	fs := flag.NewFlagSet("local engine", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.IntVar(&o.Port, "port", 8000, "the port number (0 picks a free one)")
	fs.StringVar(&o.Host, "host", "", "the interface to listen on (default: all, as DynamoDB Local)")
	fs.BoolVar(&o.InMemory, "inMemory", false, "keep the databases in memory; nothing is written to disk")
	fs.StringVar(&o.DBPath, "dbPath", "", "the directory the databases are written to (default: the current directory)")
	fs.BoolVar(&o.SharedDB, "sharedDb", false, "one database for every access key and region (otherwise one per access key ID and region)")
	fs.BoolVar(&o.DelayTransientStatuses, "delayTransientStatuses", false, "keep tables CREATING, UPDATING and DELETING, and new indexes CREATING, for a few seconds as DynamoDB does")
	fs.StringVar(&o.CORS, "cors", "*", "comma-separated list of origins allowed by CORS (\"*\": any)")
	fs.BoolVar(&o.PartitionThroughput, "partitionThroughput", false, "throttle each partition-key value past 3,000 read and 1,000 write units a second, as DynamoDB does (not a DynamoDB Local option)")
	fs.DurationVar(&o.TTLSweepInterval, "ttlSweepInterval", time.Second, "how often items past their TTL are deleted (not a DynamoDB Local option)")
	fs.StringVar(&o.S3Dir, "s3Dir", "", "directory standing for S3 in ExportTableToPointInTime and ImportTable: bucket b is DIR/b (not a DynamoDB Local option)")
	telemetry := fs.Bool("disableTelemetry", false, "accepted for compatibility with DynamoDB Local; there is no telemetry")
	optimize := fs.Bool("optimizeDbBeforeStartup", false, "accepted for compatibility with DynamoDB Local; needs -dbPath, does nothing more")
	regions := fs.String("regions", "", "comma-separated Regions one endpoint serves, routed by each request's signature, with global tables between them, such as us-east-1,eu-west-1 (not a DynamoDB Local option)")
	fs.BoolVar(&o.RegionPorts, "regionPorts", false, "with -regions, serve each Region also on a port of its own: -port+1 for the first, -port+2 for the second, … (not a DynamoDB Local option)")
	help := fs.Bool("help", false, "print this usage")
	fs.Usage = func() {
		fmt.Fprintln(out, "usage: local engine [options]\n\nThe embedded DynamoDB-compatible engine on its own, with DynamoDB Local's options:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	_ = telemetry
	if *help {
		fs.Usage()
		return o, ErrHelp
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if *regions != "" {
		for _, r := range strings.Split(*regions, ",") {
			r = strings.TrimSpace(r)
			if !validRegion(r) {
				return o, fmt.Errorf("-regions: %q is not a Region name", r)
			}
			o.Regions = append(o.Regions, r)
		}
	}
	if o.RegionPorts {
		switch {
		case len(o.Regions) == 0:
			return o, errors.New("-regionPorts needs -regions")
		case o.Port == 0:
			return o, errors.New("-regionPorts needs a -port other than 0: the Regions' ports follow it")
		case o.Port+len(o.Regions) > 65535:
			return o, fmt.Errorf("-regionPorts: -port %d leaves no port for each of %d Regions", o.Port, len(o.Regions))
		}
	}
	if o.InMemory && o.DBPath != "" {
		return o, errors.New("you cannot specify both -dbPath and -inMemory")
	}
	if *optimize && o.DBPath == "" {
		return o, errors.New("-optimizeDbBeforeStartup needs -dbPath")
	}
	if o.Port < 0 || o.Port > 65535 {
		return o, fmt.Errorf("-port %d is not a port", o.Port)
	}
	return o, nil
}

// Server serves one or more engines, by credential unless SharedDB.
type Server struct {
	opts    Options
	origins map[string]bool // nil: any origin

	mu      sync.Mutex
	engines map[string]*ddblocal.Engine
	closed  bool
}

// New returns a server; engines are opened on first use.
func New(o Options) *Server {
	if o.DBPath == "" && !o.InMemory {
		o.DBPath = "."
	}
	if o.TransientDelay == 0 {
		o.TransientDelay = 5 * time.Second
	}
	s := &Server{opts: o, engines: map[string]*ddblocal.Engine{}}
	if o.CORS != "*" && o.CORS != "" {
		s.origins = map[string]bool{}
		for _, origin := range strings.Split(o.CORS, ",") {
			s.origins[strings.TrimSpace(origin)] = true
		}
	}
	return s
}

// sharedName is the database every request uses with SharedDB.
const sharedName = "shared-local-instance"

// database names the database a request uses: shared-local-instance, or
// <access key ID>_<region> from the request's SigV4 credential.
func (s *Server) database(r *http.Request) (string, error) {
	if s.opts.SharedDB {
		return sharedName, nil
	}
	key, region := credential(r)
	if key == "" {
		key, region = "anonymous", "us-east-1"
	}
	if !alnum(key) || !validRegion(region) {
		return "", errors.New("the access key ID may contain only letters and digits")
	}
	if len(s.opts.Regions) > 0 {
		return key, nil // its engine routes by Region
	}
	return key + "_" + region, nil
}

// credential returns the access key ID and region of a SigV4
// Authorization header ("AWS4-HMAC-SHA256 Credential=AKID/date/region/…").
func credential(r *http.Request) (key, region string) {
	auth := r.Header.Get("Authorization")
	_, rest, ok := strings.Cut(auth, "Credential=")
	if !ok {
		return "", ""
	}
	scope, _, _ := strings.Cut(rest, ",")
	parts := strings.Split(strings.TrimSpace(scope), "/")
	if len(parts) < 3 {
		return "", ""
	}
	return parts[0], parts[2]
}

func alnum(s string) bool {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

func validRegion(s string) bool {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return s != ""
}

// engine returns the named database's engine, opening it on first use.
func (s *Server) engine(name, region string) (*ddblocal.Engine, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("the server is closed")
	}
	if e := s.engines[name]; e != nil {
		return e, nil
	}
	e, err := ddblocal.Open(func(o *ddblocal.Options) {
		if !s.opts.InMemory {
			o.Dir = filepath.Join(s.opts.DBPath, name)
		}
		if len(s.opts.Regions) > 0 {
			o.Regions = s.opts.Regions
		} else if region != "" {
			o.Region = region
		}
		if s.opts.DelayTransientStatuses {
			o.TransientStatusDelay = s.opts.TransientDelay
		}
		o.PartitionThroughput.Enabled = s.opts.PartitionThroughput
		o.TTLSweepInterval = s.opts.TTLSweepInterval
		o.S3Dir = s.opts.S3Dir
		if s.opts.Engine != nil {
			s.opts.Engine(o)
		}
	})
	if err != nil {
		return nil, err
	}
	s.engines[name] = e
	return e, nil
}

// Handler routes each request to its database's engine, with CORS.
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.cors(w, r) {
			return
		}
		name, err := s.database(r)
		if err != nil {
			writeError(w, http.StatusBadRequest, "UnrecognizedClientException", "The Access Key ID or security token is invalid.")
			return
		}
		_, region := credential(r)
		e, err := s.engine(name, region)
		if err != nil {
			writeError(w, http.StatusInternalServerError, "InternalFailure", err.Error())
			return
		}
		e.Handler().ServeHTTP(w, r)
	})
}

// RegionHandler serves one Region of Options.Regions alone, for a port of
// its own (Options.RegionPorts): each request goes to its database's
// engine for that Region, with CORS.
func (s *Server) RegionHandler(region string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.cors(w, r) {
			return
		}
		name, err := s.database(r)
		if err != nil {
			writeError(w, http.StatusBadRequest, "UnrecognizedClientException", "The Access Key ID or security token is invalid.")
			return
		}
		e, err := s.engine(name, region)
		if err == nil && e.Region(region) == nil {
			err = fmt.Errorf("the engine does not serve Region %s", region)
		}
		if err != nil {
			writeError(w, http.StatusInternalServerError, "InternalFailure", err.Error())
			return
		}
		e.Region(region).RegionHandler().ServeHTTP(w, r)
	})
}

// cors applies the allowed origins; it answers preflight requests itself
// and reports whether the request goes on to the engine.
func (s *Server) cors(w http.ResponseWriter, r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	h := w.Header()
	allowed := s.origins == nil || s.origins[origin]
	if allowed {
		if s.origins == nil {
			h.Set("Access-Control-Allow-Origin", "*")
		} else {
			h.Set("Access-Control-Allow-Origin", origin)
			h.Add("Vary", "Origin")
		}
		h.Set("Access-Control-Expose-Headers", "x-amzn-RequestId, x-amzn-ErrorType, x-amz-crc32")
	}
	if r.Method != http.MethodOptions {
		return true
	}
	if allowed {
		h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
		if req := r.Header.Get("Access-Control-Request-Headers"); req != "" {
			h.Set("Access-Control-Allow-Headers", req)
		}
		h.Set("Access-Control-Max-Age", "172800")
		w.WriteHeader(http.StatusOK)
	} else {
		w.WriteHeader(http.StatusForbidden)
	}
	return false
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"__type":"com.amazon.coral.service#%s","message":%q}`, code, msg)
}

// Close closes every engine opened.
func (s *Server) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	var errs []error
	for _, e := range s.engines {
		errs = append(errs, e.Close())
	}
	return errors.Join(errs...)
}

// Run serves until ctx is done, calling ready with the address it listens
// on once it does.
func Run(ctx context.Context, o Options, ready func(addr string)) error {
	if o.DBPath != "" && !o.InMemory {
		if err := os.MkdirAll(o.DBPath, 0o755); err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(o.Host, fmt.Sprint(o.Port)))
	if err != nil {
		return err
	}
	s := New(o)
	servers := []*http.Server{{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}}
	listeners := []net.Listener{ln}
	if o.RegionPorts {
		for i, region := range o.Regions {
			rln, err := net.Listen("tcp", net.JoinHostPort(o.Host, fmt.Sprint(o.Port+1+i)))
			if err != nil {
				for _, l := range listeners {
					l.Close()
				}
				return fmt.Errorf("the port of Region %s: %w", region, err)
			}
			listeners = append(listeners, rln)
			servers = append(servers, &http.Server{Handler: s.RegionHandler(region), ReadHeaderTimeout: 10 * time.Second})
		}
	}
	if ready != nil {
		ready(ln.Addr().String())
	}
	errc := make(chan error, len(servers))
	for i, srv := range servers {
		go func() { errc <- srv.Serve(listeners[i]) }()
	}
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, srv := range servers {
		_ = srv.Shutdown(sctx)
	}
	if cerr := s.Close(); err == nil || errors.Is(err, http.ErrServerClosed) {
		err = cerr
	}
	return err
}

// Banner is what the command prints once it listens on addr, in the shape
// of DynamoDB Local's start-up lines.
func Banner(o Options, addr string) string {
	path := o.DBPath
	if path == "" && !o.InMemory {
		path = "."
	}
	if o.InMemory {
		path = "null"
	}
	host, port, _ := net.SplitHostPort(addr)
	if host == "" || host == "::" || host == "0.0.0.0" {
		host = "localhost"
	}
	portNumber, _ := strconv.Atoi(port)
	return fmt.Sprintf("Initializing the embedded DynamoDB engine with the following configuration:\n"+
		"Port:\t%s\nInMemory:\t%t\nDbPath:\t%s\nSharedDb:\t%t\nshouldDelayTransientStatuses:\t%t\nCorsParams:\t%s\n"+
		"%sEndpoint: http://%s\n", port, o.InMemory, path, o.SharedDB, o.DelayTransientStatuses, o.CORS, regionsLine(o, host, portNumber), net.JoinHostPort(host, port))
}

// regionsLine is the banner's line for -regions, "" without it, and with
// -regionPorts a line per Region naming its endpoint.
func regionsLine(o Options, host string, port int) string {
	if len(o.Regions) == 0 {
		return ""
	}
	line := "Regions:\t" + strings.Join(o.Regions, ",") + "\n"
	if o.RegionPorts {
		for i, r := range o.Regions {
			line += fmt.Sprintf("Region %s:\thttp://%s\n", r, net.JoinHostPort(host, fmt.Sprint(port+1+i)))
		}
	}
	return line
}
