package verify

import (
	"github.com/oncetable/oncetable/runtime/keys"
)

// Kind names a broken invariant. Its values are stable: reports, alarms and
// docs/recovery.md use them.
type Kind string

// The kinds of violation, grouped by invariant.
const (
	// Balances: each user's balance equals the sum of the ledger, and none
	// is negative.
	BalanceMismatch    Kind = "balance-mismatch"
	NegativeBalance    Kind = "negative-balance"
	LedgerWithoutUser  Kind = "ledger-without-user"
	InvalidLedgerEntry Kind = "invalid-ledger-entry"
	// TransferUnbalanced is a transfer whose two legs do not net to zero
	// on the platform's transfers clearing account (docs/ledger.md).
	TransferUnbalanced Kind = "transfer-unbalanced"
	// UnbalancedEntry is a ledger entry whose legs do not sum to zero, and
	// MissingLeg one without a leg on its user's account or on its kind's
	// platform account (docs/ledger.md, "Double entry").
	UnbalancedEntry Kind = "unbalanced-entry"
	MissingLeg      Kind = "missing-leg"
	// PlatformTotalMismatch is a platform account whose stored total (its
	// shards summed, runtime/platform) is not the sum of the platform legs
	// of the entries marked totalled, in one currency. Entries not totalled
	// yet are the totaller's lag (Report.Untotalled), not a violation.
	PlatformTotalMismatch Kind = "platform-total-mismatch"

	// Orders: every paid order has its payment, its one settle ledger
	// entry and its summary; every order has its summary, in its status.
	PaidWithoutPayment  Kind = "paid-without-payment"
	PaidWithoutSettle   Kind = "paid-without-settle"
	SettleMismatch      Kind = "settle-mismatch"
	OrderWithoutSummary Kind = "order-without-summary"
	SummaryMismatch     Kind = "summary-mismatch"

	// Payments and settle entries: none lacks its order.
	PaymentWithoutOrder    Kind = "payment-without-order"
	PaymentMismatch        Kind = "payment-mismatch"
	SettleWithoutPaidOrder Kind = "settle-without-paid-order"

	// Idempotency: every record of a success holds an effect that exists.
	RecordWithoutEffect Kind = "record-without-effect"
	// DuplicateEffect is two ledger entries of one user that one request
	// (caller, operation, key) made while its record stood: a double apply
	// across Regions, named by the ids' common origin (keys.IDOrigin).
	DuplicateEffect Kind = "duplicate-effect"
	// LateWrite is a ledger entry an old home committed that reached the
	// new home after it claimed a later epoch (a takeover), as the
	// Region's stream consumer quarantined it (runtime/regionwatch): an
	// acknowledged movement to settle by hand.
	LateWrite Kind = "late-write"
	// EffectWithoutRecord is an effect younger than the records' expiry
	// without its record: a retry of its request would apply it again.
	EffectWithoutRecord Kind = "effect-without-record"

	// MalformedItem is an item of a known entity type that does not decode.
	MalformedItem Kind = "malformed-item"
	// NonCanonicalID is a user, address, order or product whose key holds
	// an id that keys.ValidateID (or ValidateProductID) refuses: not NFC,
	// an invisible, bidirectional control or unassigned character, a
	// non-ASCII product id. The API can no longer name it.
	NonCanonicalID Kind = "non-canonical-id"
)

// Kinds lists every kind, in report order.
var Kinds = []Kind{
	BalanceMismatch, NegativeBalance, LedgerWithoutUser, InvalidLedgerEntry, TransferUnbalanced, UnbalancedEntry, MissingLeg, PlatformTotalMismatch,
	PaidWithoutPayment, PaidWithoutSettle, SettleMismatch, OrderWithoutSummary, SummaryMismatch,
	PaymentWithoutOrder, PaymentMismatch, SettleWithoutPaidOrder,
	RecordWithoutEffect, DuplicateEffect, LateWrite, EffectWithoutRecord, MalformedItem, NonCanonicalID,
}

// Violation is one broken invariant.
type Violation struct {
	Kind Kind `json:"kind"`
	// Detail says what was found, with the amounts.
	Detail string `json:"detail"`
	// Transaction names the transaction the violation breaks when the items
	// tell which ("settle of order o-1"), else "".
	Transaction string `json:"transaction,omitempty"`
	// UserID and OrderID are the user and the order concerned, if any.
	UserID  string `json:"userId,omitempty"`
	OrderID string `json:"orderId,omitempty"`
	// Keys are the primary keys of the items involved (at most MaxKeys).
	Keys []Key `json:"keys"`
}

// Key is an item's primary key.
type Key struct {
	PK string `json:"pk"`
	SK string `json:"sk"`
}

// MaxKeys bounds the keys one violation lists (a user with a million ledger
// entries and no profile lists the first ones).
const MaxKeys = 20

func keyOf(k keys.Key) Key { return Key{PK: k.PK, SK: k.SK} }
