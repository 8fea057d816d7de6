package verify

import (
	"fmt"
	"sort"
	"time"

	"github.com/oncetable/oncetable/runtime/keys"

	"github.com/oncetable/oncetable/runtime/store"
)

// group is the facts of one user or one order.
type group struct {
	id    string
	facts []fact
}

func (g *group) of(k factKind) []fact {
	var out []fact
	for _, f := range g.facts {
		if f.Kind == k {
			out = append(out, f)
		}
	}
	return out
}

func (g *group) one(k factKind) *fact {
	for i := range g.facts {
		if g.facts[i].Kind == k {
			return &g.facts[i]
		}
	}
	return nil
}

func keysOf(fs ...fact) []Key {
	out := make([]Key, 0, min(len(fs), MaxKeys))
	for _, f := range fs[:min(len(fs), MaxKeys)] {
		out = append(out, keyOf(f.Key))
	}
	return out
}

// checkUser checks one user's balance against the user's ledger, and the
// ledger entries the user's credit and debit records claim.
func checkUser(g *group, expiry time.Duration, report func(Violation)) {
	profile, entries := g.one(fUser), g.of(fLedger)
	var sum int64
	byID := map[string]fact{}
	for _, e := range entries {
		byID[e.Ref] = e
		if e.Amount <= 0 {
			report(Violation{Kind: InvalidLedgerEntry, UserID: g.id, Keys: keysOf(e),
				Detail: fmt.Sprintf("ledger entry %s (%s) of user %s has amount %d; amounts are positive", e.Ref, e.Status, g.id, e.Amount)})
		}
		sum += store.KindSign(e.Status)*e.Amount + e.Off
		checkLegs(g.id, e, report)
	}
	switch {
	case profile == nil && len(entries) > 0:
		report(Violation{Kind: LedgerWithoutUser, UserID: g.id, Keys: keysOf(entries...),
			Detail: fmt.Sprintf("%d ledger entries (net %d) of user %s, who has no profile", len(entries), sum, g.id)})
	case profile != nil:
		if profile.Amount != sum {
			report(Violation{Kind: BalanceMismatch, UserID: g.id, Keys: keysOf(*profile),
				Transaction: "a credit, debit or settle of user " + g.id,
				Detail:      fmt.Sprintf("user %s: balance %d, the legs on %s sum to %d over %d entries (off by %d)", g.id, profile.Amount, store.UserAccount(g.id), sum, len(entries), profile.Amount-sum)})
		}
		if profile.Spent < 0 {
			report(Violation{Kind: NegativeBalance, UserID: g.id, Keys: keysOf(*profile),
				Detail: fmt.Sprintf("user %s: balance %d", g.id, profile.Spent)})
		}
	}
	duplicates(g.id, entries, expiry, report)
	for _, l := range g.of(fLate) {
		report(Violation{Kind: LateWrite, UserID: g.id, Keys: keysOf(l), Transaction: "the entry " + l.Ref + " of user " + g.id, Detail: l.Status})
	}
	for _, c := range g.of(fClaimLedger) {
		e, ok := byID[c.Ref]
		if ok && e.Status == c.Status && e.Amount == c.Amount {
			continue
		}
		found := "absent"
		if ok {
			found = fmt.Sprintf("a %s of %d", e.Status, e.Amount)
		}
		report(Violation{Kind: RecordWithoutEffect, UserID: g.id, Keys: keysOf(c),
			Transaction: fmt.Sprintf("%s %s of user %s", c.Status, c.Ref, g.id),
			Detail:      fmt.Sprintf("idempotency record of the %s %s for %d: its ledger entry is %s", c.Status, c.Ref, c.Amount, found)})
	}
}

// checkOrder checks one order with its payments, settle entries, summary
// and the records that claim them.
func checkOrder(g *group, recent func(string) bool, report func(Violation)) {
	o := g.one(fOrder)
	if o == nil {
		orphans(g, report)
		return
	}
	paid := store.WasPaid(o.Status)
	v := func(k Kind, txn, format string, a ...any) Violation {
		return Violation{Kind: k, UserID: o.User, OrderID: g.id, Transaction: txn, Detail: fmt.Sprintf(format, a...)}
	}
	settleTxn, chargeTxn := "settle of order "+g.id, "charge of order "+g.id
	havePayment := false
	for _, p := range g.of(fPayment) {
		switch {
		case p.Ref != o.Ref:
			x := v(PaymentWithoutOrder, chargeTxn+" (payment "+p.Ref+")", "payment %s of order %s is not the order's payment (the order has %q)", p.Ref, g.id, o.Ref)
			x.Keys = keysOf(p, *o)
			report(x)
		case p.Amount != o.Amount:
			havePayment = true
			x := v(PaymentMismatch, chargeTxn, "payment %s of order %s is for %d, the order totals %d", p.Ref, g.id, p.Amount, o.Amount)
			x.Keys = keysOf(p, *o)
			report(x)
		default:
			havePayment = true
		}
	}
	// A settle now requires the charge, but orders settled before it did
	// name no payment: a paid order without paymentId has none to lack.
	if paid && o.Ref != "" && !havePayment {
		x := v(PaidWithoutPayment, chargeTxn+" (payment "+o.Ref+")", "order %s is paid but its payment %s does not exist", g.id, o.Ref)
		x.Keys = keysOf(*o)
		report(x)
	}
	settles := g.of(fSettle)
	switch {
	case paid && len(settles) == 0:
		x := v(PaidWithoutSettle, settleTxn, "order %s of user %s is paid (total %d) but has no settle ledger entry", g.id, o.User, o.Amount)
		x.Keys = keysOf(*o)
		report(x)
	case paid && len(settles) > 1:
		x := v(SettleMismatch, settleTxn, "order %s is paid by %d settle ledger entries", g.id, len(settles))
		x.Keys = keysOf(append([]fact{*o}, settles...)...)
		report(x)
	case paid && (settles[0].Amount != o.Amount || settles[0].User != o.User):
		s := settles[0]
		x := v(SettleMismatch, settleTxn, "order %s (user %s, total %d) is settled by entry %s of user %s for %d", g.id, o.User, o.Amount, s.Ref, s.User, s.Amount)
		x.Keys = keysOf(*o, s)
		report(x)
	case !paid:
		for _, s := range settles {
			x := v(SettleWithoutPaidOrder, settleTxn+" (entry "+s.Ref+")", "settle entry %s of user %s for %d, but order %s is %s", s.Ref, s.User, s.Amount, g.id, o.Status)
			x.Keys = keysOf(s, *o)
			report(x)
		}
	}
	summaries := g.of(fSummary)
	if len(summaries) == 0 {
		x := v(OrderWithoutSummary, "create_order of order "+g.id, "order %s (%s) has no summary in the partition of user %s", g.id, o.Status, o.User)
		x.Keys = keysOf(*o)
		report(x)
	}
	for _, s := range summaries {
		if s.Status != o.Status || s.User != o.User || s.Amount != o.Amount {
			x := v(SummaryMismatch, settleTxn, "order %s is %s for %d (user %s), its summary %s for %d (user %s)", g.id, o.Status, o.Amount, o.User, s.Status, s.Amount, s.User)
			if s.User != o.User || s.Amount != o.Amount {
				x.Transaction = "create_order of order " + g.id
			}
			x.Keys = keysOf(*o, s)
			report(x)
		}
	}
	claims(g, o, report)
	unclaimedOrder(g, o, recent, report)
}

// checkLegs checks one ledger entry's double entry: a leg on the user's
// account and one on its kind's counter-account, summing to zero.
func checkLegs(user string, e fact, report func(Violation)) {
	txn := fmt.Sprintf("%s %s of user %s", e.Status, e.Ref, user)
	if e.Missing != "" {
		report(Violation{Kind: MissingLeg, UserID: user, Keys: keysOf(e), Transaction: txn,
			Detail: fmt.Sprintf("ledger entry %s (%s of %d) of user %s has no leg on %s; want one on %s and one on %s",
				e.Ref, e.Status, e.Amount, user, e.Missing, store.UserAccount(user), store.CounterAccount(e.Status))})
	}
	if e.Net != 0 {
		report(Violation{Kind: UnbalancedEntry, UserID: user, Keys: keysOf(e), Transaction: txn,
			Detail: fmt.Sprintf("the legs of ledger entry %s (%s of %d) of user %s sum to %d; want 0", e.Ref, e.Status, e.Amount, user, e.Net)})
	}
}

// unclaimedOrder reports the recent effects of an order that no record
// claims: its creation, its payments, its settle.
func unclaimedOrder(g *group, o *fact, recent func(string) bool, report func(Violation)) {
	if recent(o.At) && g.one(fClaimOrder) == nil {
		report(unclaimed(*o, "create_order of order "+g.id, o.User, g.id))
	}
	charged := map[string]bool{}
	for _, c := range g.of(fClaimPayment) {
		charged[c.Ref] = true
	}
	for _, p := range g.of(fPayment) {
		if recent(p.At) && !charged[p.Ref] {
			report(unclaimed(p, "charge of order "+g.id+" (payment "+p.Ref+")", o.User, g.id))
		}
	}
	if store.WasPaid(o.Status) && recent(o.PaidAt) && g.one(fClaimSettle) == nil {
		f := *o
		f.At = o.PaidAt
		report(unclaimed(f, "settle of order "+g.id, o.User, g.id))
	}
}

// unclaimed is an effect without the idempotency record that must still
// hold it.
func unclaimed(f fact, txn, user, order string) Violation {
	return Violation{Kind: EffectWithoutRecord, UserID: user, OrderID: order, Transaction: txn, Keys: keysOf(f),
		Detail: fmt.Sprintf("the %s (at %s) has no idempotency record, which must outlive it: a retry of its request would apply it again", txn, f.At)}
}

// claims checks the records of the order's partition (charge, settle) and
// of its user's (create_order) against the order.
func claims(g *group, o *fact, report func(Violation)) {
	pays := map[string]fact{}
	for _, p := range g.of(fPayment) {
		pays[p.Ref] = p
	}
	missing := func(c fact, txn, format string, a ...any) {
		report(Violation{Kind: RecordWithoutEffect, UserID: c.User, OrderID: g.id, Transaction: txn, Keys: keysOf(c), Detail: fmt.Sprintf(format, a...)})
	}
	for _, c := range g.facts {
		switch c.Kind {
		case fClaimOrder:
			if o == nil || o.User != c.User {
				missing(c, "create_order of order "+g.id, "idempotency record of user %s claims order %s, which does not exist (for that user)", c.User, g.id)
			}
		case fClaimPayment:
			if p, ok := pays[c.Ref]; !ok || p.Amount != c.Amount {
				missing(c, "charge of order "+g.id+" (payment "+c.Ref+")", "idempotency record claims payment %s of order %s for %d, which does not exist", c.Ref, g.id, c.Amount)
			}
		case fClaimSettle:
			if o == nil || !store.WasPaid(o.Status) {
				status := "absent"
				if o != nil {
					status = o.Status
				}
				missing(c, "settle of order "+g.id, "idempotency record claims order %s was paid; the order is %s", g.id, status)
			}
		}
	}
}

// orphans reports what refers to an order that does not exist.
func orphans(g *group, report func(Violation)) {
	for _, f := range g.facts {
		x := Violation{UserID: f.User, OrderID: g.id, Keys: keysOf(f)}
		switch f.Kind {
		case fPayment:
			x.Kind, x.Transaction = PaymentWithoutOrder, "charge of order "+g.id+" (payment "+f.Ref+")"
			x.Detail = fmt.Sprintf("payment %s for %d of order %s, which does not exist", f.Ref, f.Amount, g.id)
		case fSettle:
			x.Kind, x.Transaction = SettleWithoutPaidOrder, "settle of order "+g.id+" (entry "+f.Ref+")"
			x.Detail = fmt.Sprintf("settle entry %s of user %s for %d, but order %s does not exist", f.Ref, f.User, f.Amount, g.id)
		case fSummary:
			x.Kind, x.Transaction = SummaryMismatch, "create_order of order "+g.id
			x.Detail = fmt.Sprintf("summary of order %s (%s, %d) in the partition of user %s, but the order does not exist", g.id, f.Status, f.Amount, f.User)
		default:
			continue
		}
		report(x)
	}
	claims(g, nil, report)
}

// checkGroup runs the checks of g's kind, and reports its malformed items.
func checkGroup(kind byte, g *group, recent func(string) bool, expiry time.Duration, report func(Violation)) {
	for _, f := range g.of(fMalformed) {
		report(Violation{Kind: MalformedItem, Keys: keysOf(f), Detail: f.Status})
	}
	for _, f := range g.of(fBadID) {
		report(Violation{Kind: NonCanonicalID, Keys: keysOf(f), Detail: f.Status + "; the API refuses this id, so the item cannot be named through it"})
	}
	switch kind {
	case groupUser:
		checkUser(g, expiry, report)
	case groupEntry:
		checkEntry(g, recent, report)
	case groupTransfer:
		checkTransfer(g, report)
	default:
		checkOrder(g, recent, report)
	}
}

// checkEntry checks the credit and debit records that claim one ledger
// entry (by its id, unique across users) against that entry.
func checkEntry(g *group, recent func(string) bool, report func(Violation)) {
	entries := g.of(fLedger)
	for _, e := range entries {
		if e.Status != store.LedgerSettle && recent(e.At) && g.one(fHasRecord) == nil {
			report(unclaimed(e, e.Status+" "+e.Ref+" of user "+e.User, e.User, ""))
		}
	}
	for _, c := range g.of(fClaimLedger) {
		found, user := "absent", ""
		for _, e := range entries {
			if e.Status == c.Status && e.Amount == c.Amount {
				found = ""
				break
			}
			found, user = fmt.Sprintf("a %s of %d", e.Status, e.Amount), e.User
		}
		if found == "" {
			continue
		}
		report(Violation{Kind: RecordWithoutEffect, UserID: user, Keys: keysOf(c),
			Transaction: fmt.Sprintf("%s %s", c.Status, c.Ref),
			Detail:      fmt.Sprintf("idempotency record of the %s %s for %d: its ledger entry is %s", c.Status, c.Ref, c.Amount, found)})
	}
}

// checkTransfer checks that a transfer's legs on the platform's transfers
// clearing account net to zero: exactly one transfer_out and one
// transfer_in, of one amount, between two users.
func checkTransfer(g *group, report func(Violation)) {
	legs := g.of(fTransferLeg)
	var out, in []fact
	for _, l := range legs {
		if l.Status == store.LedgerTransferOut {
			out = append(out, l)
		} else {
			in = append(in, l)
		}
	}
	if len(out) == 1 && len(in) == 1 && out[0].Amount == in[0].Amount && out[0].User != in[0].User {
		return
	}
	var net int64
	users := make([]string, 0, len(legs))
	for _, l := range legs {
		net += store.KindSign(l.Status) * l.Amount
		users = append(users, l.User)
	}
	report(Violation{Kind: TransferUnbalanced, UserID: legs[0].User, Keys: keysOf(legs...),
		Transaction: "transfer " + g.id,
		Detail: fmt.Sprintf("transfer %s has %d transfer_out and %d transfer_in entries (users %v) netting %d on %s; want one of each, of one amount, between two users",
			g.id, len(out), len(in), users, net, store.AccountTransfers)})
}

// duplicates reports the ledger entries of one user that one request made
// twice: ids of one origin (keys.IDOrigin: the prefix and the bits derived
// from caller, operation and key) whose times are less than expiry apart,
// so that the first's idempotency record still stood when the second was
// made. One Region cannot do that (the record refuses it); two Regions
// that both applied the request can. An entry's id made again after its
// record expired is a new request under an old key, not a duplicate; with
// a negative expiry every two entries of one origin are reported.
func duplicates(user string, entries []fact, expiry time.Duration, report func(Violation)) {
	type made struct {
		f  fact
		at time.Time
	}
	byOrigin := map[string][]made{}
	for _, e := range entries {
		origin, err := keys.IDOrigin(e.Ref)
		if err != nil {
			continue
		}
		at, _ := keys.IDTime(e.Ref)
		byOrigin[origin] = append(byOrigin[origin], made{e, at})
	}
	origins := make([]string, 0, len(byOrigin))
	for o, ms := range byOrigin {
		if len(ms) > 1 {
			origins = append(origins, o)
		}
	}
	sort.Strings(origins)
	for _, o := range origins {
		ms := byOrigin[o]
		sort.Slice(ms, func(i, j int) bool { return ms[i].f.Ref < ms[j].f.Ref })
		for i := 1; i < len(ms); i++ {
			first, again := ms[i-1], ms[i]
			if expiry >= 0 && again.at.Sub(first.at) >= expiry {
				continue
			}
			report(Violation{Kind: DuplicateEffect, UserID: user, Keys: keysOf(first.f, again.f),
				Transaction: fmt.Sprintf("%s %s of user %s", again.f.Status, again.f.Ref, user),
				Detail: fmt.Sprintf("user %s: the %s %s for %d and the %s %s for %d come from one request (caller, operation, key), %s apart: it was applied twice (in two Regions); refund %d",
					user, first.f.Status, first.f.Ref, first.f.Amount, again.f.Status, again.f.Ref, again.f.Amount, again.at.Sub(first.at), again.f.Amount)})
		}
	}
}
