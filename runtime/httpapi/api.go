package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"golang.org/x/text/unicode/norm"

	"github.com/oncetable/oncetable/runtime/config"
	"github.com/oncetable/oncetable/runtime/freeze"
	"github.com/oncetable/oncetable/runtime/home"
	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/idempotency/idemhttp"
	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/obs"
	"github.com/oncetable/oncetable/runtime/payments"
	"github.com/oncetable/oncetable/runtime/retry"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/store"
)

// Config is what a handler needs besides the DynamoDB client. Every field
// has a safe default.
type Config struct {
	// Table is the table name. Default: schema.DefaultTableName.
	Table string
	// IdempotencyExpiry is how long a key blocks. Default: 24h.
	IdempotencyExpiry time.Duration
	// SkipLegacyRecords is payments.Options.SkipLegacyRecords: set it once
	// IdempotencyExpiry has passed since records moved to partitions of
	// their own (docs/idempotency.md, "Upgrading"). Default: false.
	SkipLegacyRecords bool
	// CursorSecret signs pagination cursors. Default: see store.Options.
	CursorSecret []byte
	// Clock is the time source. Default: time.Now.
	Clock func() time.Time
	// Retry bounds the retries of transient failures. Default: retry.Policy{}.
	Retry retry.Policy
	// Log receives the JSON log lines. Default: os.Stdout.
	Log io.Writer
	// Metrics receives the EMF metric lines. Default: Log (in Lambda both
	// go to stdout, where CloudWatch Logs extracts the metrics).
	Metrics io.Writer
	// Schema names the table's key attributes and indexes. Default:
	// schema.Default().
	Schema schema.Schema
	// Keys are the key prefixes. Default: keys.Default.
	Keys keys.Layout
	// Orders is the order layout: the stage of the orders-by-status-v2
	// migration (ORDER_INDEXES) and its shards (ORDER_SHARDS). Default: v1,
	// 4 shards.
	Orders store.OrderLayout
	// Auth maps the authorizer's context onto roles (JWT scopes, the user
	// claim, IAM operators). Default: see Auth.
	Auth Auth
	// Freeze checks the kill switch (runtime/freeze) before every money
	// flow: a frozen flow answers 503 with Retry-After, writes nothing and
	// takes no Idempotency-Key. FromConfig, and so every Lambda main, and
	// the local runner turn it on. Default: false.
	Freeze bool
	// FreezeCacheTTL bounds how long a freeze or an unfreeze takes to reach
	// this handler. Default: freeze.DefaultCacheTTL (5s).
	FreezeCacheTTL time.Duration
	// Homes, when set, fences every money flow to its cell's home Region
	// and forwards a request for a cell homed elsewhere (Homes). Default:
	// nil, a single-Region table.
	Homes *Homes
}

// ConfigFromEnv is the Config of the environment's runtime/config.Payments
// (config.LoadPayments): the table, the idempotency expiry, the order
// layout, the cursor secret given as a value, who may call and the kill
// switch's cache (the switch is on).
func ConfigFromEnv() (Config, error) {
	p, err := config.LoadPayments(os.Getenv)
	if err != nil {
		return Config{}, fmt.Errorf("httpapi: %w", err)
	}
	return FromConfig(p)
}

// FromConfig is the Config of p; it checks the scopes (Auth.Validate).
func FromConfig(p config.Payments) (Config, error) {
	auth := Auth{CustomerScope: p.Auth.CustomerScope, OperatorScope: p.Auth.OperatorScope, ServiceScope: p.Auth.ServiceScope,
		UserClaim: p.Auth.UserClaim, IAMOperators: p.Auth.IAMOperators}
	if err := auth.Validate(); err != nil {
		return Config{}, err
	}
	c := Config{Table: p.Table, IdempotencyExpiry: p.IdempotencyExpiry, SkipLegacyRecords: p.SkipLegacyRecords,
		Orders: store.OrderLayout{Stage: p.Orders.Stage, Shards: p.Orders.Shards}, Auth: auth,
		Freeze: true, FreezeCacheTTL: p.FreezeCacheTTL}
	if p.CursorSecret != "" {
		c.CursorSecret = []byte(p.CursorSecret)
	}
	return c, nil
}

// API serves the oncetable routes over API Gateway HTTP API v2 events.
type API struct {
	st      *store.Store
	svc     *payments.Service
	log     *slog.Logger
	metrics *obs.Metrics
	routes  []route
	auth    Auth
	// freeze is the kill switch, nil when Config.Freeze is off.
	freeze *freeze.Switch
	// homes is Config.Homes with its defaults, nil on a single-Region table.
	homes *Homes
}

// New builds the API on db once; handlers reuse it across invocations.
func New(db store.DB, cfg Config) *API {
	cfg.Log = obs.Sync(cfg.Log)
	if cfg.Metrics == nil {
		cfg.Metrics = cfg.Log
	} else {
		cfg.Metrics = obs.Sync(cfg.Metrics)
	}
	a := &API{log: obs.NewLogger(cfg.Log), metrics: obs.NewMetrics(cfg.Metrics), auth: cfg.Auth.WithDefaults()}
	a.st = store.New(db, func(o *store.Options) {
		o.Table, o.Clock, o.Retry, o.CursorSecret = cfg.Table, cfg.Clock, cfg.Retry, cfg.CursorSecret
		o.Schema, o.Keys, o.Orders = cfg.Schema, cfg.Keys, cfg.Orders
	})
	if cfg.Homes != nil {
		a.homes = cfg.Homes.withDefaults()
	}
	a.svc = payments.New(a.st, func(o *payments.Options) {
		o.IdempotencyExpiry, o.SkipLegacyRecords = cfg.IdempotencyExpiry, cfg.SkipLegacyRecords
		if a.homes != nil {
			o.Fence = a.homes.Fencer
		}
		o.OnRetry = func(flow string, k retry.Kind) {
			switch k {
			case retry.Throttled:
				a.metrics.Fault(flow, obs.Throttled)
			default:
				a.metrics.Fault(flow, obs.ConflictRetried)
			}
		}
	})
	if cfg.Freeze {
		a.freeze = freeze.New(db, func(o *freeze.Options) {
			o.Table, o.Schema, o.CacheTTL, o.Clock = cfg.Table, cfg.Schema, cfg.FreezeCacheTTL, cfg.Clock
		})
	}
	a.routes = a.table()
	return a
}

// Store is the API's store (for tests and the local runner).
func (a *API) Store() *store.Store { return a.st }

// HandlerFunc is the Lambda handler signature for API Gateway HTTP API v2.
type HandlerFunc func(ctx context.Context, req events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error)

// Handle serves every route. It never returns an error: failures are
// problem+json responses.
func (a *API) Handle(ctx context.Context, req events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	return a.serve(ctx, req, nil), nil
}

// Only returns a handler that serves just the named routes (a per-flow
// Lambda); any other route is 404.
func (a *API) Only(names ...string) HandlerFunc {
	allow := map[string]bool{}
	for _, n := range names {
		allow[n] = true
	}
	return func(ctx context.Context, req events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		return a.serve(ctx, req, allow), nil
	}
}

// Except returns a handler for every route but the named ones (the API
// Lambda, when the money flows have functions of their own).
func (a *API) Except(names ...string) HandlerFunc {
	allow := map[string]bool{}
	for _, r := range a.routes {
		allow[r.name] = true
	}
	for _, n := range names {
		delete(allow, n)
	}
	return func(ctx context.Context, req events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		return a.serve(ctx, req, allow), nil
	}
}

// call is one request being served.
type call struct {
	req       *events.APIGatewayV2HTTPRequest
	params    map[string]string
	route     *route
	caller    string
	principal Principal
	keyHash   string
	// outcome is a declined flow's outcome to log, set by flowReply.
	outcome string
	// legacy: the route was called without its version segment.
	legacy bool
}

func (a *API) serve(ctx context.Context, req events.APIGatewayV2HTTPRequest, allow map[string]bool) events.APIGatewayV2HTTPResponse {
	start := time.Now()
	ctx, span := startSpan(ctx, &req)
	defer span.End()
	p := a.auth.Principal(&req)
	c := &call{req: &req, caller: CallerIdentity(&req), principal: p, keyHash: obs.KeyHash(header(&req, "Idempotency-Key"))}
	method := req.RequestContext.HTTP.Method
	path := req.RawPath
	if path == "" {
		path = req.RequestContext.HTTP.Path
	}
	id, idErr := requestID(&req)
	var resp events.APIGatewayV2HTTPResponse
	var outcome, flow string
	if idErr != nil {
		resp, outcome = problemFor(idErr)
	} else {
		resp, outcome, flow = a.dispatch(ctx, c, method, path, allow)
	}
	if resp.Headers == nil {
		resp.Headers = map[string]string{}
	}
	if id != "" {
		resp.Headers["X-Request-Id"] = id
	}
	if c.legacy {
		deprecationHeaders(resp.Headers, versionPath(path))
	}
	endSpan(span, c, flow, outcome, id, resp.StatusCode)
	a.log.LogAttrs(ctx, slog.LevelInfo, "request",
		slog.String("requestId", id),
		slog.String("apiRequestId", req.RequestContext.RequestID),
		slog.String("method", method),
		slog.String("path", path),
		slog.String("route", routeName(c.route)),
		slog.String("flow", flow),
		slog.String("caller", c.caller),
		slog.Int("status", resp.StatusCode),
		slog.String("outcome", outcome),
		slog.String("idempotencyKeyHash", c.keyHash),
		slog.Int64("durationMs", time.Since(start).Milliseconds()),
	)
	a.count(flow, outcome)
	return resp
}

func (a *API) count(flow, outcome string) {
	if flow == "" {
		flow = "api"
	}
	switch outcome {
	case "created":
		a.metrics.Business(flow, obs.Created)
	case "replayed":
		a.metrics.Business(flow, obs.Replayed)
	case "insufficient_funds":
		a.metrics.Business(flow, obs.InsufficientFunds)
	case "key_reused":
		a.metrics.Business(flow, obs.KeyReused)
	case "frozen":
		a.metrics.Business(flow, obs.Frozen)
	case "ok", "forwarded":
	case "unavailable":
		a.metrics.Fault(flow, obs.Unavailable)
	case "error":
		a.metrics.Fault(flow, obs.Error)
	default:
		a.metrics.Business(flow, obs.Rejected)
	}
}

// countHome counts the home fence's refusals that mean trouble: a
// transaction the fence cancelled, and a lease this Region could not renew.
// A request refused by the lease read before any write (the cell is homed
// elsewhere) is routine forwarding and counts nothing here.
func (a *API) countHome(flow string, err error) {
	var no *home.NotOwnerError
	switch {
	case errors.As(err, &no) && no.Cancelled:
		a.metrics.Fault(flow, obs.FenceCancelled)
	case errors.Is(err, home.ErrLeaseExpired):
		a.metrics.Fault(flow, obs.LeaseLost)
	}
}

func routeName(r *route) string {
	if r == nil {
		return ""
	}
	return r.name
}

func (a *API) dispatch(ctx context.Context, c *call, method, path string, allow map[string]bool) (events.APIGatewayV2HTTPResponse, string, string) {
	r, params, legacy, err := a.match(method, path, c.req.RequestContext.Stage)
	if err == nil && allow != nil && !allow[r.name] {
		r, err = nil, ErrRouteNotFound
	}
	c.legacy = err == nil && legacy
	if err != nil {
		resp, outcome := problemFor(err)
		return resp, outcome, ""
	}
	c.route, c.params = r, params
	resp, err := a.serveCall(ctx, c)
	if err != nil && a.homes != nil {
		a.countHome(r.flow, err)
		var handled bool
		if resp, handled, err = a.homes.redirect(ctx, c, err); handled && err == nil {
			return resp, "forwarded", r.flow
		}
	}
	if err == nil && resp.StatusCode == http.StatusCreated {
		if loc := location(r.name, params, resp.Body); loc != "" {
			resp.Headers["Location"] = loc
		}
	}
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			err = &retry.UnavailableError{Kind: retry.ServerFail, Attempts: 1, RetryAfter: time.Second, Cause: err}
		}
		resp, outcome := problemFor(err)
		if outcome == "error" {
			a.log.ErrorContext(ctx, "unexpected error", slog.String("route", r.name), slog.String("error", err.Error()))
		}
		return resp, outcome, r.flow
	}
	outcome := "ok"
	if r.flow != "" {
		outcome = "created"
		switch {
		case resp.Headers["Idempotent-Replayed"] == "true":
			outcome = "replayed"
		case c.outcome != "":
			outcome = c.outcome
		}
	}
	return resp, outcome, r.flow
}

// serveCall checks the caller's role, the parameters and the caller's
// ownership, in that order, then runs the route's handler and encodes its
// reply. The role comes first so that a caller without it learns nothing
// from the parameters' answers.
func (a *API) serveCall(ctx context.Context, c *call) (events.APIGatewayV2HTTPResponse, error) {
	if err := a.checkRole(c); err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	if a.freeze != nil && c.route.flow != "" {
		if err := a.freeze.Check(ctx, c.route.flow); err != nil {
			return events.APIGatewayV2HTTPResponse{}, err
		}
	}
	if err := c.checkParams(); err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	if err := a.checkOwner(ctx, c); err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	if c.route.keyed() {
		if k, sent := headerSent(c.req, "Idempotency-Key"); sent || k != "" {
			return a.byKey(ctx, c)
		}
	}
	rep, err := c.route.handle(ctx, c)
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	return rep.response()
}

// keyed reports whether the route is a POST that moves no money: it takes
// an optional Idempotency-Key (byKey).
func (r *route) keyed() bool { return r.method == http.MethodPost && r.flow == "" }

// byKey serves a POST that moves no money under the client's
// Idempotency-Key, so that a retried create replays its first answer
// instead of answering 409 already-exists: a live record under the key
// replays (one GetItem); otherwise the handler runs and its success is
// stored under the key (one conditional PutItem). A request refused by
// validation stores nothing. A duplicate that races the first and loses
// gets 409 already-exists until the first one's answer is stored, then
// the replay.
func (a *API) byKey(ctx context.Context, c *call) (events.APIGatewayV2HTTPResponse, error) {
	body, err := c.body()
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	idem, err := c.idem(c.route.name, body)
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	if stored, live, err := a.svc.Replay(ctx, idem); err != nil || live {
		return fromFlow(stored), err
	}
	rep, err := c.route.handle(ctx, c)
	if errors.Is(err, store.ErrAlreadyExists) {
		if stored, live, lerr := a.svc.Replay(ctx, idem); lerr == nil && live {
			return fromFlow(stored), nil
		}
	}
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	resp, err := rep.response()
	if err != nil {
		return resp, err
	}
	kept, err := a.svc.Keep(ctx, idem, payments.Response{Status: resp.StatusCode,
		Header: http.Header{"Content-Type": {resp.Headers["Content-Type"]}}, Body: json.RawMessage(strings.TrimSuffix(resp.Body, "\n"))})
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	return fromFlow(kept), nil
}

// MaxRequestIDLength bounds a client's X-Request-Id.
const MaxRequestIDLength = 128

// requestID is the request's id, echoed in X-Request-Id and logged: the
// client's X-Request-Id when it sends one, else API Gateway's. A client's
// id must be 1..MaxRequestIDLength characters of A-Z, a-z, 0-9 and
// "-_.:/+=" (UUIDs, ULIDs, W3C trace ids, base64); any other is refused
// with 400, answered under API Gateway's id.
func requestID(req *events.APIGatewayV2HTTPRequest) (string, error) {
	own := req.RequestContext.RequestID
	v, sent := headerSent(req, "X-Request-Id")
	if !sent {
		return own, nil
	}
	ok := v != "" && len(v) <= MaxRequestIDLength
	for i := 0; ok && i < len(v); i++ {
		ch := v[i]
		ok = ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || strings.IndexByte("-_.:/+=", ch) >= 0
	}
	if !ok {
		return own, atParam("X-Request-Id", fmt.Errorf("%w: X-Request-Id must be 1..%d characters of A-Z, a-z, 0-9 and -_.:/+= (one header)", ErrBadRequest, MaxRequestIDLength))
	}
	return v, nil
}

// CallerIdentity is the scope of idempotency keys: the IAM principal
// ("iam:<UserARN>") or the JWT subject ("jwt:<iss>|<sub>") from the request
// context, or "anonymous" behind a route without an authorizer. The local
// runner fills the IAM fields with a local identity.
func CallerIdentity(req *events.APIGatewayV2HTTPRequest) string {
	if c, err := idemhttp.LambdaCaller(req); err == nil {
		return c
	}
	return "anonymous"
}

// respond writes a JSON success response.
func respond(status int, v any) (events.APIGatewayV2HTTPResponse, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	return events.APIGatewayV2HTTPResponse{StatusCode: status, Headers: map[string]string{"Content-Type": "application/json"}, Body: withNewline(body)}, nil
}

// withNewline ends a JSON body with a newline, so that a shell prompt after
// curl starts on its own line. Stored flow responses get it when served,
// so replays stay byte-identical to first answers.
func withNewline(body []byte) string {
	if len(body) > 0 && body[len(body)-1] == '\n' {
		return string(body)
	}
	return string(body) + "\n"
}

// fromFlow writes a flow's stored or fresh response.
func fromFlow(r payments.Response) events.APIGatewayV2HTTPResponse {
	h := map[string]string{"Content-Type": "application/json"}
	if ct := r.Header.Get("Content-Type"); ct != "" {
		h["Content-Type"] = ct
	}
	if r.Replayed {
		h["Idempotent-Replayed"] = "true"
	}
	return events.APIGatewayV2HTTPResponse{StatusCode: r.Status, Headers: h, Body: withNewline(r.Body)}
}

// idem validates the Idempotency-Key and fingerprints the request.
func (c *call) idem(operation string, body []byte) (payments.Idem, error) {
	key := header(c.req, "Idempotency-Key")
	if strings.Contains(key, ",") {
		// API Gateway (and the local runner) join repeated headers with
		// commas; the IETF draft allows exactly one key per request.
		return payments.Idem{}, atParam("Idempotency-Key", fmt.Errorf("%w: send exactly one Idempotency-Key header, without commas (got %d values joined as one)", idemhttp.ErrKeyInvalid, strings.Count(key, ",")+1))
	}
	if err := idemhttp.ValidateKey(key); err != nil {
		return payments.Idem{}, atParam("Idempotency-Key", err)
	}
	fp, err := idempotency.Fingerprint(c.req.RequestContext.HTTP.Method, c.canonicalPath(), nfcJSON(body))
	if err != nil {
		return payments.Idem{}, err
	}
	return payments.Idem{Scope: idempotency.Scope{Caller: c.caller, Operation: operation}, Key: key, Fingerprint: fp}, nil
}

// canonicalPath is the request's path as the route reads it: the route's
// pattern with each parameter in its canonical form (NFC), escaped once.
// A client or proxy that writes the same request another way (%69 for i,
// a trailing slash, the stage's prefix, é decomposed) sends the same
// canonical path, so its retry replays instead of meeting 422.
func (c *call) canonicalPath() string {
	var b strings.Builder
	for _, seg := range c.route.pattern {
		b.WriteByte('/')
		if name, ok := strings.CutPrefix(seg, "{"); ok {
			b.WriteString(url.PathEscape(c.params[strings.TrimSuffix(name, "}")]))
		} else {
			b.WriteString(seg)
		}
	}
	return b.String()
}

// nfcJSON is body with every string in NFC, the form the handler uses: a
// retry whose ids a client normalised fingerprints as the first request.
// A body that is not JSON, or already normal, is returned as it is.
func nfcJSON(body []byte) []byte {
	if norm.NFC.IsNormal(body) && !bytes.Contains(body, []byte(`\u`)) {
		return body
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return body
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(nfcValue(v)) != nil {
		return body
	}
	return buf.Bytes()
}

func nfcValue(v any) any {
	switch t := v.(type) {
	case string:
		return norm.NFC.String(t)
	case []any:
		for i := range t {
			t[i] = nfcValue(t[i])
		}
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[norm.NFC.String(k)] = nfcValue(e)
		}
		return out
	}
	return v
}

// route is one method + path pattern.
type route struct {
	name    string
	method  string
	pattern []string // literal segments or "{param}"
	flow    string   // idempotent money flow, or ""
	roles   []Role   // who may call it
	owner   Owner    // whose data it names, for a customer
	handle  func(ctx context.Context, c *call) (reply, error)
}

// match finds the route of a path: /v1/... (APIVersion), or the same path
// without the version, which is deprecated (legacy); either after the
// stage's name when API Gateway's stage is not $default.
func (a *API) match(method, path, stage string) (r *route, params map[string]string, legacy bool, err error) {
	segs, err := splitPath(path)
	if err != nil {
		return nil, nil, false, err
	}
	rest, current := versioned(segs)
	r, params, allowed := a.find(method, rest)
	if r == nil && len(allowed) == 0 && stage != "" && stage != "$default" && len(segs) > 0 && segs[0] == stage {
		rest, current = versioned(segs[1:])
		r, params, allowed = a.find(method, rest)
	}
	switch {
	case r != nil:
		return r, params, !current, nil
	case len(allowed) > 0:
		return nil, nil, false, &methodNotAllowedError{allow: strings.Join(allowed, ", ")}
	default:
		return nil, nil, false, ErrRouteNotFound
	}
}

func (a *API) find(method string, segs []string) (*route, map[string]string, []string) {
	var allowed []string
	for i := range a.routes {
		r := &a.routes[i]
		params, ok := r.matches(segs)
		if !ok {
			continue
		}
		if r.method == method {
			return r, params, nil
		}
		allowed = append(allowed, r.method)
	}
	return nil, nil, allowed
}

func (r *route) matches(segs []string) (map[string]string, bool) {
	if len(segs) != len(r.pattern) {
		return nil, false
	}
	params := map[string]string{}
	for i, p := range r.pattern {
		if strings.HasPrefix(p, "{") {
			params[strings.Trim(p, "{}")] = segs[i]
		} else if p != segs[i] {
			return nil, false
		}
	}
	return params, true
}

func splitPath(path string) ([]string, error) {
	path = strings.Trim(path, "/")
	if path == "" {
		return nil, nil
	}
	raw := strings.Split(path, "/")
	segs := make([]string, len(raw))
	for i, s := range raw {
		d, err := url.PathUnescape(s)
		if err != nil {
			return nil, fmt.Errorf("%w: malformed percent-escape in the path segment %q (%% must be followed by two hex digits)", ErrBadRequest, s)
		}
		segs[i] = d
	}
	return segs, nil
}
