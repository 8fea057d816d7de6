package idempotency_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/oncetable/oncetable/runtime/idempotency"
)

// processor is a fake external system. With dedupe set it honours the
// forwarded key, as a card processor's own Idempotency-Key does.
type processor struct {
	mu      sync.Mutex
	dedupe  bool
	seen    map[string]bool
	effects int
}

func (p *processor) charge(key string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dedupe && p.seen[key] {
		return
	}
	if p.seen == nil {
		p.seen = map[string]bool{}
	}
	p.seen[key] = true
	p.effects++
}

// call is one external-mode request: claim, call, complete. crash skips
// the completion, as a process killed right after the external call would.
func call(ctx context.Context, w *world, ext *processor, key, fp string, crash bool) (idempotency.Response, error) {
	resp, p, err := w.records.Begin(ctx, request(key, fp), 30*time.Second)
	if err != nil || p == nil {
		return resp, err
	}
	ext.charge(p.ForwardKey())
	if crash {
		return idempotency.Response{}, errors.New("crashed")
	}
	return p.Complete(ctx, &idempotency.Effect{Status: 201, Body: map[string]string{"charged": key}})
}

func TestExternalCrashInsideWindow(t *testing.T) {
	w := newWorld(t)
	ext := &processor{}
	ctx := context.Background()
	if _, err := call(ctx, w, ext, "k", "fp", true); err == nil {
		t.Fatal("want the crash")
	}
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := call(ctx, w, ext, "k", "fp", false)
			var ip *idempotency.InProgressError
			if !errors.As(err, &ip) || !errors.Is(err, idempotency.ErrInProgress) {
				t.Errorf("duplicate inside the window: err = %v, want InProgressError", err)
			}
		}()
	}
	wg.Wait()
	w.advance(29 * time.Second)
	if _, err := call(ctx, w, ext, "k", "fp", false); !errors.Is(err, idempotency.ErrInProgress) {
		t.Errorf("at 29s: err = %v, want ErrInProgress", err)
	}
	if _, err := call(ctx, w, ext, "k", "other", false); !errors.Is(err, idempotency.ErrKeyReused) {
		t.Errorf("other payload while pending: err = %v, want ErrKeyReused", err)
	}
	if ext.effects != 1 {
		t.Errorf("external effects = %d inside the window, want 1", ext.effects)
	}
}

// After the window a pending record no longer blocks its key: the next
// duplicate runs the call again, and only the external system's own
// deduplication by the forwarded key keeps the effect single.
func TestExternalAfterWindow(t *testing.T) {
	for _, dedupe := range []bool{false, true} {
		w := newWorld(t)
		ext := &processor{dedupe: dedupe}
		ctx := context.Background()
		_, stale, err := w.records.Begin(ctx, request("k", "fp"), 30*time.Second)
		if err != nil || stale == nil {
			t.Fatalf("Begin = %v, %v", stale, err)
		}
		ext.charge(stale.ForwardKey())
		w.advance(31 * time.Second)
		resp, err := call(ctx, w, ext, "k", "fp", false)
		if err != nil || resp.Replayed || resp.Status != 201 {
			t.Fatalf("after the window: %+v, %v; want a fresh run", resp, err)
		}
		want := 2
		if dedupe {
			want = 1
		}
		if ext.effects != want {
			t.Errorf("dedupe=%v: external effects = %d, want %d", dedupe, ext.effects, want)
		}
		if _, err := stale.Complete(ctx, &idempotency.Effect{Status: 201, Body: "late"}); !errors.Is(err, idempotency.ErrLockLost) {
			t.Errorf("late completion: err = %v, want ErrLockLost", err)
		}
		again, err := call(ctx, w, ext, "k", "fp", false)
		if err != nil || !again.Replayed || string(again.Body) != string(resp.Body) {
			t.Errorf("replay = %+v, %v; want %s", again, err, resp.Body)
		}
	}
}

func TestExternalRequests(t *testing.T) {
	w := newWorld(t)
	ext := &processor{}
	ctx := context.Background()
	steps := []struct {
		name string
		do   func() error
		want map[string]int
	}{
		{"first call", func() error { _, err := call(ctx, w, ext, "k", "fp", false); return err }, map[string]int{"PutItem": 1, "UpdateItem": 1}},
		{"replay", func() error {
			r, err := call(ctx, w, ext, "k", "fp", false)
			if err == nil && !r.Replayed {
				err = errors.New("not replayed")
			}
			return err
		}, map[string]int{"PutItem": 1}},
		{"release then retry", func() error {
			_, p, err := w.records.Begin(ctx, request("r", "fp"), time.Minute)
			if err != nil {
				return err
			}
			if err := p.Release(ctx); err != nil {
				return err
			}
			_, p, err = w.records.Begin(ctx, request("r", "fp"), time.Minute)
			if err == nil && p == nil {
				err = errors.New("released key not free")
			}
			return err
		}, map[string]int{"PutItem": 2, "DeleteItem": 1}},
	}
	for _, st := range steps {
		w.reqs.Reset()
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		got := w.reqs.Snapshot()
		for op, n := range st.want {
			if got[op] != n {
				t.Errorf("%s: %s = %d, want %d (all: %v)", st.name, op, got[op], n, got)
			}
		}
		if len(got) != len(st.want) {
			t.Errorf("%s: requests %v, want %v", st.name, got, st.want)
		}
	}
	if ext.effects != 1 {
		t.Errorf("external effects = %d, want 1", ext.effects)
	}
}
