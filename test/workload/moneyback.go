package workload

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/payments"
	"github.com/oncetable/oncetable/runtime/store"
)

// kindRace picks, in the clients' weights, a race of two or three requests
// of one flow (or a cancel and a settle) on one order, hold or pair of
// users, sent at once by the client; each request of a race is an intent
// of KindNew.
const kindRace = "race"

// holdRef is a hold the clients know of.
type holdRef struct {
	id, user string
	amount   int64
}

// HoldExpirySeconds is the expiry of the short holds the clients
// authorize (the API's least). With Config.HoldExpiry the API's clock
// jumps by HoldClockJump at each fault window, so a short hold expires at
// the next one, before or while the clients capture or void it.
const HoldExpirySeconds = 60

// HoldsExpired counts the holds that expired before anything closed
// them: authorized, with an expiry the API's clock has passed.
func (r *Result) HoldsExpired() int {
	now, n := keys.Timestamp(r.APIClock), 0
	for _, h := range r.State.Holds {
		if h.At(now).Status == store.HoldExpired {
			n++
		}
	}
	return n
}

// learn remembers what an acknowledged charge, settle or authorization
// made: an order to settle, a paid order to refund, a hold to capture or
// void.
func (w *world) learn(in *Intent) {
	if !in.Acked() {
		return
	}
	var b struct {
		OrderID, HoldID, UserID string
		Total, Amount           int64
	}
	if json.Unmarshal([]byte(in.RespBody), &b) != nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	switch in.Op {
	case OpCharge:
		w.billed = append(w.billed, orderRef{id: in.Order, user: in.User, total: b.Amount})
	case OpSettle:
		w.paid = append(w.paid, orderRef{id: b.OrderID, user: b.UserID, total: b.Total})
	case OpAuthorize:
		w.holds = append(w.holds, holdRef{id: b.HoldID, user: b.UserID, amount: b.Amount})
	}
}

// retire forgets what a refund, capture or void answered is done with: an
// order refunded in full or with less left than asked, a hold captured,
// voided, expired or closed by another request, so the clients go on
// acting on those still open.
func (w *world) retire(in *Intent) {
	done := in.Status == http.StatusConflict || in.Status == http.StatusUnprocessableEntity
	switch {
	case in.Op == OpRefund && (done || in.Acked() && strings.Contains(in.RespBody, `"orderStatus":"refunded"`)):
		w.mu.Lock()
		w.paid = slices.DeleteFunc(w.paid, func(o orderRef) bool { return o.id == in.Order })
		w.mu.Unlock()
	case (in.Op == OpCapture || in.Op == OpVoid) && (done || in.Acked()):
		id := strings.Split(strings.TrimPrefix(in.Path, "/users/"+in.User+"/holds/"), "/")[0]
		w.mu.Lock()
		w.holds = slices.DeleteFunc(w.holds, func(h holdRef) bool { return h.id == id })
		w.mu.Unlock()
	}
}

// recent picks one of refs, favouring the last 32 (still open).
func recent[T any](r *rand.Rand, refs []T) (T, bool) {
	var zero T
	n := len(refs)
	if n == 0 {
		return zero, false
	}
	if r.IntN(4) > 0 && n > 32 {
		return refs[n-1-r.IntN(32)], true
	}
	return refs[r.IntN(n)], true
}

func (w *world) charged(r *rand.Rand) (orderRef, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return recent(r, w.billed)
}

func (w *world) paidOrder(r *rand.Rand) (orderRef, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return recent(r, w.paid)
}

func (w *world) hold(r *rand.Rand) (holdRef, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return recent(r, w.holds)
}

// moneyBack fills in a request of the flows that give money back or move
// it between users: refund (in part, or all that is left), cancel,
// authorize (a short hold one time in two, one in eight for more than most
// balances), capture (in part or in full,
// one in eight for one more than held), void and transfer.
func (c *client) moneyBack(in *Intent) (*Intent, bool) {
	w := c.run.world
	switch in.Op {
	case OpRefund:
		o, ok := w.paidOrder(c.rng)
		if !ok {
			return nil, false
		}
		in.User, in.Order, in.Key = o.user, o.id, c.key()
		in.Path = "/orders/" + o.id + "/refunds"
		if c.rng.IntN(3) > 0 {
			in.Body = fmt.Sprintf(`{"amount":%d,"currency":"EUR"}`, 1+c.rng.Int64N(max(1, o.total*2/3)))
		}
	case OpCancel:
		o, ok := w.order(c.rng)
		if !ok {
			return nil, false
		}
		in.User, in.Order, in.Key = o.user, o.id, c.key()
		in.Path = "/orders/" + o.id + "/cancel"
	case OpAuthorize:
		u, ok := w.user(c.rng)
		if !ok {
			return nil, false
		}
		in.User, in.Key = u, c.key()
		in.Path = "/users/" + u + "/holds"
		amount := 50 + c.rng.Int64N(3000)
		if c.rng.IntN(8) == 0 {
			amount = 20_000 + c.rng.Int64N(40_000) // more than most balances: a 402, unless the guard is gone
		}
		in.Body = fmt.Sprintf(`{"amount":%d,"currency":"EUR"}`, amount)
		if c.rng.IntN(2) == 0 {
			in.Body = fmt.Sprintf(`{"amount":%d,"currency":"EUR","expiresInSeconds":%d}`, amount, HoldExpirySeconds)
		}
	case OpCapture, OpVoid:
		h, ok := w.hold(c.rng)
		if !ok {
			return nil, false
		}
		in.User, in.Key = h.user, c.key()
		in.Path = "/users/" + h.user + "/holds/" + h.id + "/void"
		if in.Op == OpCapture {
			in.Path = "/users/" + h.user + "/holds/" + h.id + "/capture"
			amount := h.amount
			switch c.rng.IntN(8) {
			case 0:
				amount++ // more than held: 422, nothing captured
			case 1, 2, 3:
				amount = 1 + c.rng.Int64N(h.amount)
			}
			in.Body = fmt.Sprintf(`{"amount":%d,"currency":"EUR"}`, amount)
		}
	case OpTransfer:
		from, ok := w.user(c.rng)
		to, ok2 := w.user(c.rng)
		if !ok || !ok2 || from == to {
			return nil, false
		}
		in.User, in.Key = from, c.key()
		in.Path = "/users/" + from + "/transfers"
		in.Body = fmt.Sprintf(`{"toUserId":%q,"amount":%d,"currency":"EUR"}`, to, 50+c.rng.Int64N(2000))
	}
	return in, true
}

// otherMoneyBackBody is a body for o's key that differs in what matters.
func otherMoneyBackBody(o *Intent) (string, bool) {
	if o.Op == OpVoid {
		return `{"metadata":{"reused":"yes"}}`, true
	}
	var b map[string]any
	if o.Body == "" {
		return `{"amount":1,"currency":"EUR"}`, true
	}
	if json.Unmarshal([]byte(o.Body), &b) != nil {
		return "", false
	}
	amount, _ := b["amount"].(float64)
	b["amount"] = int64(amount) + 1
	out, err := json.Marshal(b)
	return string(out), err == nil
}

// race sends two or three requests at once on one target:
//   - refunds: a full refund of one paid order and one or two partial
//     ones of more than half of it, of which at most one can fit;
//   - cancel: a cancel and a settle of one order;
//   - capture: two captures of one hold, or a capture and a void;
//   - transfer: two users sending to each other at once.
func (c *client) race(ctx context.Context, op Op) {
	var group []*Intent
	add := func(op Op) *Intent {
		in, ok := c.request(op)
		if !ok {
			return nil
		}
		group = append(group, in)
		return in
	}
	switch op {
	case OpRefund:
		first := add(OpRefund)
		if first == nil {
			return
		}
		// More than half of the order each, so that at most one of them
		// fits in what is left.
		total := c.paidTotal(first.Order)
		first.Body = ""
		for range 1 + c.rng.IntN(2) {
			in := *first
			in.Key = c.key()
			in.Body = fmt.Sprintf(`{"amount":%d,"currency":"EUR"}`, min(total, total/2+1+c.rng.Int64N(max(1, total/2))))
			group = append(group, &in)
		}
	case OpCancel:
		cancel := add(OpCancel)
		if cancel == nil {
			return
		}
		settle := &Intent{Op: OpSettle, Kind: KindNew, Caller: c.caller, Method: http.MethodPost, Origin: -1,
			User: cancel.User, Order: cancel.Order, Key: c.key(), Path: "/orders/" + cancel.Order + "/settle"}
		group = append(group, settle)
	case OpCapture:
		first := add(OpCapture)
		if first == nil {
			return
		}
		other := *first
		other.Key = c.key()
		if c.rng.IntN(3) == 0 {
			other.Op, other.Body = OpVoid, ""
			other.Path = other.Path[:len(other.Path)-len("capture")] + "void"
		}
		group = append(group, &other)
	case OpTransfer:
		first := add(OpTransfer)
		if first == nil {
			return
		}
		var b struct{ ToUserID string }
		if json.Unmarshal([]byte(first.Body), &b) != nil {
			return
		}
		back := *first
		back.User, back.Key = b.ToUserID, c.key()
		back.Path = "/users/" + b.ToUserID + "/transfers"
		back.Body = fmt.Sprintf(`{"toUserId":%q,"amount":%d,"currency":"EUR"}`, first.User, 50+c.rng.Int64N(2000))
		group = append(group, &back)
	}
	var wg sync.WaitGroup
	for i, in := range group {
		// Each racer draws its timeouts and drops from a source of its own.
		racer := &client{id: c.id, caller: c.caller, rng: rand.New(rand.NewPCG(c.rng.Uint64(), uint64(i))), run: c.run}
		wg.Add(1)
		go func() { defer wg.Done(); racer.send(ctx, in) }()
	}
	wg.Wait()
}

// paidTotal is the total of a paid order the world knows of.
func (c *client) paidTotal(orderID string) int64 {
	w := c.run.world
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := len(w.paid) - 1; i >= 0; i-- {
		if w.paid[i].id == orderID {
			return w.paid[i].total
		}
	}
	return 1
}

// moneyBackBody is what the checker reads of a stored response of the
// flows that give money back or move it between users.
type moneyBackBody struct {
	EntryID, OrderID, UserID, HoldID, RefundID, TransferID, Status string
	FromUserID, ToUserID                                           string
	Amount, Captured                                               int64
}

// moneyBackClaim checks what a record of one of those flows says it did
// against the table, and names the effect it claims: "refund:<id>",
// "cancel:<orderId>", "hold:<id>", "capture:<holdId>", "void:<holdId>" or
// "transfer:<id>". owner is the partition of the entity its requests
// named.
func (c *checker) moneyBackClaim(op, owner string, ledger map[string]store.LedgerEntry, b moneyBackBody) (claim, error) {
	st := c.st
	switch op {
	case payments.FlowRefund:
		e, ok := ledger[b.EntryID]
		if !ok || e.Kind != store.LedgerRefund || e.Amount != b.Amount || e.RefundID != b.RefundID || "ORDER#"+e.OrderID != owner {
			return "", fmt.Errorf("claims refund %q (entry %q) of %d, found %+v", b.RefundID, b.EntryID, b.Amount, e)
		}
		return "refund:" + b.RefundID, nil
	case payments.FlowCancel:
		if o, ok := st.Orders[b.OrderID]; !ok || o.Status != store.OrderCancelled || "ORDER#"+o.OrderID != owner {
			return "", fmt.Errorf("claims to have cancelled order %q, found %+v", b.OrderID, o)
		}
		return "cancel:" + b.OrderID, nil
	case payments.FlowAuthorize:
		if h, ok := st.Holds[b.HoldID]; !ok || h.Amount != b.Amount || "USER#"+h.UserID != owner {
			return "", fmt.Errorf("claims hold %q of %d, found %+v", b.HoldID, b.Amount, h)
		}
		return "hold:" + b.HoldID, nil
	case payments.FlowCapture, payments.FlowVoid:
		want, cl := store.HoldCaptured, "capture:"
		if op == payments.FlowVoid {
			want, cl = store.HoldVoided, "void:"
		}
		if h, ok := st.Holds[b.HoldID]; !ok || h.Status != want || h.Captured != b.Captured || "USER#"+h.UserID != owner {
			return "", fmt.Errorf("claims hold %q %s (captured %d), found %+v", b.HoldID, want, b.Captured, h)
		}
		return cl + b.HoldID, nil
	case payments.FlowTransfer:
		out, in := ledger[b.EntryID], ledger[b.TransferID+"-in"]
		if out.Kind != store.LedgerTransferOut || in.Kind != store.LedgerTransferIn || out.Amount != b.Amount || in.Amount != b.Amount ||
			out.UserID != b.FromUserID || in.UserID != b.ToUserID || "USER#"+b.FromUserID != owner {
			return "", fmt.Errorf("claims transfer %q of %d from %s to %s, found %+v and %+v", b.TransferID, b.Amount, b.FromUserID, b.ToUserID, out, in)
		}
		return "transfer:" + b.TransferID, nil
	}
	return "", fmt.Errorf("unknown operation %q", op)
}
