package workload

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/cursor"
	"github.com/oncetable/oncetable/runtime/httpapi"
	"github.com/oncetable/oncetable/runtime/localrun"
)

// world is what the clients know together: the users and orders that
// exist and the acknowledged requests whose keys may be sent again.
type world struct {
	mu     sync.Mutex
	users  []string
	orders []orderRef
	acked  []*Intent // acknowledged keyed intents, a bounded ring
	next   int
	paid   []orderRef // orders some settle was acknowledged for
	billed []orderRef // orders some charge was acknowledged for
	holds  []holdRef  // holds some authorization was acknowledged for
}

type orderRef struct {
	id, user string
	total    int64
}

const ackedRing = 2048

func (w *world) addUser(u string) {
	w.mu.Lock()
	w.users = append(w.users, u)
	w.mu.Unlock()
}

func (w *world) userCount() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.users)
}

func (w *world) user(r *rand.Rand) (string, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.users) == 0 {
		return "", false
	}
	return w.users[r.IntN(len(w.users))], true
}

func (w *world) addOrder(o orderRef) {
	w.mu.Lock()
	w.orders = append(w.orders, o)
	w.mu.Unlock()
}

// order picks an order, favouring recent ones (which are still unpaid).
func (w *world) order(r *rand.Rand) (orderRef, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(w.orders)
	if n == 0 {
		return orderRef{}, false
	}
	if r.IntN(4) > 0 && n > 32 {
		return w.orders[n-1-r.IntN(32)], true
	}
	return w.orders[r.IntN(n)], true
}

func (w *world) remember(in *Intent) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.acked) < ackedRing {
		w.acked = append(w.acked, in)
		return
	}
	w.acked[w.next] = in
	w.next = (w.next + 1) % ackedRing
}

func (w *world) old(r *rand.Rand) (*Intent, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.acked) == 0 {
		return nil, false
	}
	return w.acked[r.IntN(len(w.acked))], true
}

// client is one concurrent user of the API.
type client struct {
	id     int
	caller string
	rng    *rand.Rand
	run    *runner
	seq    int
}

// weights of the operations a client picks from.
var weights = []struct {
	op     Op
	kind   string
	weight int
}{
	{OpCreateUser, KindNew, 2},
	{OpCredit, KindNew, 20},
	{OpDebit, KindNew, 14},
	{OpCreateOrder, KindNew, 12},
	{OpCharge, KindNew, 7},
	{OpSettle, KindNew, 12},
	{OpBalance, KindNew, 10},
	{OpLedger, KindNew, 2},
	{OpOrders, KindNew, 2},
	{OpProcess, KindNew, 3},
	{OpRefund, KindNew, 4},
	{OpRefund, kindRace, 3},
	{OpCancel, KindNew, 3},
	{OpCancel, kindRace, 3},
	{OpAuthorize, KindNew, 8},
	{OpCapture, KindNew, 4},
	{OpCapture, kindRace, 3},
	{OpVoid, KindNew, 2},
	{OpTransfer, KindNew, 4},
	{OpTransfer, kindRace, 3},
	{"", KindResubmit, 8},
	{"", KindReuse, 3},
}

// weightOf is an entry's weight in a run's mix (Config.Focus and
// Config.Without).
func weightOf(op Op, weight int, cfg Config) int {
	switch {
	case slices.Contains(cfg.Without, op):
		return 0
	case slices.Contains(cfg.Focus, op):
		return 10 * weight
	}
	return weight
}

func (c *client) loop(ctx context.Context) {
	total := 0
	for _, w := range weights {
		total += weightOf(w.op, w.weight, c.run.cfg)
	}
	for ctx.Err() == nil {
		n := c.rng.IntN(total)
		for _, w := range weights {
			if n -= weightOf(w.op, w.weight, c.run.cfg); n < 0 {
				c.step(ctx, w.op, w.kind)
				break
			}
		}
	}
}

func (c *client) key() string {
	c.seq++
	return fmt.Sprintf("c%d-k%d-%08x", c.id, c.seq, c.rng.Uint32())
}

// step runs one operation; it returns without doing anything when the
// world has nothing to act on yet.
func (c *client) step(ctx context.Context, op Op, kind string) {
	w := c.run.world
	switch kind {
	case KindResubmit:
		o, ok := w.old(c.rng)
		if !ok {
			return
		}
		c.send(ctx, &Intent{Op: o.Op, Kind: KindResubmit, Caller: o.Caller, Method: o.Method, Path: o.Path,
			Key: o.Key, Body: o.Body, Origin: o.ID, User: o.User, Order: o.Order})
		return
	case KindReuse:
		o, ok := w.old(c.rng)
		if !ok {
			return
		}
		body, ok := c.otherBody(o)
		if !ok {
			return
		}
		c.send(ctx, &Intent{Op: o.Op, Kind: KindReuse, Caller: o.Caller, Method: o.Method, Path: o.Path,
			Key: o.Key, Body: body, Origin: o.ID, User: o.User, Order: o.Order})
		return
	}
	if op == OpProcess {
		c.process(ctx)
		return
	}
	if kind == kindRace {
		c.race(ctx, op)
		return
	}
	if in, ok := c.request(op); ok {
		c.send(ctx, in)
	}
}

// intrusions are what a hostile customer tries: another user's money and
// data (debit, order, charge, settle, balance, ledger) and the back
// office's routes (credit, orders by status), even for itself.
var intrusions = []Op{OpDebit, OpCreateOrder, OpCharge, OpSettle, OpBalance, OpLedger, OpCredit, OpOrders,
	OpRefund, OpCancel, OpAuthorize, OpCapture, OpVoid, OpTransfer}

// merchantOnly are the intrusions a customer is refused even on its own
// data: the back office's routes, and giving money back or closing a hold,
// which are the merchant's.
var merchantOnly = map[Op]bool{OpCredit: true, OpOrders: true, OpRefund: true, OpCapture: true, OpVoid: true}

// intrudeLoop is a hostile customer's life: intrusions until ctx ends.
func (c *client) intrudeLoop(ctx context.Context) {
	for ctx.Err() == nil {
		c.intrude(ctx)
		// Paced, so the intruders add a few percent to the clients' load
		// rather than compete with them for the CPU.
		time.Sleep(20 * time.Millisecond)
	}
}

// intrude sends one of the intrusions as a customer (X-Local-Scopes
// payments/customer): another user than the request's, except on the back
// office's routes, which refuse every customer. Every one must be refused
// (404 as if the data did not exist, or 403) and change nothing.
func (c *client) intrude(ctx context.Context) {
	if c.rng.IntN(5) == 0 {
		if in, ok := c.ownIntrusion(); ok {
			c.send(ctx, in)
		}
		return
	}
	in, ok := c.request(intrusions[c.rng.IntN(len(intrusions))])
	if !ok {
		return
	}
	attacker, ok := c.run.world.user(c.rng)
	if !ok || attacker == in.User && !merchantOnly[in.Op] {
		return
	}
	in.Kind, in.Caller, in.Scopes = KindIntrude, attacker, httpapi.DefaultCustomerScope
	c.send(ctx, in)
}

// ownIntrusion is a hostile customer's call on its own routes aimed at
// another user: creating an order in its own account under the id of
// another user's order (to learn that it exists, or to take it), or
// paging its own ledger with a cursor signed with the API's secret that
// points into the victim's partition. Both must be 400 and apply nothing.
func (c *client) ownIntrusion() (*Intent, bool) {
	w := c.run.world
	attacker, ok := w.user(c.rng)
	if !ok {
		return nil, false
	}
	victim, ok := w.order(c.rng)
	if !ok || victim.user == attacker {
		return nil, false
	}
	in := &Intent{Kind: KindIntrude, Caller: attacker, Scopes: httpapi.DefaultCustomerScope, User: attacker, Origin: -1, Refusal: http.StatusBadRequest}
	if c.rng.IntN(2) == 0 {
		in.Op, in.Method, in.Key = OpCreateOrder, http.MethodPost, c.key()
		in.Path = "/users/" + attacker + "/orders"
		in.Body = fmt.Sprintf(`{"orderId":%q,"currency":"EUR","items":[{"productId":"p1","quantity":1,"unitPrice":100}]}`, victim.id)
		return in, true
	}
	cur, err := cursor.New([]byte(cursorSecret)).Encode("ledger", map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "USER#" + victim.user}, "SK": &types.AttributeValueMemberS{Value: "LEDGER#9999"}})
	if err != nil {
		return nil, false
	}
	in.Op, in.Method = OpLedger, http.MethodGet
	in.Path = "/users/" + attacker + "/ledger?limit=5&cursor=" + url.QueryEscape(cur)
	return in, true
}

// request builds a fresh request of op on a user or order of the world;
// false when the world has nothing to act on yet.
func (c *client) request(op Op) (*Intent, bool) {
	w := c.run.world
	in := &Intent{Op: op, Kind: KindNew, Caller: c.caller, Method: http.MethodPost, Origin: -1}
	switch op {
	case OpCreateUser:
		if w.userCount() >= c.run.cfg.Users {
			return nil, false
		}
		in.User = fmt.Sprintf("u%d-%d", c.id, c.seq)
		c.seq++
		in.Path = "/users"
		in.Body = fmt.Sprintf(`{"userId":%q,"name":"User %d","email":"u%d@example.com"}`, in.User, c.id, c.id)
	case OpCredit, OpDebit:
		u, ok := w.user(c.rng)
		if !ok {
			return nil, false
		}
		in.User, in.Key = u, c.key()
		amount := 100 + c.rng.Int64N(5000)
		route := "credits"
		if op == OpDebit {
			route = "debits"
			amount = 50 + c.rng.Int64N(3000)
		}
		in.Path = "/users/" + u + "/" + route
		in.Body = fmt.Sprintf(`{"amount":%d,"currency":"EUR"}`, amount)
	case OpCreateOrder:
		u, ok := w.user(c.rng)
		if !ok {
			return nil, false
		}
		in.User, in.Key = u, c.key()
		in.Order = fmt.Sprintf("o%d-%d", c.id, c.seq)
		in.Path = "/users/" + u + "/orders"
		var items []string
		for i := 0; i < 1+c.rng.IntN(3); i++ {
			items = append(items, fmt.Sprintf(`{"productId":"p%d","quantity":%d,"unitPrice":%d}`, c.rng.IntN(20), 1+c.rng.IntN(3), 100+c.rng.IntN(2000)))
		}
		in.Body = fmt.Sprintf(`{"orderId":%q,"currency":"EUR","items":[%s]}`, in.Order, joinComma(items))
	case OpCharge, OpSettle:
		o, ok := w.order(c.rng)
		if op == OpSettle && c.rng.IntN(2) == 0 {
			o, ok = w.charged(c.rng) // one settle in two is of an order charged, so that orders get paid and refunded
		}
		if !ok {
			return nil, false
		}
		in.User, in.Order, in.Key = o.user, o.id, c.key()
		if op == OpCharge {
			in.Path = "/orders/" + o.id + "/payments"
			in.Body = fmt.Sprintf(`{"amount":%d,"currency":"EUR"}`, o.total)
		} else {
			in.Path = "/orders/" + o.id + "/settle"
			if c.rng.IntN(2) == 0 {
				in.Body = fmt.Sprintf(`{"amount":%d,"currency":"EUR"}`, o.total)
			}
		}
	case OpBalance, OpLedger:
		u, ok := w.user(c.rng)
		if !ok {
			return nil, false
		}
		in.Method, in.User = http.MethodGet, u
		in.Path = "/users/" + u + "/balance"
		if op == OpLedger {
			in.Path = "/users/" + u + "/ledger?limit=5"
		}
	case OpRefund, OpCancel, OpAuthorize, OpCapture, OpVoid, OpTransfer:
		return c.moneyBack(in)
	case OpOrders:
		in.Method = http.MethodGet
		in.Path = "/orders?status=created&limit=5"
		if c.rng.IntN(2) == 0 {
			in.Path = "/orders?status=paid&limit=5"
		}
	}
	return in, true
}

// otherBody is a request body that differs from o's in a way that matters
// (another amount, other items, another settle body).
func (c *client) otherBody(o *Intent) (string, bool) {
	switch o.Op {
	case OpCredit, OpDebit, OpCharge:
		var b struct{ Amount int64 }
		if json.Unmarshal([]byte(o.Body), &b) != nil {
			return "", false
		}
		return fmt.Sprintf(`{"amount":%d,"currency":"EUR"}`, b.Amount+1+c.rng.Int64N(10)), true
	case OpSettle:
		if o.Body == "" {
			return `{"amount":1,"currency":"EUR"}`, true
		}
		return "", true
	case OpCreateOrder:
		return fmt.Sprintf(`{"orderId":%q,"currency":"EUR","items":[{"productId":"other","quantity":1,"unitPrice":7}]}`, o.Order), true
	case OpRefund, OpAuthorize, OpCapture, OpVoid, OpTransfer:
		return otherMoneyBackBody(o)
	}
	return "", false
}

// process lists unprocessed payments (an eventually consistent sparse
// index) and processes one of them.
func (c *client) process(ctx context.Context) {
	in := c.send(ctx, &Intent{Op: OpProcess, Kind: KindNew, Caller: c.caller, Method: http.MethodGet,
		Path: "/payments/unprocessed?limit=10", Origin: -1})
	if in.Status != http.StatusOK {
		return
	}
	var page struct {
		Items []struct{ PaymentID, OrderID string }
	}
	if json.Unmarshal([]byte(in.RespBody), &page) != nil || len(page.Items) == 0 {
		return
	}
	p := page.Items[c.rng.IntN(len(page.Items))]
	c.send(ctx, &Intent{Op: OpProcess, Kind: KindNew, Caller: c.caller, Method: http.MethodPost,
		Path: "/orders/" + p.OrderID + "/payments/" + p.PaymentID + "/process", Order: p.OrderID, Origin: -1})
}

// ambiguous reports whether a response leaves the outcome unknown, so the
// client must retry with the same key.
func ambiguous(status int) bool { return status == 0 || status >= 500 }

// send runs an intent to a final outcome: a response the client accepts,
// or giving up after MaxTries ambiguous attempts.
func (c *client) send(ctx context.Context, in *Intent) *Intent {
	r := c.run
	in.Client = c.id
	r.history.begin(in)
	for try := 1; ; try++ {
		a := c.attempt(ctx, in)
		if a.Err == ErrNone && !ambiguous(a.Status) {
			r.history.record(in, a.Attempt)
			r.history.finish(in, a.Status, a.Body, a.Replayed)
			break
		}
		r.history.record(in, a.Attempt)
		if try >= r.cfg.MaxTries || ctx.Err() != nil {
			r.history.finish(in, 0, "", false)
			return in
		}
		c.backoff(ctx, try, a.retryAfter)
	}
	if in.Acked() && in.Key != "" && in.Kind == KindNew {
		r.world.remember(in)
	}
	if in.Kind == KindNew {
		r.world.retire(in)
	}
	if in.Kind == KindNew && (in.Acked() || in.Status == http.StatusConflict) {
		switch in.Op {
		case OpCreateUser:
			r.world.addUser(in.User)
		case OpCreateOrder:
			if in.Acked() {
				var o struct{ Total int64 }
				if json.Unmarshal([]byte(in.RespBody), &o) == nil {
					r.world.addOrder(orderRef{id: in.Order, user: in.User, total: o.Total})
				}
			}
		case OpCharge, OpSettle, OpAuthorize:
			r.world.learn(in)
		}
	}
	return in
}

type attemptResult struct {
	Attempt
	retryAfter time.Duration
}

func (c *client) attempt(ctx context.Context, in *Intent) attemptResult {
	r := c.run
	timeout := r.cfg.Timeout
	if c.rng.IntN(10) == 0 {
		timeout = r.cfg.ShortTimeout // an impatient client: latency spikes turn into timeouts
	}
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var body io.Reader
	if in.Body != "" {
		body = bytes.NewReader([]byte(in.Body))
	}
	req, err := http.NewRequestWithContext(actx, in.Method, r.url+in.Path, body)
	if err != nil {
		panic(err) // the workload built a bad URL: a bug here, not in the system under test
	}
	if in.Body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if in.Key != "" {
		req.Header.Set("Idempotency-Key", in.Key)
	}
	req.Header.Set(localrun.CallerHeader, in.Caller)
	if in.Scopes != "" {
		req.Header.Set(localrun.ScopesHeader, in.Scopes)
	}
	start := time.Now()
	res := attemptResult{Attempt: Attempt{Start: start.Sub(r.start)}}
	resp, err := r.http.Do(req)
	if err == nil {
		var b []byte
		b, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		if err == nil {
			res.Status, res.Body = resp.StatusCode, string(b)
			res.Replayed = resp.Header.Get("Idempotent-Replayed") == "true"
			if s, e := strconv.Atoi(resp.Header.Get("Retry-After")); e == nil {
				res.retryAfter = time.Duration(s) * time.Second
			}
		}
	}
	res.Latency = time.Since(start)
	switch {
	case err != nil && (errors.Is(err, context.DeadlineExceeded) || actx.Err() != nil):
		res.Err = ErrTimeout
	case err != nil:
		res.Err = ErrNetwork
	case in.Key != "" && c.rng.Float64() < r.dropRate():
		res.Err = ErrDropped // the response is recorded, but the client acts as if it never came
	}
	if res.Err == ErrNone && (in.Op == OpLedger || in.Op == OpOrders) {
		res.Body = "" // large and not needed by any check
	}
	r.observe(in, &res.Attempt)
	return res
}

// backoff waits before a retry: capped full jitter, honouring Retry-After
// up to MaxRetryAfter (a real client would wait the full hint; the cap
// keeps the run busy).
func (c *client) backoff(ctx context.Context, try int, retryAfter time.Duration) {
	ceil := min(5*time.Millisecond<<min(try-1, 10), 200*time.Millisecond)
	d := time.Duration(c.rng.Int64N(int64(ceil) + 1))
	if retryAfter > 0 {
		d = max(d, min(retryAfter, c.run.cfg.MaxRetryAfter))
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

func joinComma(s []string) string {
	var b bytes.Buffer
	for i, v := range s {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(v)
	}
	return b.String()
}
