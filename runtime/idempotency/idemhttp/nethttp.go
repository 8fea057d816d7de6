package idemhttp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/oncetable/oncetable/runtime/idempotency"
)

// CallerFunc returns the authenticated caller of a request, or an error
// (answered 401).
type CallerFunc func(r *http.Request) (string, error)

// Transactional serves plan's effect exactly once per key (see the package
// documentation for the answers).
func Transactional(records *idempotency.Table, caller CallerFunc, plan PlanFunc, opts ...func(*Options)) http.Handler {
	o := options(opts)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, rawKey, present, early := readCall(o, caller, w, r)
		if early != nil {
			write(w, *early)
			return
		}
		write(w, transact(r.Context(), records, o, plan, c, rawKey, present))
	})
}

// External runs next at most once per key within the in-progress window
// (the lock-first protocol). next reads the key to forward to the external
// system with [ForwardKey]; its status and body are stored, except that a
// 5xx answer releases the key so that a retry runs at once. The stored
// body is replayed as application/json.
func External(records *idempotency.Table, caller CallerFunc, next http.Handler, opts ...func(*Options)) http.Handler {
	o := options(opts)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, rawKey, present, early := readCall(o, caller, w, r)
		if early != nil {
			write(w, *early)
			return
		}
		req, bad := prepare(o, c, rawKey, present)
		if bad != nil {
			write(w, *bad)
			return
		}
		resp, p, err := records.Begin(r.Context(), req, o.Window)
		if err != nil {
			write(w, failure(o, err))
			return
		}
		if p == nil {
			write(w, fromResponse(resp))
			return
		}
		rec := &recorder{header: http.Header{}, status: http.StatusOK}
		r2 := r.Clone(context.WithValue(r.Context(), forwardKey{}, p.ForwardKey()))
		r2.Body = io.NopCloser(bytes.NewReader(c.Body))
		next.ServeHTTP(rec, r2)
		write(w, finish(r.Context(), o, p, rec))
	})
}

func finish(ctx context.Context, o Options, p *idempotency.Pending, rec *recorder) answer {
	if rec.status >= 500 {
		if err := p.Release(ctx); err != nil {
			return failure(o, err)
		}
		return answer{status: rec.status, body: rec.body.Bytes()}
	}
	resp, err := p.Complete(ctx, rec.status, idempotencyBody(rec.body.Bytes()))
	if err != nil {
		return failure(o, err)
	}
	return fromResponse(resp)
}

// idempotencyBody stores an empty body as JSON null.
func idempotencyBody(b []byte) any {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	return rawJSON(b)
}

type forwardKey struct{}

// ForwardKey is, inside an External handler, the key to hand to the
// external system so that it can deduplicate too.
func ForwardKey(ctx context.Context) string {
	k, _ := ctx.Value(forwardKey{}).(string)
	return k
}

func readCall(o Options, caller CallerFunc, w http.ResponseWriter, r *http.Request) (Call, string, bool, *answer) {
	who, err := caller(r)
	if err != nil {
		a := problem(Problem{Status: http.StatusUnauthorized, Title: "Unauthenticated", Detail: err.Error()})
		return Call{}, "", false, &a
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, o.MaxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			a := problem(Problem{Status: http.StatusRequestEntityTooLarge, Title: "Body too large"})
			return Call{}, "", false, &a
		}
		a := problem(Problem{Status: http.StatusBadRequest, Title: "Unreadable body", Detail: err.Error()})
		return Call{}, "", false, &a
	}
	vals, present := r.Header[http.CanonicalHeaderKey(KeyHeader)]
	raw := ""
	if present && len(vals) > 0 {
		raw = vals[0]
	}
	return Call{Method: r.Method, Path: r.URL.Path, Body: body, Caller: who}, raw, present, nil
}

func write(w http.ResponseWriter, a answer) {
	h := w.Header()
	if a.problem {
		h.Set("Content-Type", "application/problem+json")
	} else {
		h.Set("Content-Type", "application/json")
	}
	if a.replayed {
		h.Set(ReplayedHeader, "true")
	}
	if a.retryAfter > 0 {
		h.Set("Retry-After", retryAfterSeconds(a.retryAfter))
	}
	w.WriteHeader(a.status)
	w.Write(a.body)
}

// recorder captures an External handler's answer.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
	wrote  bool
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if !r.wrote {
		r.status, r.wrote = status, true
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(b)
}
