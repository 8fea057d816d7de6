package verify

import (
	"encoding/json"
	"fmt"
	"github.com/oncetable/oncetable/runtime/home"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/payments"
	"github.com/oncetable/oncetable/runtime/store"
)

// factKind is what a fact says about its user or order.
type factKind uint8

const (
	fUser         factKind = iota + 1 // a profile: Amount is the posted money (balance and open holds), Spent the balance
	fLedger                           // a ledger entry: Ref its id, Status its kind, Amount as stored
	fSettle                           // a settle entry, in its order's group: User, Ref, Amount
	fSummary                          // an order summary: User, Status, Amount the total
	fOrder                            // an order: User, Status, Amount the total, Ref its paymentId
	fPayment                          // a payment: Ref its id, Amount
	fClaimLedger                      // a credit or debit record: Ref the entry, Status the kind, Amount
	fClaimOrder                       // a create_order record: User
	fClaimPayment                     // a charge record: Ref the payment, Amount
	fClaimSettle                      // a settle record
	fMalformed                        // an item that does not decode: Status the error
	fHasRecord                        // a credit or debit record, in its entry's group, whatever its layout
	fBadID                            // an id in a key that the API would refuse: Status the reason
	fTransferLeg                      // a transfer's ledger entry, in its transfer's group: Status the kind, User, Amount
	fLate                             // a late write's quarantine item (runtime/home): Ref the entry, Status what it says, Amount
)

// Join groups: a fact is checked with the other facts of its user or of
// its order.
const (
	groupUser  = 'U'
	groupOrder = 'O'
	// groupEntry joins a credit or debit record, which lives in a partition
	// of its own (runtime/idempotency), with the ledger entry it claims.
	groupEntry = 'L'
	// groupTransfer joins the two legs of a transfer by its id.
	groupTransfer = 'T'
)

// fact is the little the checks need of one item, keyed by its group.
type fact struct {
	Group  byte
	ID     string // the user or order id
	Kind   factKind
	Key    keys.Key // of the item
	Ref    string
	Status string
	User   string
	Amount int64
	// Spent is a profile's stored balance, open holds excluded.
	Spent int64
	// At is the item's createdAt and PaidAt an order's paidAt, in
	// keys.Timestamp's sortable form.
	At, PaidAt string
	// A ledger entry's double entry: Net is the sum of its legs, Off how
	// far its legs on the user's account are from what its kind and amount
	// say, Missing the accounts it lacks a leg on. All are zero for a
	// balanced entry, so facts kept before entries had legs read alike.
	Net, Off int64
	Missing  string
	// Other is a transfer leg's counterparty, whose partition holds the
	// other leg.
	Other string
}

func (f fact) groupKey() string { return string(f.Group) + f.ID }

// counts are the items of each entity a scan saw.
type counts struct {
	Items, Users, LedgerEntries, Orders, Summaries, Payments, Records, Other int64
	// Platform sums the platform legs of totalled entries and the stored
	// totals; Untotalled counts the entries the totaller has not reached.
	Platform   platformSums
	Untotalled int64
	// Newest is the latest creation of a record of a success: the table's
	// present, as far as its records tell.
	Newest time.Time
}

func (c *counts) newest(at string) {
	if t, err := time.Parse(time.RFC3339Nano, at); err == nil && t.After(c.Newest) {
		c.Newest = t
	}
}

func (c *counts) add(o counts) {
	c.Items += o.Items
	c.Users += o.Users
	c.LedgerEntries += o.LedgerEntries
	c.Orders += o.Orders
	c.Summaries += o.Summaries
	c.Payments += o.Payments
	c.Records += o.Records
	c.Other += o.Other
	c.Untotalled += o.Untotalled
	c.Platform = c.Platform.merge(o.Platform)
	if o.Newest.After(c.Newest) {
		c.Newest = o.Newest
	}
}

// reader turns items into facts under a table's schema and key layout.
type reader struct {
	items  store.Builder
	layout keys.Layout
	back   map[string]string // the schema's attribute names -> Default's
}

func newReader(items store.Builder, layout keys.Layout) *reader {
	back := map[string]string{}
	for from, to := range items.Schema.Renames() {
		back[to] = from
	}
	return &reader{items: items, layout: layout.WithDefaults(), back: back}
}

// facts appends the facts of item to out and counts it in c.
func (r *reader) facts(item map[string]types.AttributeValue, c *counts, out []fact) []fact {
	c.Items++
	k := r.key(item)
	et, _ := item[r.items.Schema.EntityType].(*types.AttributeValueMemberS)
	if et == nil {
		c.Other++
		return out
	}
	var err error
	switch et.Value {
	case store.TypeUser:
		c.Users++
		out, err = r.user(item, k, out)
	case store.TypeLedgerEntry:
		c.LedgerEntries++
		out, err = r.ledger(item, k, out)
		if err == nil {
			err = r.totalled(item, c)
		}
	case store.TypePlatformTotal:
		c.Other++
		c.Platform = c.Platform.stored(item)
	case store.TypeOrder:
		c.Orders++
		out, err = r.order(item, k, out)
	case store.TypeUserOrder:
		c.Summaries++
		out, err = r.summary(item, k, out)
	case store.TypePayment:
		c.Payments++
		out, err = r.payment(item, k, out)
	case idempotency.EntityType:
		c.Records++
		out, err = r.record(item, k, c, out)
	case home.LateWriteType:
		c.Other++
		out = r.late(item, k, out)
	default:
		c.Other++
	}
	if f, bad := r.badID(et.Value, k); bad {
		out = append(out, f)
	}
	if err != nil {
		id, g := strings.TrimPrefix(k.PK, r.layout.UserPrefix), byte(groupUser)
		if strings.HasPrefix(k.PK, r.layout.OrderPrefix) {
			id, g = strings.TrimPrefix(k.PK, r.layout.OrderPrefix), groupOrder
		}
		out = append(out, fact{Group: g, ID: id, Kind: fMalformed, Key: k, Status: fmt.Sprintf("%s item: %v", et.Value, err)})
	}
	return out
}

// badID checks the id that an item's key names, as the API names it today
// (keys.ValidateID, keys.ValidateProductID): an id stored before a rule
// that refuses it cannot be named through the API any more.
func (r *reader) badID(entity string, k keys.Key) (fact, bool) {
	var kind, id string
	validate := keys.ValidateID
	switch entity {
	case store.TypeUser:
		kind, id = "userId", r.userOf(k.PK)
	case store.TypeAddress:
		kind, id = "addressId", strings.TrimPrefix(k.SK, r.layout.AddressPrefix)
	case store.TypeOrder:
		kind, id = "orderId", r.orderOf(k.PK)
	case store.TypeProduct:
		kind, id, validate = "productId", strings.TrimPrefix(k.PK, r.layout.ProductPrefix), keys.ValidateProductID
	default:
		return fact{}, false
	}
	err := validate(kind, id)
	if err == nil {
		return fact{}, false
	}
	if entity == store.TypeOrder {
		return fact{Group: groupOrder, ID: id, Kind: fBadID, Key: k, Status: err.Error()}, true
	}
	return fact{Group: groupUser, ID: k.PK, Kind: fBadID, Key: k, Status: err.Error()}, true
}

func (r *reader) key(item map[string]types.AttributeValue) keys.Key {
	var k keys.Key
	if v, ok := item[r.items.Schema.PartitionKey].(*types.AttributeValueMemberS); ok {
		k.PK = v.Value
	}
	if v, ok := item[r.items.Schema.SortKey].(*types.AttributeValueMemberS); ok {
		k.SK = v.Value
	}
	return k
}

// userOf is the user whose partition pk is, or "".
func (r *reader) userOf(pk string) string {
	if id, ok := strings.CutPrefix(pk, r.layout.UserPrefix); ok {
		return id
	}
	return ""
}

func (r *reader) orderOf(pk string) string {
	if id, ok := strings.CutPrefix(pk, r.layout.OrderPrefix); ok {
		return id
	}
	return ""
}

func (r *reader) user(item map[string]types.AttributeValue, k keys.Key, out []fact) ([]fact, error) {
	var u store.User
	if err := r.items.Unmarshal(item, &u); err != nil {
		return out, err
	}
	posted := u.Balance
	for _, h := range u.Holds {
		posted += h.Amount
	}
	return append(out, fact{Group: groupUser, ID: r.userOf(k.PK), Kind: fUser, Key: k, Amount: posted, Spent: u.Balance}), nil
}

func (r *reader) ledger(item map[string]types.AttributeValue, k keys.Key, out []fact) ([]fact, error) {
	var e store.LedgerEntry
	if err := r.items.Unmarshal(item, &e); err != nil {
		return out, err
	}
	user := r.userOf(k.PK)
	net, off, missing := entryLegs(e, user)
	out = append(out, fact{Group: groupUser, ID: user, Kind: fLedger, Key: k, Ref: e.EntryID, Status: e.Kind, Amount: e.Amount, Net: net, Off: off, Missing: missing},
		fact{Group: groupEntry, ID: e.EntryID, Kind: fLedger, Key: k, Ref: e.EntryID, Status: e.Kind, User: user, Amount: e.Amount, At: e.CreatedAt})
	if e.Kind == store.LedgerSettle {
		out = append(out, fact{Group: groupOrder, ID: e.OrderID, Kind: fSettle, Key: k, Ref: e.EntryID, User: user, Amount: e.Amount})
	}
	if e.Kind == store.LedgerTransferOut || e.Kind == store.LedgerTransferIn {
		out = append(out, fact{Group: groupTransfer, ID: e.TransferID, Kind: fTransferLeg, Key: k, Ref: e.EntryID, Status: e.Kind, User: user, Amount: e.Amount, Other: e.Counterparty})
	}
	return out, nil
}

// entryLegs reads e's legs (as its kind implies when it has none) against
// the user of its partition and its kind's counter-account.
func entryLegs(e store.LedgerEntry, user string) (net, off int64, missing string) {
	legs := e.Legs
	if len(legs) == 0 {
		legs = store.LegsOf(e.Kind, user, e.Amount)
	}
	own, counter := store.UserAccount(user), store.CounterAccount(e.Kind)
	var lacks, elsewhere []string
	seen := map[string]bool{}
	for _, l := range legs {
		net += l.Amount
		seen[l.Account] = true
		switch l.Account {
		case own:
			off += l.Amount
		case counter:
		default:
			elsewhere = append(elsewhere, l.Account)
		}
	}
	off -= store.KindSign(e.Kind) * e.Amount
	for _, a := range []string{own, counter} {
		if !seen[a] {
			lacks = append(lacks, a)
		}
	}
	if len(lacks) > 0 {
		missing = strings.Join(lacks, ", ")
		if len(elsewhere) > 0 {
			missing += " (it has legs on " + strings.Join(elsewhere, ", ") + ")"
		}
	} else if len(elsewhere) > 0 {
		missing = "none (but it has legs on " + strings.Join(elsewhere, ", ") + ")"
	}
	return net, off, missing
}

func (r *reader) order(item map[string]types.AttributeValue, k keys.Key, out []fact) ([]fact, error) {
	var o store.Order
	if err := r.items.Unmarshal(item, &o); err != nil {
		return out, err
	}
	return append(out, fact{Group: groupOrder, ID: r.orderOf(k.PK), Kind: fOrder, Key: k,
		Ref: o.PaymentID, Status: o.Status, User: o.UserID, Amount: o.Total, At: o.CreatedAt, PaidAt: o.PaidAt}), nil
}

func (r *reader) summary(item map[string]types.AttributeValue, k keys.Key, out []fact) ([]fact, error) {
	var s store.UserOrder
	if err := r.items.Unmarshal(item, &s); err != nil {
		return out, err
	}
	return append(out, fact{Group: groupOrder, ID: s.OrderID, Kind: fSummary, Key: k,
		Status: s.Status, User: r.userOf(k.PK), Amount: s.Total}), nil
}

func (r *reader) payment(item map[string]types.AttributeValue, k keys.Key, out []fact) ([]fact, error) {
	var p store.Payment
	if err := r.items.Unmarshal(item, &p); err != nil {
		return out, err
	}
	return append(out, fact{Group: groupOrder, ID: r.orderOf(k.PK), Kind: fPayment, Key: k, Ref: p.PaymentID, Amount: p.Amount, At: p.CreatedAt}), nil
}

// recordBody is what the checks read of a stored response: the bodies of
// payments.CreditResult, DebitResult, ChargeResult, TransferResult,
// store.Order and store.Hold.
type recordBody struct {
	EntryID    string `json:"entryId"`
	TransferID string `json:"transferId"`
	Captured   int64  `json:"captured"`
	DebitID    string `json:"debitId"`
	OrderID    string `json:"orderId"`
	PaymentID  string `json:"paymentId"`
	UserID     string `json:"userId"`
	Amount     int64  `json:"amount"`
}

// defaultRecords decodes records under oncetable's default names (the
// reader renames the schema's back to them).
var defaultRecords = idempotency.NewTable(nil, "")

// record reads an idempotency record of a success. A pending record
// (external mode), a stored failure and an operation of another flow claim
// no effect.
func (r *reader) record(item map[string]types.AttributeValue, k keys.Key, c *counts, out []fact) ([]fact, error) {
	rec, err := defaultRecords.Decode(r.defaultNames(item))
	if err != nil {
		return out, err
	}
	if rec.Status < 200 || rec.Status > 299 {
		return out, nil
	}
	c.newest(rec.CreatedAt)
	var b recordBody
	if err := json.Unmarshal(rec.Body, &b); err != nil {
		return out, fmt.Errorf("record body: %w", err)
	}
	// A record written before records got partitions of their own lives in
	// its user's or order's partition; a current one names its order in
	// the body, and a credit or debit is joined by its ledger entry.
	user, order := r.userOf(k.PK), r.orderOf(k.PK)
	if user == "" {
		user = b.UserID
	}
	if order == "" {
		order = b.OrderID
	}
	ledgerGroup, ledgerID := byte(groupUser), user
	if r.userOf(k.PK) == "" {
		ledgerGroup, ledgerID = groupEntry, ""
	}
	claim := func(entry, kind string) []fact {
		id := ledgerID
		if id == "" {
			id = entry
		}
		// User lets verify.Confirm find the entry's partition, At lets a
		// live pass leave out records younger than itself.
		return append(out, fact{Group: ledgerGroup, ID: id, Kind: fClaimLedger, Key: k, Ref: entry, Status: kind, Amount: b.Amount, User: user, At: sortable(rec.CreatedAt)},
			fact{Group: groupEntry, ID: entry, Kind: fHasRecord, Key: k})
	}
	switch {
	case rec.Operation == payments.FlowCredit && b.EntryID != "":
		return claim(b.EntryID, store.LedgerCredit), nil
	case rec.Operation == payments.FlowDebit && b.EntryID != "":
		return claim(b.EntryID, store.LedgerDebit), nil
	case rec.Operation == payments.FlowDebit && b.DebitID != "": // a record stored while debits answered debitId
		return claim(b.DebitID, store.LedgerDebit), nil
	case rec.Operation == payments.FlowTransfer && b.TransferID != "":
		out = claim(b.TransferID+"-out", store.LedgerTransferOut)
		return append(out, fact{Group: groupEntry, ID: b.TransferID + "-in", Kind: fClaimLedger, Key: k, Ref: b.TransferID + "-in", Status: store.LedgerTransferIn, Amount: b.Amount},
			fact{Group: groupEntry, ID: b.TransferID + "-in", Kind: fHasRecord, Key: k}), nil
	case rec.Operation == payments.FlowCapture && b.EntryID != "":
		b.Amount = b.Captured
		return claim(b.EntryID, store.LedgerCapture), nil
	case rec.Operation == payments.FlowRefund && b.EntryID != "":
		return claim(b.EntryID, store.LedgerRefund), nil
	case rec.Operation == payments.FlowCreateOrder && user != "":
		return append(out, fact{Group: groupOrder, ID: b.OrderID, Kind: fClaimOrder, Key: k, User: user}), nil
	case rec.Operation == payments.FlowCharge && order != "":
		return append(out, fact{Group: groupOrder, ID: order, Kind: fClaimPayment, Key: k, Ref: b.PaymentID, Amount: b.Amount}), nil
	case rec.Operation == payments.FlowSettle && order != "":
		return append(out, fact{Group: groupOrder, ID: order, Kind: fClaimSettle, Key: k}), nil
	}
	return out, nil
}

// defaultNames renames a record's key, type and TTL attributes back to the
// names idempotency.FromItem reads.
func (r *reader) defaultNames(item map[string]types.AttributeValue) map[string]types.AttributeValue {
	if len(r.back) == 0 {
		return item
	}
	out := make(map[string]types.AttributeValue, len(item))
	for k, v := range item {
		if to, ok := r.back[k]; ok {
			k = to
		}
		out[k] = v
	}
	return out
}

// sortable is an RFC 3339 time in keys.Timestamp's sortable form, or "".
func sortable(at string) string {
	t, err := time.Parse(time.RFC3339Nano, at)
	if err != nil {
		return ""
	}
	return keys.Timestamp(t)
}

// late reads a late write's quarantine item, in its entry's user's group.
func (r *reader) late(item map[string]types.AttributeValue, k keys.Key, out []fact) []fact {
	w, _ := home.ReadLateWrite(item)
	return append(out, fact{Group: groupUser, ID: r.userOf(k.PK), Kind: fLate, Key: k, Ref: w.Entry.SK, Amount: w.Entry.Amount,
		Status: fmt.Sprintf("%s of %d %s (%s) written by %s at epoch %d of cell %s reached %s after it claimed epoch %d: quarantined, settle it by hand",
			w.Entry.Kind, w.Entry.Amount, w.Entry.Currency, w.Entry.SK, w.Writer, w.Epoch, w.Cell, w.Region, w.Claimed)})
}
