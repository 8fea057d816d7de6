package idemhttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/retry"
	"github.com/oncetable/oncetable/runtime/txn"
)

// Header names.
const (
	KeyHeader      = "Idempotency-Key"
	ReplayedHeader = "Idempotent-Replayed"
)

// Call is one request as a [PlanFunc] sees it.
type Call struct {
	Method string
	Path   string
	// Query is the raw query string; with Path, Method and Body it makes
	// the request's fingerprint.
	Query string
	Body  []byte
	// Caller is the authenticated caller the key is scoped to.
	Caller string
	// Request is the net/http request ([Transactional], [External]), for
	// r.PathValue and headers; nil in the Lambda adapters.
	Request *http.Request
	// Event is the API Gateway event ([TransactionalLambda],
	// [ExternalLambda]); nil in the net/http adapters.
	Event *events.APIGatewayV2HTTPRequest
}

// Plan is the effect a handler plans for a call.
type Plan = idempotency.Plan

// PlanFunc validates a call and plans its effect. An error is answered
// through [Options.Error] and nothing is written.
type PlanFunc func(ctx context.Context, c Call) (Plan, error)

// Problem is an RFC 9457 problem+json answer.
type Problem struct {
	Status int    `json:"status"`
	Title  string `json:"title"`
	Detail string `json:"detail,omitempty"`
	Type   string `json:"type"`
}

// keptHeaders are the response headers an external-mode answer stores and
// replays whatever Options.Headers says.
var keptHeaders = []string{"Content-Type", "Location"}

// Options configures an adapter. Every field has a default.
type Options struct {
	// Operation is the key's scope next to the caller. Default: the method
	// and path of the request.
	Operation string
	// MaxBody bounds the request body, in bytes. Default: 1 MiB.
	MaxBody int64
	// Error maps the error of a PlanFunc, of an effect (a
	// *txn.CancelledError, read by item name) or of an External handler to
	// a problem. Default: [DefaultError].
	Error func(err error) Problem
	// Window is the in-progress window of the external mode. Default: 0,
	// which ends the window at the request context's deadline (a Lambda's
	// remaining time, an http.TimeoutHandler's) or, without one, after the
	// table's Options.Window (one minute).
	Window time.Duration
	// Headers are response headers the external mode stores and replays
	// besides Content-Type and Location, which it always keeps. The first answer carries every header the
	// handler set. (The transactional mode stores Effect.Header as given.)
	Headers []string
	// Store decides whether the external mode stores an answer. Default:
	// [DefaultStore]. An answer not stored releases the key.
	Store func(status int) bool
	// CheckTable runs [idempotency.Table.Check] once, when the adapter is
	// built; if the table does not match the options, every request is
	// answered 500 with the error, which names the option to fix, and
	// nothing is written.
	CheckTable bool
}

func options(records *idempotency.Table, opts []func(*Options)) Options {
	o := Options{}
	for _, f := range opts {
		f(&o)
	}
	if o.MaxBody <= 0 {
		o.MaxBody = 1 << 20
	}
	if o.Error == nil {
		o.Error = DefaultError
	}
	if o.Store == nil {
		o.Store = DefaultStore
	}
	o.Headers = append(append([]string(nil), keptHeaders...), o.Headers...)
	return o
}

// checked is the start-up check of Options.CheckTable: nil when it is off
// or passed, else the answer every request gets.
func checked(records *idempotency.Table, o Options) *answer {
	if !o.CheckTable {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := records.Check(ctx); err != nil {
		a := problem(Problem{Status: http.StatusInternalServerError, Title: "Idempotency table misconfigured", Detail: err.Error()})
		return &a
	}
	return nil
}

// DefaultStore is the external mode's rule, after Stripe's: an answer is
// stored when the effect may have started (2xx, 3xx, and 4xx business
// failures such as 402 Payment Required), so a retry replays it; a request
// rejected before its effect started (400, 401, 403, 404, 405, 408, 409,
// 413, 415, 422, 429) is not stored, so a corrected retry with the same key
// runs; a 5xx releases the key too, so the retry runs again at once (forward
// the key, [ForwardKey], for the external system to deduplicate it).
func DefaultStore(status int) bool {
	switch {
	case status >= 500:
		return false
	case status < 400:
		return true
	}
	switch status {
	case http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound,
		http.StatusMethodNotAllowed, http.StatusRequestTimeout, http.StatusConflict, http.StatusRequestEntityTooLarge,
		http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity, http.StatusTooManyRequests:
		return false
	}
	return true
}

// DefaultError answers a cancelled effect with 409 and any other error
// with 400.
func DefaultError(err error) Problem {
	var c *txn.CancelledError
	if errors.As(err, &c) {
		return Problem{Status: http.StatusConflict, Title: "Request conflicts with the current state", Detail: c.Error()}
	}
	return Problem{Status: http.StatusBadRequest, Title: "Bad request", Detail: err.Error()}
}

// answer is what an adapter writes back.
type answer struct {
	status     int
	header     http.Header
	body       []byte
	replayed   bool
	retryAfter time.Duration
	problem    bool
}

func fromResponse(r idempotency.Response) answer {
	return answer{status: r.Status, header: r.Header, body: r.Body, replayed: r.Replayed}
}

func problem(p Problem) answer {
	if p.Type == "" {
		p.Type = "about:blank"
	}
	b, _ := json.Marshal(p)
	return answer{status: p.Status, body: b, problem: true}
}

// headers are the answer's headers: the stored or handler's ones, then
// Content-Type (application/json unless set; problem+json for problems),
// Idempotent-Replayed and Retry-After.
func (a answer) headers() http.Header {
	h := a.header.Clone()
	if h == nil {
		h = http.Header{}
	}
	switch {
	case a.problem:
		h.Set("Content-Type", "application/problem+json")
	case h.Get("Content-Type") == "":
		h.Set("Content-Type", "application/json")
	}
	if a.replayed {
		h.Set(ReplayedHeader, "true")
	}
	if a.retryAfter > 0 {
		h.Set("Retry-After", retryAfterSeconds(a.retryAfter))
	}
	return h
}

// MaxKeyLength is the longest Idempotency-Key header value accepted, in
// bytes (HTTP's rule; the core library accepts any non-empty key).
const MaxKeyLength = 255

// ErrKeyInvalid is an Idempotency-Key header value that breaks the header's
// rule: 1 to [MaxKeyLength] printable ASCII characters. The error's message
// names the rule and what broke it.
var ErrKeyInvalid = errors.New("idemhttp: invalid Idempotency-Key")

// ValidateKey checks an Idempotency-Key header value against HTTP's rule:
// present ([idempotency.ErrKeyMissing]), at most [MaxKeyLength] bytes and
// printable ASCII only ([ErrKeyInvalid]).
func ValidateKey(key string) error {
	if key == "" {
		return idempotency.ErrKeyMissing
	}
	if len(key) > MaxKeyLength {
		return fmt.Errorf("%w: %d bytes, longer than the header's limit of %d", ErrKeyInvalid, len(key), MaxKeyLength)
	}
	for i := 0; i < len(key); i++ {
		if c := key[i]; c < 0x20 || c > 0x7e {
			return fmt.Errorf("%w: byte 0x%02x at position %d is not printable ASCII, which the header requires", ErrKeyInvalid, c, i)
		}
	}
	return nil
}

// ParseKey reads an Idempotency-Key header value: a Structured Field
// string ("..." with \" and \\ escapes) or, leniently, a bare value.
func ParseKey(v string) (string, error) {
	v = strings.TrimSpace(v)
	if len(v) < 2 || v[0] != '"' {
		return v, ValidateKey(v)
	}
	var b strings.Builder
	for i := 1; i < len(v); i++ {
		switch c := v[i]; {
		case c == '\\' && i+1 < len(v) && (v[i+1] == '"' || v[i+1] == '\\'):
			b.WriteByte(v[i+1])
			i++
		case c == '\\':
			return "", fmt.Errorf("%w: bad escape in structured string", ErrKeyInvalid)
		case c == '"' && i == len(v)-1:
			k := b.String()
			return k, ValidateKey(k)
		case c == '"':
			return "", fmt.Errorf("%w: text after the closing quote", ErrKeyInvalid)
		default:
			b.WriteByte(c)
		}
	}
	return "", fmt.Errorf("%w: unterminated structured string", ErrKeyInvalid)
}

// prepare checks the key and the body and builds the record's request.
func prepare(o Options, c Call, rawKey string, present bool) (idempotency.Request, *answer) {
	if !present {
		a := problem(Problem{Status: http.StatusBadRequest, Title: "Idempotency-Key is missing",
			Detail: "this operation requires an Idempotency-Key header"})
		return idempotency.Request{}, &a
	}
	key, err := ParseKey(rawKey)
	if err != nil {
		a := problem(Problem{Status: http.StatusBadRequest, Title: "Idempotency-Key is invalid", Detail: err.Error()})
		return idempotency.Request{}, &a
	}
	route := c.Path
	if c.Query != "" {
		route += "?" + c.Query
	}
	fp, err := idempotency.Fingerprint(c.Method, route, c.Body)
	if err != nil {
		a := problem(Problem{Status: http.StatusBadRequest, Title: "Body is not JSON", Detail: err.Error()})
		return idempotency.Request{}, &a
	}
	op := o.Operation
	if op == "" {
		op = c.Method + " " + c.Path
	}
	return idempotency.Request{Scope: idempotency.Scope{Caller: c.Caller, Operation: op}, Key: key, Fingerprint: fp}, nil
}

// failure answers an error of the library, or hands it to o.Error.
func failure(records *idempotency.Table, o Options, err error) answer {
	var ip *idempotency.InProgressError
	var un *retry.UnavailableError
	var ce *idempotency.ConfigError
	var tl *idempotency.ResultTooLargeError
	switch {
	case errors.As(err, &ip):
		a := problem(Problem{Status: http.StatusConflict, Title: "A request is outstanding for this Idempotency-Key", Detail: err.Error()})
		a.retryAfter = ip.RetryAfter(records.Now())
		return a
	case errors.Is(err, idempotency.ErrKeyReused):
		return problem(Problem{Status: http.StatusUnprocessableEntity, Title: "Idempotency-Key is already used",
			Detail: "this key was sent before with a different request"})
	case errors.As(err, &un):
		a := problem(Problem{Status: http.StatusServiceUnavailable, Title: "Service temporarily unavailable"})
		a.retryAfter = un.RetryAfter
		return a
	case errors.As(err, &ce), errors.Is(err, idempotency.ErrRequestInvalid):
		return problem(Problem{Status: http.StatusInternalServerError, Title: "Idempotency misconfigured", Detail: err.Error()})
	case errors.As(err, &tl):
		return problem(Problem{Status: http.StatusInternalServerError, Title: "The answer is too large to store",
			Detail: fmt.Sprintf("the record with this answer would be %d bytes, over DynamoDB's item size limit of %d; nothing was stored", tl.Size, tl.Limit)})
	}
	return problem(o.Error(err))
}

// transact serves one call in the transactional mode.
func transact(ctx context.Context, records *idempotency.Table, o Options, plan PlanFunc, c Call, rawKey string, present bool) answer {
	req, early := prepare(o, c, rawKey, present)
	if early != nil {
		return *early
	}
	p, err := plan(ctx, c)
	if err != nil {
		return problem(o.Error(err))
	}
	req.Invocation = p.Invocation
	resp, err := records.Do(ctx, req, p.Effect)
	if err != nil {
		return failure(records, o, err)
	}
	return fromResponse(resp)
}

// begin claims the key of an external-mode call: a held key, or the
// answer to give at once (a replay, 409, 422, ...).
func begin(ctx context.Context, records *idempotency.Table, o Options, c Call, rawKey string, present bool) (*idempotency.Pending, *answer) {
	req, bad := prepare(o, c, rawKey, present)
	if bad != nil {
		return nil, bad
	}
	resp, p, err := records.Begin(ctx, req, o.Window)
	if err != nil {
		a := failure(records, o, err)
		return nil, &a
	}
	if p == nil {
		a := fromResponse(resp)
		return nil, &a
	}
	return p, nil
}

// finish stores (or, per Options.Store, does not store) the handler's
// answer; the first answer keeps every header the handler set.
func finish(ctx context.Context, records *idempotency.Table, o Options, p *idempotency.Pending, rec *recorder) answer {
	eff := &idempotency.Effect{Status: rec.status, Header: kept(rec.header, o.Headers), Body: bytes.Clone(rec.body.Bytes())}
	eff.Release = !o.Store(rec.status)
	if _, err := p.Complete(ctx, eff); err != nil {
		return failure(records, o, err)
	}
	return answer{status: rec.status, header: rec.header, body: rec.body.Bytes()}
}

// kept is the part of h that is stored: the names in keep.
func kept(h http.Header, keep []string) http.Header {
	out := http.Header{}
	for _, k := range keep {
		if vs := h.Values(k); len(vs) > 0 {
			out[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
		}
	}
	return out
}

func retryAfterSeconds(d time.Duration) string {
	s := int((d + time.Second - 1) / time.Second)
	return strconv.Itoa(max(s, 1))
}
