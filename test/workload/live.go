package workload

import (
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/httpapi"
	"github.com/oncetable/oncetable/runtime/localrun"
)

// Live is a run in progress, as Config.During and Config.Check see it: the
// engine, a client on it (the API's, with Config.ClientOptions), the table,
// and the API the clients call, which Deploy replaces.
type Live struct {
	Engine *ddblocal.Engine
	DB     *dynamodb.Client
	Table  string
	r      *runner
	api    *swapHandler
}

// Elapsed is the time since the clients started.
func (l *Live) Elapsed() time.Duration { return time.Since(l.r.start) }

// OrdersCreated counts the order creations acknowledged so far.
func (l *Live) OrdersCreated() int {
	w := l.r.world
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.orders)
}

// Attempts counts the HTTP exchanges so far.
func (l *Live) Attempts() int { return l.r.attempts() }

// Deploy models a Lambda deploy: it builds a new API from the run's
// configuration changed by opts (a new environment), sends every new request
// to it, and returns once every request the old API had accepted has
// finished (old function instances draining). After Deploy no request is
// served by the old API.
func (l *Live) Deploy(opts ...func(*httpapi.Config)) {
	cfg := l.r.apiConfig(opts...)
	l.api.swap(localrun.Handler(httpapi.New(l.DB, cfg).Handle, nil))
}

// cursorSecret signs the API's cursors; the hostile customers sign their
// forged cursors with it too, as one who learnt the secret would.
const cursorSecret = "oncetable workload cursor secret, 32+ bytes"

// apiConfig is the API's configuration: the run's base, then Config.API,
// then opts.
func (r *runner) apiConfig(opts ...func(*httpapi.Config)) httpapi.Config {
	cfg := httpapi.Config{Table: Table, Log: io.Discard, Metrics: io.Discard,
		CursorSecret: []byte(cursorSecret), Auth: localrun.OperatorAuth(httpapi.Auth{}), Clock: r.now}
	for _, f := range r.cfg.API {
		f(&cfg)
	}
	for _, f := range opts {
		f(&cfg)
	}
	return cfg
}

// swapHandler serves each request with the current generation of the API.
// A request holds its generation's read lock while it runs; swap takes the
// old generation's write lock once, which waits for the requests in flight.
// A request that took the read lock of a generation that is no longer
// current lets go and takes the current one, so none starts on an old
// generation after swap returned.
type swapHandler struct {
	cur atomic.Pointer[generation]
}

type generation struct {
	mu sync.RWMutex
	h  http.Handler
}

func newSwapHandler(h http.Handler) *swapHandler {
	s := &swapHandler{}
	s.cur.Store(&generation{h: h})
	return s
}

func (s *swapHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	for {
		g := s.cur.Load()
		g.mu.RLock()
		if s.cur.Load() != g {
			g.mu.RUnlock()
			continue
		}
		defer g.mu.RUnlock()
		g.h.ServeHTTP(w, r)
		return
	}
}

func (s *swapHandler) swap(h http.Handler) {
	old := s.cur.Swap(&generation{h: h})
	old.mu.Lock()
	//lint:ignore SA2001 an empty critical section: it only waits for the requests in flight
	old.mu.Unlock()
}
