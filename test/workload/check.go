package workload

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/httpapi"
	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/localrun"
	"github.com/oncetable/oncetable/runtime/payments"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/store"
)

// defaultRecords decodes records under oncetable's own attribute names.
var defaultRecords = idempotency.NewTable(nil, "")

// State is the table after a run, read with strongly consistent Scans (the
// checker is not a request path).
type State struct {
	Users    map[string]store.User
	Ledger   []store.LedgerEntry
	Orders   map[string]store.Order
	Payments []store.Payment
	Holds    map[string]store.Hold
	Refunds  []store.Refund
	Records  map[keys.Key]idempotency.Record
	Items    int
}

// ReadState reads the whole table.
func ReadState(ctx context.Context, db *dynamodb.Client, table string) (*State, error) {
	st := &State{Users: map[string]store.User{}, Orders: map[string]store.Order{}, Holds: map[string]store.Hold{}, Records: map[keys.Key]idempotency.Record{}}
	p := dynamodb.NewScanPaginator(db, &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("workload: scan: %w", err)
		}
		for _, item := range page.Items {
			st.Items++
			if err := st.add(item); err != nil {
				return nil, err
			}
		}
	}
	return st, nil
}

func (st *State) add(item map[string]types.AttributeValue) error {
	var et string
	if v, ok := item[schema.EntityType].(*types.AttributeValueMemberS); ok {
		et = v.Value
	}
	var err error
	switch et {
	case store.TypeUser:
		var u store.User
		if err = attributevalue.UnmarshalMap(item, &u); err == nil {
			st.Users[u.UserID] = u
		}
	case store.TypeLedgerEntry:
		var e store.LedgerEntry
		if err = attributevalue.UnmarshalMap(item, &e); err == nil {
			st.Ledger = append(st.Ledger, e)
		}
	case store.TypeOrder:
		var o store.Order
		if err = attributevalue.UnmarshalMap(item, &o); err == nil {
			st.Orders[o.OrderID] = o
		}
	case store.TypePayment:
		var p store.Payment
		if err = attributevalue.UnmarshalMap(item, &p); err == nil {
			st.Payments = append(st.Payments, p)
		}
	case store.TypeHold:
		var h store.Hold
		if err = attributevalue.UnmarshalMap(item, &h); err == nil {
			st.Holds[h.HoldID] = h
		}
	case store.TypeRefund:
		var r store.Refund
		if err = attributevalue.UnmarshalMap(item, &r); err == nil {
			st.Refunds = append(st.Refunds, r)
		}
	case idempotency.EntityType:
		var r idempotency.Record
		if r, err = defaultRecords.Decode(item); err == nil {
			st.Records[keys.Key{PK: r.PK, SK: r.SK}] = r
		}
	}
	if err != nil {
		return fmt.Errorf("workload: decode %s item: %w", et, err)
	}
	return nil
}

// Violation is a broken invariant with the history that led to it.
type Violation struct {
	Invariant string
	Detail    string
	History   []string
	// Window is the fault window of the delivery an event violation is
	// about; "" for the others and for events never delivered.
	Window FaultKind
}

// Invariants, as named in violation reports.
const (
	InvNegativeRead    = "no balance is ever negative at any observed read"
	InvLedgerSum       = "every balance equals the sum of its ledger entries"
	InvAckedOnce       = "every acknowledged request was applied exactly once"
	InvUnackedOnce     = "an unacknowledged request was applied at most once; a refused one not at all"
	InvKeyOnce         = "every idempotency key was applied at most once"
	InvPaidOnce        = "no order is paid twice; every paid order has exactly one settle ledger entry"
	InvReplayIdent     = "replayed responses are byte-identical to the first"
	InvReuseNoEffect   = "a key reused with a different body never applied anything"
	InvConservation    = "money is conserved: credits - debits - settles - captures + refunds = the users' posted money (balances and open holds), and transfers out = transfers in"
	InvDoubleEntry     = "double entry sums to zero: each ledger entry's legs, on its user's account and its kind's platform account, and the platform accounts' totals with the users' balances"
	InvIntruderRefused = "a customer's call on another user's data, or on a route for other roles, is refused (403/404; 400 for another user's order id on create or a forged cursor) and applies nothing"
)

// flowOf maps a keyed operation to its idempotency operation.
var flowOf = map[Op]string{OpCredit: payments.FlowCredit, OpDebit: payments.FlowDebit, OpCreateOrder: payments.FlowCreateOrder,
	OpCharge: payments.FlowCharge, OpSettle: payments.FlowSettle, OpRefund: payments.FlowRefund, OpCancel: payments.FlowCancel,
	OpAuthorize: payments.FlowAuthorize, OpCapture: payments.FlowCapture, OpVoid: payments.FlowVoid, OpTransfer: payments.FlowTransfer}

// orderFlows are the flows whose record belongs to the order they name.
var orderFlows = map[Op]bool{OpCharge: true, OpSettle: true, OpRefund: true, OpCancel: true}

type checker struct {
	h      *History
	st     *State
	out    []Violation
	notes  []Violation
	byUser map[string][]*Intent
	byOrd  map[string][]*Intent
}

func (c *checker) fail(inv, detail string, intents ...*Intent) {
	v := Violation{Invariant: inv, Detail: detail}
	if len(intents) > 40 {
		intents = intents[len(intents)-40:]
	}
	for _, in := range intents {
		v.History = append(v.History, c.h.describe(in)...)
	}
	c.out = append(c.out, v)
}

// Check compares a run's history and observed reads with the final state.
func Check(h *History, reads []balanceRead, st *State) []Violation {
	v, _ := check(h, reads, st)
	return v
}

// check returns the violations and the observations: outcomes the
// invariants allow but a reader should know about.
func check(h *History, reads []balanceRead, st *State) ([]Violation, []Violation) {
	c := &checker{h: h, st: st, byUser: map[string][]*Intent{}, byOrd: map[string][]*Intent{}}
	for _, in := range h.Intents {
		if in.User != "" {
			c.byUser[in.User] = append(c.byUser[in.User], in)
		}
		if in.Order != "" {
			c.byOrd[in.Order] = append(c.byOrd[in.Order], in)
		}
	}
	c.reads(reads)
	c.balances()
	c.orders()
	claims := c.records()
	c.claims(claims)
	c.intents()
	c.intruders()
	c.out = append(c.out, CheckTable(st, true)...)
	return c.out, c.notes
}

func (c *checker) reads(reads []balanceRead) {
	for _, r := range reads {
		if r.balance < 0 {
			in := c.h.Intents[r.intent]
			c.fail(InvNegativeRead, fmt.Sprintf("GET %s read balance %d", in.Path, r.balance), in)
		}
		if r.available < 0 {
			in := c.h.Intents[r.intent]
			c.fail(InvAvailable, fmt.Sprintf("GET %s read available balance %d", in.Path, r.available), in)
		}
	}
	for _, in := range c.h.Intents {
		if in.Status == http.StatusPaymentRequired {
			var p struct{ Available *int64 }
			if json.Unmarshal([]byte(in.RespBody), &p) == nil && p.Available != nil && *p.Available < 0 {
				c.fail(InvNegativeRead, fmt.Sprintf("402 reported available balance %d", *p.Available), in)
				c.fail(InvAvailable, fmt.Sprintf("402 reported available balance %d", *p.Available), in)
			}
		}
	}
}

func (c *checker) balances() {
	sums := map[string]int64{}
	seen := map[string]int{}
	var credits, debits, settles, captures, refunds, out, in, posted, platform int64
	for _, e := range c.st.Ledger {
		sums[e.UserID] += e.Signed()
		platform += c.legs(e)
		seen[e.EntryID]++
		switch e.Kind {
		case store.LedgerCredit:
			credits += e.Amount
		case store.LedgerDebit:
			debits += e.Amount
		case store.LedgerSettle:
			settles += e.Amount
		case store.LedgerCapture:
			captures += e.Amount
		case store.LedgerRefund:
			refunds += e.Amount
		case store.LedgerTransferOut:
			out += e.Amount
		case store.LedgerTransferIn:
			in += e.Amount
		}
		if e.Amount <= 0 {
			c.fail(InvLedgerSum, fmt.Sprintf("ledger entry %s of user %s has amount %d", e.EntryID, e.UserID, e.Amount), c.byUser[e.UserID]...)
		}
	}
	for id, n := range seen {
		if n > 1 {
			c.fail(InvKeyOnce, fmt.Sprintf("ledger entry %s written %d times", id, n))
		}
	}
	for id, u := range c.st.Users {
		mine := u.Balance // posted money: the balance and the holds taken out of it
		for _, h := range u.Holds {
			mine += h.Amount
		}
		posted += mine
		if u.Balance < 0 {
			c.fail(InvNegativeRead, fmt.Sprintf("final balance of user %s is %d", id, u.Balance), c.byUser[id]...)
		}
		if mine != sums[id] {
			c.fail(InvLedgerSum, fmt.Sprintf("user %s: balance %d and holds %d, ledger sums to %d", id, u.Balance, mine-u.Balance, sums[id]), c.byUser[id]...)
		}
	}
	for id := range sums {
		if _, ok := c.st.Users[id]; !ok {
			c.fail(InvLedgerSum, fmt.Sprintf("ledger entries for user %s, who does not exist", id), c.byUser[id]...)
		}
	}
	if platform+posted != 0 {
		c.fail(InvDoubleEntry, fmt.Sprintf("the platform accounts' legs total %d and the users' posted money (balances and open holds) %d: together %d, want 0", platform, posted, platform+posted))
	}
	if net := credits - debits - settles - captures + refunds; net != posted || out != in {
		c.fail(InvConservation, fmt.Sprintf("credits %d - debits %d - settles %d - captures %d + refunds %d = %d, posted money %d; transfers out %d, in %d",
			credits, debits, settles, captures, refunds, net, posted, out, in))
	}
}

// legs checks one entry's double entry and returns its legs' total on the
// platform's accounts.
func (c *checker) legs(e store.LedgerEntry) (platform int64) {
	var counter bool
	for _, l := range e.Posting() {
		if l.Account != store.UserAccount(e.UserID) {
			platform += l.Amount
		}
		counter = counter || l.Account == store.CounterAccount(e.Kind)
	}
	if e.Net() != 0 || !counter {
		c.fail(InvDoubleEntry, fmt.Sprintf("ledger entry %s (%s of %d) of user %s has legs %v: they sum to %d, want 0 with a leg on %s",
			e.EntryID, e.Kind, e.Amount, e.UserID, e.Posting(), e.Net(), store.CounterAccount(e.Kind)), c.byUser[e.UserID]...)
	}
	return platform
}

func (c *checker) orders() {
	settled := map[string][]store.LedgerEntry{}
	for _, e := range c.st.Ledger {
		if e.Kind == store.LedgerSettle {
			settled[e.OrderID] = append(settled[e.OrderID], e)
		}
	}
	for id, o := range c.st.Orders {
		es := settled[id]
		switch {
		case store.WasPaid(o.Status) && len(es) != 1:
			c.fail(InvPaidOnce, fmt.Sprintf("order %s is %s with %d settle ledger entries", id, o.Status, len(es)), c.byOrd[id]...)
		case !store.WasPaid(o.Status) && len(es) != 0:
			c.fail(InvPaidOnce, fmt.Sprintf("order %s is %s but has %d settle ledger entries", id, o.Status, len(es)), c.byOrd[id]...)
		}
		for _, e := range es {
			if e.Amount != o.Total || e.UserID != o.UserID {
				c.fail(InvPaidOnce, fmt.Sprintf("order %s (user %s, total %d) settled by entry %s of user %s for %d",
					id, o.UserID, o.Total, e.EntryID, e.UserID, e.Amount), c.byOrd[id]...)
			}
		}
	}
	for id := range settled {
		if _, ok := c.st.Orders[id]; !ok {
			c.fail(InvPaidOnce, fmt.Sprintf("settle ledger entry for order %s, which does not exist", id), c.byOrd[id]...)
		}
	}
	pays := map[string]int{}
	for _, p := range c.st.Payments {
		pays[p.OrderID]++
		if o, ok := c.st.Orders[p.OrderID]; !ok || o.PaymentID != p.PaymentID || p.Amount != o.Total {
			c.fail(InvKeyOnce, fmt.Sprintf("payment %s of order %s (amount %d) is not the order's payment (order: %+v)", p.PaymentID, p.OrderID, p.Amount, o), c.byOrd[p.OrderID]...)
		}
	}
	for id, n := range pays {
		if n > 1 {
			c.fail(InvKeyOnce, fmt.Sprintf("order %s has %d payments", id, n), c.byOrd[id]...)
		}
	}
}

// claim names an effect: "ledger:<entryId>", "order:<id>", "payment:<id>",
// "settle:<orderId>".
type claim = string

// records checks what every idempotency record says it did, and returns how
// many records claim each effect.
func (c *checker) records() map[claim][]keys.Key {
	claims := map[claim][]keys.Key{}
	ledger := map[string]store.LedgerEntry{}
	for _, e := range c.st.Ledger {
		ledger[e.EntryID] = e
	}
	pays := map[string]store.Payment{}
	for _, p := range c.st.Payments {
		pays[p.PaymentID] = p
	}
	owners := c.owners()
	for k, r := range c.st.Records {
		owner := owners[k]
		bad := func(format string, a ...any) {
			c.fail(InvKeyOnce, fmt.Sprintf("record %s/%s (%s, status %d): ", k.PK, k.SK, r.Operation, r.Status)+fmt.Sprintf(format, a...))
		}
		if r.Status < 200 || r.Status > 299 {
			// A declined money flow stores its problem (402, 409, 422) and
			// claims no effect; any other failure must not be stored.
			if !storedDecline(r.Status, r.Body) {
				bad("stores a non-success response %s", r.Body)
			}
			continue
		}
		var b struct {
			EntryID, OrderID, PaymentID, UserID  string
			HoldID, RefundID, TransferID, Status string
			FromUserID, ToUserID                 string
			Amount, Captured                     int64
		}
		if err := json.Unmarshal([]byte(r.Body), &b); err != nil {
			bad("body is not JSON: %v", err)
			continue
		}
		switch r.Operation {
		case "credit", "debit":
			id, kind := b.EntryID, store.LedgerCredit
			if r.Operation == "debit" {
				kind = store.LedgerDebit
			}
			e, ok := ledger[id]
			if !ok || e.Kind != kind || e.Amount != b.Amount || "USER#"+e.UserID != owner {
				bad("claims ledger entry %q for %d, found %+v", id, b.Amount, e)
				continue
			}
			claims["ledger:"+id] = append(claims["ledger:"+id], k)
		case "create_order":
			if o, ok := c.st.Orders[b.OrderID]; !ok || "USER#"+o.UserID != owner {
				bad("claims order %q, found %+v", b.OrderID, o)
				continue
			}
			claims["order:"+b.OrderID] = append(claims["order:"+b.OrderID], k)
		case "charge":
			if p, ok := pays[b.PaymentID]; !ok || "ORDER#"+p.OrderID != owner || p.Amount != b.Amount {
				bad("claims payment %q, found %+v", b.PaymentID, p)
				continue
			}
			claims["payment:"+b.PaymentID] = append(claims["payment:"+b.PaymentID], k)
		case "settle":
			if o, ok := c.st.Orders[b.OrderID]; !ok || !store.WasPaid(o.Status) || "ORDER#"+o.OrderID != owner {
				bad("claims to have paid order %q, found %+v", b.OrderID, o)
				continue
			}
			claims["settle:"+b.OrderID] = append(claims["settle:"+b.OrderID], k)
		case payments.FlowRefund, payments.FlowCancel, payments.FlowAuthorize, payments.FlowCapture, payments.FlowVoid, payments.FlowTransfer:
			cl, err := c.moneyBackClaim(r.Operation, owner, ledger, moneyBackBody{EntryID: b.EntryID, OrderID: b.OrderID, UserID: b.UserID,
				HoldID: b.HoldID, RefundID: b.RefundID, TransferID: b.TransferID, Status: b.Status, FromUserID: b.FromUserID,
				ToUserID: b.ToUserID, Amount: b.Amount, Captured: b.Captured})
			if err != nil {
				bad("%v", err)
				continue
			}
			claims[cl] = append(claims[cl], k)
		default:
			bad("unknown operation")
		}
	}
	return claims
}

// claims checks that every effect in the table is claimed by exactly one
// record: an effect without a record was applied outside idempotency, an
// effect with two was applied for two keys.
func (c *checker) claims(claims map[claim][]keys.Key) {
	check := func(cl claim, user, order string) {
		ks := claims[cl]
		if len(ks) == 1 {
			return
		}
		var related []*Intent
		related = append(related, c.byUser[user]...)
		related = append(related, c.byOrd[order]...)
		c.fail(InvKeyOnce, fmt.Sprintf("effect %s is claimed by %d idempotency records %v", cl, len(ks), ks), related...)
	}
	for _, e := range c.st.Ledger {
		switch e.Kind {
		case store.LedgerSettle:
			check("settle:"+e.OrderID, e.UserID, e.OrderID)
		case store.LedgerRefund:
			check("refund:"+e.RefundID, e.UserID, e.OrderID)
		case store.LedgerCapture:
			check("capture:"+e.HoldID, e.UserID, "")
		case store.LedgerTransferOut, store.LedgerTransferIn:
			check("transfer:"+e.TransferID, e.UserID, "")
		default:
			check("ledger:"+e.EntryID, e.UserID, "")
		}
	}
	for _, r := range c.st.Refunds {
		check("refund:"+r.RefundID, r.UserID, r.OrderID)
	}
	for id, h := range c.st.Holds {
		check("hold:"+id, h.UserID, "")
		switch h.Status {
		case store.HoldCaptured:
			check("capture:"+id, h.UserID, "")
		case store.HoldVoided:
			check("void:"+id, h.UserID, "")
		}
	}
	for id, o := range c.st.Orders {
		check("order:"+id, o.UserID, id)
		if o.Status == store.OrderCancelled {
			check("cancel:"+id, o.UserID, id)
		}
	}
	for _, p := range c.st.Payments {
		check("payment:"+p.PaymentID, "", p.OrderID)
	}
}

// owners maps each record's key to the partition of the entity its intent
// acted on (the user, or the order for charge and settle): records live in
// partitions of their own, so what a record claims is checked against the
// entity its requests named.
func (c *checker) owners() map[keys.Key]string {
	owners := map[keys.Key]string{}
	for _, in := range c.h.Intents {
		k, ok := recordKey(in)
		if !ok {
			continue
		}
		owners[k] = "USER#" + in.User
		if orderFlows[in.Op] {
			owners[k] = "ORDER#" + in.Order
		}
	}
	return owners
}

// recordKey is where the record of an intent's key lives.
func recordKey(in *Intent) (keys.Key, bool) {
	flow, ok := flowOf[in.Op]
	if !ok || in.Key == "" {
		return keys.Key{}, false
	}
	caller := "iam:arn:aws:iam::" + localrun.LocalAccountID + ":user/" + in.Caller
	if in.Scopes != "" {
		caller = "jwt:" + localrun.LocalIssuer + "|" + in.Caller // the local runner's JWT (X-Local-Scopes)
	}
	scope := idempotency.Scope{Caller: caller, Operation: flow}
	k := keys.IdemPrefix + scope.Hash(in.Key) // a partition of its own (runtime/idempotency)
	return keys.Key{PK: k, SK: k}, true
}

func fingerprint(in *Intent) string {
	fp, _ := idempotency.Fingerprint(in.Method, in.Path, []byte(in.Body))
	return fp
}

// intents checks each request against the record of its key.
func (c *checker) intents() {
	sent := map[keys.Key][]*Intent{}
	for _, in := range c.h.Intents {
		if in.Op == OpCreateUser && in.Acked() {
			if _, ok := c.st.Users[in.User]; !ok {
				c.fail(InvAckedOnce, fmt.Sprintf("user %s was created (201) but does not exist", in.User), in)
			}
		}
		k, ok := recordKey(in)
		if !ok {
			continue
		}
		sent[k] = append(sent[k], in)
		rec, exists := c.st.Records[k]
		// A stored decline is the answer of a request that ran and was
		// refused: it applied nothing, and every answer under the key is it.
		declined := exists && storedDecline(rec.Status, rec.Body)
		if declined {
			exists = false
		}
		fp := fingerprint(in)
		for _, i := range in.Attempts {
			a := c.h.Attempts[i]
			if declined && in.Kind != KindReuse && a.Status == rec.Status && strings.TrimSuffix(a.Body, "\n") != string(rec.Body) {
				c.fail(InvReplayIdent, fmt.Sprintf("attempt #%d answered %d %s; the stored decline is %s", a.Seq, a.Status, a.Body, rec.Body), originAnd(c.h, in)...)
			}
			if declined && a.Status >= 200 && a.Status <= 299 {
				c.fail(InvKeyOnce, fmt.Sprintf("attempt #%d got %d, yet key %q stores a decline", a.Seq, a.Status, in.Key), originAnd(c.h, in)...)
			}
			if a.Status < 200 || a.Status > 299 {
				continue
			}
			switch {
			case in.Kind == KindReuse:
				c.fail(InvReuseNoEffect, fmt.Sprintf("attempt #%d of a reused key with a different body got %d", a.Seq, a.Status), c.h.Intents[in.Origin], in)
			case !exists:
				c.fail(InvAckedOnce, fmt.Sprintf("attempt #%d got %d but key %q has no idempotency record (not applied)", a.Seq, a.Status, in.Key), in)
			case strings.TrimSuffix(a.Body, "\n") != string(rec.Body) || a.Status != rec.Status: // the HTTP layer ends JSON bodies with a newline
				c.fail(InvReplayIdent, fmt.Sprintf("attempt #%d answered %d %s; the first (stored) response is %d %s", a.Seq, a.Status, a.Body, rec.Status, rec.Body), originAnd(c.h, in)...)
			case in.Kind == KindResubmit && !a.Replayed:
				c.fail(InvReplayIdent, fmt.Sprintf("attempt #%d resent an acknowledged key and was not marked Idempotent-Replayed", a.Seq), originAnd(c.h, in)...)
			}
		}
		switch in.Kind {
		case KindNew:
			if (exists || declined) && rec.Fingerprint != fp {
				c.fail(InvKeyOnce, fmt.Sprintf("key %q's record has fingerprint %s, the request %s", in.Key, rec.Fingerprint, fp), in)
			}
			if in.Status >= 400 && exists {
				detail := fmt.Sprintf("request answered %d %s, yet key %q has a record: it was applied", in.Status, in.RespBody, in.Key)
				if in.Status == http.StatusConflict {
					// 409 says the order was already paid (or charged). Its own
					// key's record is the one that did it: the request saw the
					// effect but not the record, and answered a refusal where
					// the stored response was due.
					c.fail(InvReplayIdent, detail+"; the order was paid (or charged) by this very key, whose stored response was due", in)
				} else if c.earlierAmbiguous(in) {
					// An earlier attempt was still in flight when the refusal was
					// computed and committed afterwards: applied once, which the
					// invariants allow for a request never acknowledged. It is the
					// price of having no in-progress state; counted, not a violation.
					c.observe(detail, in)
				} else {
					c.fail(InvUnackedOnce, detail, in)
				}
			}
			if in.Acked() && in.Op == OpCreateOrder {
				if _, ok := c.st.Orders[in.Order]; !ok {
					c.fail(InvAckedOnce, fmt.Sprintf("order %s acknowledged but missing", in.Order), in)
				}
			}
		case KindResubmit:
			if in.Status != 0 && !in.Acked() {
				c.fail(InvReplayIdent, fmt.Sprintf("an acknowledged key sent again got %d %s instead of the stored response", in.Status, in.RespBody), originAnd(c.h, in)...)
			}
		case KindIntrude:
			if exists {
				c.fail(InvIntruderRefused, fmt.Sprintf("the intruder's key %q has a record: the request was applied", in.Key), in)
			}
		case KindReuse:
			if in.Status != 0 && in.Status != http.StatusUnprocessableEntity {
				c.fail(InvReuseNoEffect, fmt.Sprintf("a key reused with a different body got %d %s, want 422", in.Status, in.RespBody), originAnd(c.h, in)...)
			}
			if exists && rec.Fingerprint == fp {
				c.fail(InvReuseNoEffect, fmt.Sprintf("key %q's record holds the fingerprint of the reused body", in.Key), originAnd(c.h, in)...)
			}
		}
	}
	var unknown []string
	for k := range c.st.Records {
		if _, ok := sent[k]; !ok {
			unknown = append(unknown, k.PK+"/"+k.SK)
		}
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		c.fail(InvKeyOnce, "idempotency record "+k+" belongs to no key the clients sent")
	}
}

// intruders checks every answer to a hostile customer: a refusal, 403 or
// 404, or no definitive answer (a 5xx under faults, retried).
func (c *checker) intruders() {
	for _, in := range c.h.Intents {
		if in.Kind != KindIntrude {
			continue
		}
		for _, i := range in.Attempts {
			a := c.h.Attempts[i]
			refused := a.Status == http.StatusForbidden || a.Status == http.StatusNotFound
			if in.Refusal != 0 {
				refused = a.Status == in.Refusal
			}
			if a.Status != 0 && !ambiguous(a.Status) && !refused {
				c.fail(InvIntruderRefused, fmt.Sprintf("attempt #%d by customer %s got %d %s", a.Seq, in.Caller, a.Status, a.Body), in)
			}
		}
	}
}

// earlierAmbiguous reports whether an attempt before the last one ended
// without a definitive answer (and so may have committed later).
func (c *checker) earlierAmbiguous(in *Intent) bool {
	for _, i := range in.Attempts[:max(0, len(in.Attempts)-1)] {
		a := c.h.Attempts[i]
		if a.Err != ErrNone || ambiguous(a.Status) {
			return true
		}
	}
	return false
}

func (c *checker) observe(detail string, in *Intent) {
	c.notes = append(c.notes, Violation{Invariant: "refused, then applied by an earlier attempt still in flight", Detail: detail, History: c.h.describe(in)})
}

func originAnd(h *History, in *Intent) []*Intent {
	if in.Origin >= 0 {
		return []*Intent{h.Intents[in.Origin], in}
	}
	return []*Intent{in}
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

// storedDecline reports whether a stored non-success response is the
// problem of a declined money flow, which the API stores under its key.
func storedDecline(status int, body []byte) bool {
	var p struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(body, &p) != nil {
		return false
	}
	for _, pt := range httpapi.ProblemTypes() {
		if pt.Type == p.Type {
			return pt.Stored && pt.Status == status
		}
	}
	return false
}
