package workload

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestSwapDrainsTheOldGeneration: a deploy waits for the requests the old
// API accepted, and no request starts on the old API after it returned.
func TestSwapDrainsTheOldGeneration(t *testing.T) {
	release := make(chan struct{})
	var oldStarted, oldAfter, served atomic.Int64
	var swapped atomic.Bool
	started := make(chan struct{}, 64)
	oldAPI := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if swapped.Load() {
			oldAfter.Add(1)
		}
		oldStarted.Add(1)
		select {
		case started <- struct{}{}:
		default:
		}
		<-release
	})
	newAPI := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { served.Add(1) })
	s := newSwapHandler(oldAPI)
	var wg sync.WaitGroup
	for range 5 {
		wg.Add(1)
		go func() { defer wg.Done(); s.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil)) }()
	}
	for range 5 {
		<-started
	}
	done := make(chan struct{})
	go func() { s.swap(newAPI); swapped.Store(true); close(done) }()
	// New requests go to the new API while the old one drains.
	for served.Load() == 0 {
		go s.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
		time.Sleep(time.Millisecond) // paces the load until the swap takes new requests

	}
	select {
	case <-done:
		t.Fatal("swap returned while 5 requests of the old API were still running")
	case <-time.After(20 * time.Millisecond):
	}
	close(release)
	<-done
	wg.Wait()
	old, before := oldStarted.Load(), served.Load()
	for range 20 {
		s.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	}
	if oldAfter.Load() != 0 || oldStarted.Load() != old || served.Load() < before+20 {
		t.Fatalf("old API: %d requests, then %d (%d after the swap returned); new API: %d, then %d; want every request after the swap on the new API",
			old, oldStarted.Load(), oldAfter.Load(), before, served.Load())
	}
}
