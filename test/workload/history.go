package workload

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"
)

// Op is a kind of client operation.
type Op string

// Operations of the workload.
const (
	OpCreateUser  Op = "create_user"
	OpCredit      Op = "credit"
	OpDebit       Op = "debit"
	OpCreateOrder Op = "create_order"
	OpCharge      Op = "charge"
	OpSettle      Op = "settle"
	OpBalance     Op = "read_balance"
	OpLedger      Op = "read_ledger"
	OpOrders      Op = "read_orders_by_status"
	OpProcess     Op = "process_payment"
	OpRefund      Op = "refund"
	OpCancel      Op = "cancel_order"
	OpAuthorize   Op = "authorize_hold"
	OpCapture     Op = "capture_hold"
	OpVoid        Op = "void_hold"
	OpTransfer    Op = "transfer"
)

// Intent kinds: a fresh request, an old key sent again with its original
// body, an old key sent with a different body, or a customer's call on
// another user's data or on a route its role lacks.
const (
	KindNew      = "new"
	KindResubmit = "resubmit"
	KindReuse    = "reuse"
	KindIntrude  = "intrude"
)

// Attempt outcomes that are not a response the client accepted.
const (
	ErrNone    = ""
	ErrTimeout = "timeout"   // the client gave up waiting
	ErrNetwork = "transport" // connection error
	ErrDropped = "dropped"   // a response arrived but the client threw it away
)

// Intent is one logical request of a client: its attempts share the
// Idempotency-Key and body.
type Intent struct {
	ID     int
	Client int
	Op     Op
	Kind   string
	Caller string // X-Local-Caller
	Scopes string // X-Local-Scopes; "" is the local operator
	Method string
	Path   string
	Key    string // Idempotency-Key, "" on routes without one
	Body   string
	Origin int    // the intent whose key a resubmit or reuse sends again, else -1
	User   string // the user the request acts on (for orders: the owner)
	Order  string
	// Refusal is the status a hostile customer's call on its own route
	// must get (400: an order id of another user's on create, a forged
	// cursor); 0 for calls on others' data or routes (403 or 404).
	Refusal  int
	Attempts []int // indexes into History.Attempts

	// Final outcome, set when the client stops: the status and body of
	// the last response it accepted, or 0 when it gave up.
	Status   int
	RespBody string
	Replayed bool
}

// Acked reports whether the client got a success response.
func (in *Intent) Acked() bool { return in.Status >= 200 && in.Status < 300 }

// Attempt is one HTTP exchange.
type Attempt struct {
	Seq      int
	Intent   int
	Try      int
	Start    time.Duration // offset from the start of the run
	Latency  time.Duration
	Status   int // 0 when no response arrived
	Replayed bool
	Err      string
	Body     string // response body (kept for checks and reports)
}

// History is everything the clients did. It is safe for concurrent use.
type History struct {
	mu       sync.Mutex
	Intents  []*Intent
	Attempts []Attempt
	start    time.Time
	out      *bufio.Writer
	enc      *json.Encoder
}

func newHistory(start time.Time, w io.Writer) *History {
	h := &History{start: start}
	if w != nil {
		h.out = bufio.NewWriterSize(w, 1<<20)
		h.enc = json.NewEncoder(h.out)
	}
	return h
}

func (h *History) begin(in *Intent) *Intent {
	h.mu.Lock()
	defer h.mu.Unlock()
	in.ID = len(h.Intents)
	h.Intents = append(h.Intents, in)
	return in
}

// record appends an attempt and streams it to the history file with its
// intent's request.
func (h *History) record(in *Intent, a Attempt) {
	h.mu.Lock()
	defer h.mu.Unlock()
	a.Seq = len(h.Attempts)
	a.Intent = in.ID
	a.Try = len(in.Attempts) + 1
	in.Attempts = append(in.Attempts, a.Seq)
	h.Attempts = append(h.Attempts, a)
	if h.enc != nil {
		h.enc.Encode(historyLine{Seq: a.Seq, Intent: in.ID, Client: in.Client, Op: in.Op, Kind: in.Kind, Try: a.Try,
			Caller: in.Caller, Method: in.Method, Path: in.Path, Key: in.Key, Body: in.Body,
			StartMs: ms(a.Start), LatencyMs: ms(a.Latency), Status: a.Status, Replayed: a.Replayed, Err: a.Err, Response: a.Body})
	}
}

func (h *History) finish(in *Intent, status int, body string, replayed bool) {
	h.mu.Lock()
	in.Status, in.RespBody, in.Replayed = status, body, replayed
	h.mu.Unlock()
}

func (h *History) flush() error {
	if h.out == nil {
		return nil
	}
	return h.out.Flush()
}

type historyLine struct {
	Seq       int     `json:"seq"`
	Intent    int     `json:"intent"`
	Client    int     `json:"client"`
	Op        Op      `json:"op"`
	Kind      string  `json:"kind"`
	Try       int     `json:"try"`
	Caller    string  `json:"caller"`
	Method    string  `json:"method"`
	Path      string  `json:"path"`
	Key       string  `json:"key,omitempty"`
	Body      string  `json:"body,omitempty"`
	StartMs   float64 `json:"startMs"`
	LatencyMs float64 `json:"latencyMs"`
	Status    int     `json:"status"`
	Replayed  bool    `json:"replayed,omitempty"`
	Err       string  `json:"err,omitempty"`
	Response  string  `json:"response,omitempty"`
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// describe renders the attempts of an intent, one line each, for a
// violation report.
func (h *History) describe(in *Intent) []string {
	lines := []string{fmt.Sprintf("intent %d: client %d %s (%s) %s %s key=%q caller=%s body=%s",
		in.ID, in.Client, in.Op, in.Kind, in.Method, in.Path, in.Key, in.Caller, in.Body)}
	for _, i := range in.Attempts {
		a := h.Attempts[i]
		lines = append(lines, fmt.Sprintf("  #%d try %d at %.3fs (%.1f ms): status %d replayed=%v err=%q body=%s",
			a.Seq, a.Try, a.Start.Seconds(), ms(a.Latency), a.Status, a.Replayed, a.Err, truncate(a.Body, 300)))
	}
	return lines
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
