package obs

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"
)

// Namespaces of the EMF metrics.
const (
	BusinessNamespace = "oncetable/business"
	FaultNamespace    = "oncetable/faults"
)

// Business outcome metric names.
const (
	Created           = "Created"
	Replayed          = "Replayed"
	InsufficientFunds = "InsufficientFunds"
	KeyReused         = "KeyReused"
	Rejected          = "Rejected"
	Frozen            = "Frozen"
)

// Fault metric names.
const (
	ConflictRetried = "ConflictRetried"
	Throttled       = "Throttled"
	Unavailable     = "Unavailable"
	Error           = "Error"
)

// NewLogger returns a JSON slog logger on w (os.Stdout when nil).
func NewLogger(w io.Writer) *slog.Logger {
	if w == nil {
		w = os.Stdout
	}
	return slog.New(slog.NewJSONHandler(w, nil))
}

// KeyHash is what logs show for an idempotency key: the first 16 hex digits
// of its SHA-256.
func KeyHash(key string) string {
	if key == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:8])
}

// Metrics writes EMF lines. The zero value discards; use [NewMetrics].
type Metrics struct {
	mu  sync.Mutex
	w   io.Writer
	now func() time.Time
}

// NewMetrics writes EMF lines to w (os.Stdout when nil).
func NewMetrics(w io.Writer) *Metrics {
	if w == nil {
		w = os.Stdout
	}
	return &Metrics{w: w, now: time.Now}
}

// Business counts one business outcome of flow.
func (m *Metrics) Business(flow, name string) { m.emit(BusinessNamespace, flow, name) }

// Fault counts one fault of flow.
func (m *Metrics) Fault(flow, name string) { m.emit(FaultNamespace, flow, name) }

func (m *Metrics) emit(namespace, flow, name string) {
	if m == nil || m.w == nil {
		return
	}
	line := map[string]any{
		"_aws": map[string]any{
			"Timestamp": m.now().UnixMilli(),
			"CloudWatchMetrics": []any{map[string]any{
				"Namespace": namespace,
				// Per flow, and across flows (an empty dimension set) for the
				// alarms, which cannot sum an open set of flows.
				"Dimensions": [][]string{{"Flow"}, {}},
				"Metrics":    []any{map[string]string{"Name": name, "Unit": "Count"}},
			}},
		},
		"Flow": flow,
		name:   1,
	}
	b, err := json.Marshal(line)
	if err != nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.w.Write(append(b, '\n'))
}

// syncWriter serialises writes from the logger and the metrics, which may
// share one writer.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// Sync returns w made safe for concurrent writers (os.Stdout when nil).
func Sync(w io.Writer) io.Writer {
	if w == nil {
		w = os.Stdout
	}
	if s, ok := w.(*syncWriter); ok {
		return s
	}
	return &syncWriter{w: w}
}
