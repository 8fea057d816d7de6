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
// documentation for the answers). The effect's Status, Header and Body are
// stored with it and replayed.
func Transactional(records *idempotency.Table, caller CallerFunc, plan PlanFunc, opts ...func(*Options)) http.Handler {
	o := options(records, opts)
	broken := checked(records, o)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if broken != nil {
			write(w, *broken)
			return
		}
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
// system with [ForwardKey]. Its answer goes to the client with every header
// next set; its status, body and kept headers (Content-Type,
// Location and Options.Headers) are stored and replayed when Options.Store says so
// ([DefaultStore]); otherwise the key is released.
func External(records *idempotency.Table, caller CallerFunc, next http.Handler, opts ...func(*Options)) http.Handler {
	o := options(records, opts)
	broken := checked(records, o)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if broken != nil {
			write(w, *broken)
			return
		}
		c, rawKey, present, early := readCall(o, caller, w, r)
		if early != nil {
			write(w, *early)
			return
		}
		p, early := begin(r.Context(), records, o, c, rawKey, present)
		if early != nil {
			write(w, *early)
			return
		}
		rec := &recorder{header: http.Header{}, status: http.StatusOK}
		r2 := r.Clone(context.WithValue(r.Context(), forwardKey{}, p.ForwardKey()))
		r2.Body = io.NopCloser(bytes.NewReader(c.Body))
		next.ServeHTTP(rec, r2)
		write(w, finish(r.Context(), records, o, p, rec))
	})
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
	return Call{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Body: body, Caller: who, Request: r}, raw, present, nil
}

func write(w http.ResponseWriter, a answer) {
	h := w.Header()
	for k, vs := range a.headers() {
		h[k] = vs
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
