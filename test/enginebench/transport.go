package enginebench

import (
	"bytes"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
)

// handlerTransport is an http.RoundTripper that serves every request with
// an http.Handler in the calling goroutine, without sockets: the same kind
// of transport as the engine's in-process client, for peers that only
// offer a handler.
type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	w := &rawWriter{header: http.Header{}}
	w.reset()
	t.h.ServeHTTP(w, req)
	if req.Body != nil {
		_ = req.Body.Close()
	}
	return response(req, w.status, w.header, w.body.Bytes()), nil
}

// response is an HTTP/1.1 response to req.
func response(req *http.Request, status int, header http.Header, body []byte) *http.Response {
	return &http.Response{
		Status:        http.StatusText(status),
		StatusCode:    status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        header,
		Body:          io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       req,
	}
}

// replayTransport forwards to next until armed; from then on it answers
// each operation (X-Amz-Target) with the last response next gave for it,
// fetching one first if it has none. It measures what the SDK client
// costs by itself.
type replayTransport struct {
	next  http.RoundTripper
	armed atomic.Bool
	mu    sync.Mutex
	saved map[string]savedResponse
}

type savedResponse struct {
	status int
	header http.Header
	body   []byte
}

// arm starts replaying; the function it returns stops it, so that the
// next workload's tables are prepared by the engine.
func (t *replayTransport) arm() (disarm func()) {
	t.mu.Lock()
	clear(t.saved)
	t.mu.Unlock()
	t.armed.Store(true)
	return func() { t.armed.Store(false) }
}

func (t *replayTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !t.armed.Load() {
		return t.next.RoundTrip(req)
	}
	target := req.Header.Get("X-Amz-Target")
	t.mu.Lock()
	s, ok := t.saved[target]
	t.mu.Unlock()
	if !ok {
		resp, err := t.next.RoundTrip(req)
		if err != nil {
			return nil, err
		}
		body, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if err != nil {
			return nil, err
		}
		s = savedResponse{status: resp.StatusCode, header: resp.Header, body: body}
		t.mu.Lock()
		t.saved[target] = s
		t.mu.Unlock()
	} else if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		_ = req.Body.Close()
	}
	return response(req, s.status, s.header.Clone(), s.body), nil
}
