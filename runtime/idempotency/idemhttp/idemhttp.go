package idemhttp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

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
	Body   []byte
	// Caller is the authenticated caller the key is scoped to.
	Caller string
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
	// Window is the in-progress window of External. Default: one minute.
	Window time.Duration
}

func options(opts []func(*Options)) Options {
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
	if o.Window <= 0 {
		o.Window = time.Minute
	}
	return o
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
	body       []byte
	replayed   bool
	retryAfter time.Duration
	problem    bool
}

func fromResponse(r idempotency.Response) answer {
	return answer{status: r.Status, body: r.Body, replayed: r.Replayed}
}

func problem(p Problem) answer {
	if p.Type == "" {
		p.Type = "about:blank"
	}
	b, _ := json.Marshal(p)
	return answer{status: p.Status, body: b, problem: true}
}

// ParseKey reads an Idempotency-Key header value: a Structured Field
// string ("..." with \" and \\ escapes) or, leniently, a bare value.
func ParseKey(v string) (string, error) {
	v = strings.TrimSpace(v)
	if len(v) < 2 || v[0] != '"' {
		return v, idempotency.ValidateKey(v)
	}
	var b strings.Builder
	for i := 1; i < len(v); i++ {
		switch c := v[i]; {
		case c == '\\' && i+1 < len(v) && (v[i+1] == '"' || v[i+1] == '\\'):
			b.WriteByte(v[i+1])
			i++
		case c == '\\':
			return "", fmt.Errorf("%w: bad escape in structured string", idempotency.ErrKeyInvalid)
		case c == '"' && i == len(v)-1:
			k := b.String()
			return k, idempotency.ValidateKey(k)
		case c == '"':
			return "", fmt.Errorf("%w: text after the closing quote", idempotency.ErrKeyInvalid)
		default:
			b.WriteByte(c)
		}
	}
	return "", fmt.Errorf("%w: unterminated structured string", idempotency.ErrKeyInvalid)
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
	fp, err := idempotency.Fingerprint(c.Method, c.Path, c.Body)
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
func failure(o Options, err error) answer {
	var ip *idempotency.InProgressError
	var un *retry.UnavailableError
	switch {
	case errors.As(err, &ip):
		a := problem(Problem{Status: http.StatusConflict, Title: "A request is outstanding for this Idempotency-Key", Detail: err.Error()})
		a.retryAfter = time.Until(ip.Until)
		return a
	case errors.Is(err, idempotency.ErrKeyReused):
		return problem(Problem{Status: http.StatusUnprocessableEntity, Title: "Idempotency-Key is already used",
			Detail: "this key was sent before with a different request"})
	case errors.As(err, &un):
		a := problem(Problem{Status: http.StatusServiceUnavailable, Title: "Service temporarily unavailable"})
		a.retryAfter = un.RetryAfter
		return a
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
	req.Partition, req.Invocation = p.Partition, p.Invocation
	resp, err := records.Do(ctx, req, p.Effect)
	if err != nil {
		return failure(o, err)
	}
	return fromResponse(resp)
}

func retryAfterSeconds(d time.Duration) string {
	s := int((d + time.Second - 1) / time.Second)
	return strconv.Itoa(max(s, 1))
}
