package store

import "github.com/oncetable/oncetable/runtime/metadata"

// EntityType values.
const (
	TypeUser        = "User"
	TypeAddress     = "Address"
	TypeOrder       = "Order"
	TypeOrderItem   = "OrderItem"
	TypeUserOrder   = "UserOrder"
	TypePayment     = "Payment"
	TypeProduct     = "Product"
	TypeLedgerEntry = "LedgerEntry"
	TypeHold        = "Hold"
	TypeRefund      = "Refund"
	// TypePlatformTotal is one shard of a platform account's stored total
	// (keys.PlatformTotal), written only by the totaller (runtime/platform).
	TypePlatformTotal = "PlatformTotal"
)

// TotalledAttribute marks a ledger entry whose platform legs the totaller
// has added to the platform totals; its value is the shard they went to.
// It is set in the same transaction as the totals' ADD, only if absent, so
// an entry is counted once however often its stream record is delivered.
const TotalledAttribute = "totalled"

// Order statuses. An order is created, then paid by settle; a refund of
// part of what was paid makes it partially_refunded, of the rest refunded.
// A paid order (or one refunded in part) is shipped, then delivered; a
// partial refund leaves those as they are, and the last refund makes any
// of them refunded. Its GSI1PK follows its status (ORDERSTATUS#<status>).
const (
	OrderCreated           = "created"
	OrderPaid              = "paid"
	OrderPartiallyRefunded = "partially_refunded"
	OrderRefunded          = "refunded"
	// OrderCancelled is an order cancelled before it was paid; its payment,
	// if it had one, is voided.
	OrderCancelled = "cancelled"
	OrderShipped   = "shipped"
	OrderDelivered = "delivered"
)

// WasPaid reports whether an order in status was settled: paid, refunded
// in part or in full since, shipped or delivered.
func WasPaid(status string) bool {
	return status == OrderPaid || status == OrderPartiallyRefunded || status == OrderRefunded || Fulfilled(status)
}

// Fulfilled reports whether an order in status is shipped or delivered.
func Fulfilled(status string) bool { return status == OrderShipped || status == OrderDelivered }

// OrderStatuses lists every order status.
var OrderStatuses = []string{OrderCreated, OrderPaid, OrderPartiallyRefunded, OrderRefunded, OrderCancelled, OrderShipped, OrderDelivered}

// Payment statuses. A created payment sits in the sparse Unprocessed index
// until processing REMOVEs its index keys.
const (
	PaymentCreated   = "created"
	PaymentProcessed = "processed"
	// PaymentVoided is the payment of a cancelled order.
	PaymentVoided = "voided"
)

// Ledger entry kinds (docs/ledger.md). Signed says which add to the
// user's posted money and which take from it.
const (
	LedgerCredit      = "credit"
	LedgerDebit       = "debit"
	LedgerSettle      = "settle"
	LedgerTransferOut = "transfer_out"
	LedgerTransferIn  = "transfer_in"
	LedgerCapture     = "capture"
	LedgerRefund      = "refund"
)

// LedgerKinds lists every ledger entry kind.
var LedgerKinds = []string{LedgerCredit, LedgerDebit, LedgerSettle, LedgerTransferOut, LedgerTransferIn, LedgerCapture, LedgerRefund}

// Counter-accounts of the platform: the other leg of each ledger entry
// (docs/ledger.md, "Double entry").
const (
	AccountFunding   = "platform:funding"
	AccountRevenue   = "platform:revenue"
	AccountTransfers = "platform:transfers"
	AccountRefunds   = "platform:refunds"
)

// PlatformAccounts lists the platform's accounts, the counter-accounts of
// every kind.
var PlatformAccounts = []string{AccountFunding, AccountRevenue, AccountTransfers, AccountRefunds}

// UserAccountPrefix begins the account of a user's posted money in a leg.
const UserAccountPrefix = "user:"

// UserAccount is the account of userID's posted money (balance plus open
// holds) in a leg.
func UserAccount(userID string) string { return UserAccountPrefix + userID }

// Hold statuses. An authorized hold that is past its expiresAt reads as
// expired, whether or not a flow has released it yet.
const (
	HoldAuthorized = "authorized"
	HoldCaptured   = "captured"
	HoldVoided     = "voided"
	HoldExpired    = "expired"
)

// MaxOpenHolds bounds a user's open holds, which live on the profile.
const MaxOpenHolds = 20

// MaxAddresses is how many addresses a user may keep; it bounds the
// one-Query user view.
const MaxAddresses = 10

// RecentOrders is how many orders the user view returns.
const RecentOrders = 10

// User is the profile item; it also carries the balance (one currency per
// user, fixed by the first credit) and the orderCount counter.
type User struct {
	PK           string `dynamodbav:"PK" json:"-"`
	SK           string `dynamodbav:"SK" json:"-"`
	EntityType   string `dynamodbav:"EntityType" json:"-"`
	UserID       string `dynamodbav:"userId" json:"userId"`
	Name         string `dynamodbav:"name" json:"name"`
	Email        string `dynamodbav:"email" json:"email"`
	Balance      int64  `dynamodbav:"balance" json:"balance"`
	Currency     string `dynamodbav:"currency,omitempty" json:"currency,omitempty"`
	OrderCount   int64  `dynamodbav:"orderCount" json:"orderCount"`
	AddressCount int64  `dynamodbav:"addressCount" json:"-"`
	// Metadata is the client's, given when the user was created.
	Metadata metadata.Metadata `dynamodbav:"metadata,omitempty" json:"metadata,omitempty"`
	// Holds are the open holds by id: money taken out of Balance and not
	// yet captured, voided or released (docs/ledger.md).
	Holds     map[string]OpenHold `dynamodbav:"holds,omitempty" json:"-"`
	CreatedAt string              `dynamodbav:"createdAt" json:"createdAt"`
	UpdatedAt string              `dynamodbav:"updatedAt" json:"updatedAt"`
}

// OpenHold is a hold as the profile carries it.
type OpenHold struct {
	Amount    int64  `dynamodbav:"amount"`
	Currency  string `dynamodbav:"currency"`
	ExpiresAt string `dynamodbav:"until"`
}

// Expired says whether the hold stopped counting at or before now.
func (h OpenHold) Expired(now string) bool { return h.ExpiresAt <= now }

// Held sums the holds of u that count at now (ISO timestamp, keys.Timestamp)
// and those that no longer do.
func (u User) Held(now string) (open, expired int64) {
	for _, h := range u.Holds {
		if h.Expired(now) {
			expired += h.Amount
		} else {
			open += h.Amount
		}
	}
	return open, expired
}

// Hold is a reservation of part of a user's balance, in the user's
// partition (HOLD#<holdId>). Its money lives in the profile's holds map
// while it is open.
type Hold struct {
	PK         string `dynamodbav:"PK" json:"-"`
	SK         string `dynamodbav:"SK" json:"-"`
	EntityType string `dynamodbav:"EntityType" json:"-"`
	HoldID     string `dynamodbav:"holdId" json:"holdId"`
	UserID     string `dynamodbav:"userId" json:"userId"`
	Status     string `dynamodbav:"status" json:"status"`
	Amount     int64  `dynamodbav:"amount" json:"amount"`
	Currency   string `dynamodbav:"currency" json:"currency"`
	Captured   int64  `dynamodbav:"captured" json:"captured"`
	EntryID    string `dynamodbav:"entryId,omitempty" json:"entryId,omitempty"`
	CreatedAt  string `dynamodbav:"createdAt" json:"createdAt"`
	ExpiresAt  string `dynamodbav:"holdExpiresAt" json:"expiresAt"`
	UpdatedAt  string `dynamodbav:"updatedAt" json:"updatedAt"`
	// Metadata is the authorization's, with a capture's or a void's
	// keys set over it.
	Metadata metadata.Metadata `dynamodbav:"metadata,omitempty" json:"metadata,omitempty"`
}

// Address is one of a user's addresses.
type Address struct {
	PK         string `dynamodbav:"PK" json:"-"`
	SK         string `dynamodbav:"SK" json:"-"`
	EntityType string `dynamodbav:"EntityType" json:"-"`
	UserID     string `dynamodbav:"userId" json:"userId"`
	AddressID  string `dynamodbav:"addressId" json:"addressId"`
	Line1      string `dynamodbav:"line1" json:"line1"`
	Line2      string `dynamodbav:"line2,omitempty" json:"line2,omitempty"`
	City       string `dynamodbav:"city" json:"city"`
	PostalCode string `dynamodbav:"postalCode" json:"postalCode"`
	Country    string `dynamodbav:"country" json:"country"`
	CreatedAt  string `dynamodbav:"createdAt" json:"createdAt"`
}

// Order is the order item, in its own partition with its items.
type Order struct {
	PK          string `dynamodbav:"PK" json:"-"`
	SK          string `dynamodbav:"SK" json:"-"`
	EntityType  string `dynamodbav:"EntityType" json:"-"`
	GSI1PK      string `dynamodbav:"GSI1PK" json:"-"`
	GSI1SK      string `dynamodbav:"GSI1SK" json:"-"`
	OrderID     string `dynamodbav:"orderId" json:"orderId"`
	UserID      string `dynamodbav:"userId" json:"userId"`
	Status      string `dynamodbav:"status" json:"status"`
	Total       int64  `dynamodbav:"total" json:"total"`
	Currency    string `dynamodbav:"currency" json:"currency"`
	ItemCount   int    `dynamodbav:"itemCount" json:"itemCount"`
	PaymentID   string `dynamodbav:"paymentId,omitempty" json:"paymentId,omitempty"`
	UserOrderSK string `dynamodbav:"userOrderSK" json:"-"`
	CreatedAt   string `dynamodbav:"createdAt" json:"createdAt"`
	UpdatedAt   string `dynamodbav:"updatedAt" json:"updatedAt"`
	PaidAt      string `dynamodbav:"paidAt,omitempty" json:"paidAt,omitempty"`
	CancelledAt string `dynamodbav:"cancelledAt,omitempty" json:"cancelledAt,omitempty"`
	ShippedAt   string `dynamodbav:"shippedAt,omitempty" json:"shippedAt,omitempty"`
	DeliveredAt string `dynamodbav:"deliveredAt,omitempty" json:"deliveredAt,omitempty"`
	// Refunded is the sum of the order's refunds; never more than Total.
	Refunded int64 `dynamodbav:"refunded,omitempty" json:"refunded,omitempty"`
	// Metadata is the order's, with its settle's keys set over it.
	Metadata metadata.Metadata `dynamodbav:"metadata,omitempty" json:"metadata,omitempty"`
}

// Refund gives back part or all of what a paid order took, to the balance
// it came from. It lives in the order's partition (REFUND#<refundId>).
type Refund struct {
	PK         string `dynamodbav:"PK" json:"-"`
	SK         string `dynamodbav:"SK" json:"-"`
	EntityType string `dynamodbav:"EntityType" json:"-"`
	RefundID   string `dynamodbav:"refundId" json:"refundId"`
	OrderID    string `dynamodbav:"orderId" json:"orderId"`
	UserID     string `dynamodbav:"userId" json:"userId"`
	Amount     int64  `dynamodbav:"amount" json:"amount"`
	Currency   string `dynamodbav:"currency" json:"currency"`
	// EntryID is the refund's ledger entry in the user's ledger.
	EntryID string `dynamodbav:"entryId" json:"entryId"`
	// OrderStatus is the order's status once this refund was made.
	OrderStatus string `dynamodbav:"orderStatus" json:"orderStatus"`
	CreatedAt   string `dynamodbav:"createdAt" json:"createdAt"`
	// Metadata is the refund request's (its ledger entry carries it too).
	Metadata metadata.Metadata `dynamodbav:"metadata,omitempty" json:"metadata,omitempty"`
}

// OrderItem is one line of an order.
type OrderItem struct {
	PK         string `dynamodbav:"PK" json:"-"`
	SK         string `dynamodbav:"SK" json:"-"`
	EntityType string `dynamodbav:"EntityType" json:"-"`
	OrderID    string `dynamodbav:"orderId" json:"-"`
	Line       int    `dynamodbav:"line" json:"line"`
	ProductID  string `dynamodbav:"productId" json:"productId"`
	Quantity   int64  `dynamodbav:"quantity" json:"quantity"`
	UnitPrice  int64  `dynamodbav:"unitPrice" json:"unitPrice"`
	LineTotal  int64  `dynamodbav:"lineTotal" json:"lineTotal"`
	CreatedAt  string `dynamodbav:"createdAt" json:"-"`
}

// UserOrder is the summary of an order in its user's partition, for the
// user's orders newest first.
type UserOrder struct {
	PK         string `dynamodbav:"PK" json:"-"`
	SK         string `dynamodbav:"SK" json:"-"`
	EntityType string `dynamodbav:"EntityType" json:"-"`
	OrderID    string `dynamodbav:"orderId" json:"orderId"`
	Status     string `dynamodbav:"status" json:"status"`
	Total      int64  `dynamodbav:"total" json:"total"`
	Currency   string `dynamodbav:"currency" json:"currency"`
	CreatedAt  string `dynamodbav:"createdAt" json:"createdAt"`
	UpdatedAt  string `dynamodbav:"updatedAt" json:"updatedAt"`
}

// Payment is a charge against an order. UnprocessedPK/SK are present only
// while it is unprocessed, which is what makes the index sparse.
type Payment struct {
	PK            string `dynamodbav:"PK" json:"-"`
	SK            string `dynamodbav:"SK" json:"-"`
	EntityType    string `dynamodbav:"EntityType" json:"-"`
	UnprocessedPK string `dynamodbav:"UnprocessedPK,omitempty" json:"-"`
	UnprocessedSK string `dynamodbav:"UnprocessedSK,omitempty" json:"-"`
	PaymentID     string `dynamodbav:"paymentId" json:"paymentId"`
	OrderID       string `dynamodbav:"orderId" json:"orderId"`
	UserID        string `dynamodbav:"userId,omitempty" json:"userId,omitempty"`
	Amount        int64  `dynamodbav:"amount" json:"amount"`
	Currency      string `dynamodbav:"currency" json:"currency"`
	Status        string `dynamodbav:"status" json:"status"`
	CreatedAt     string `dynamodbav:"createdAt" json:"createdAt"`
	ProcessedAt   string `dynamodbav:"processedAt,omitempty" json:"processedAt,omitempty"`
	VoidedAt      string `dynamodbav:"voidedAt,omitempty" json:"voidedAt,omitempty"`
	// Metadata is the charge request's.
	Metadata metadata.Metadata `dynamodbav:"metadata,omitempty" json:"metadata,omitempty"`
}

// Product is a catalogue entry. FeaturedPK/SK are present only on featured
// products (the sparse Featured index).
type Product struct {
	PK         string `dynamodbav:"PK" json:"-"`
	SK         string `dynamodbav:"SK" json:"-"`
	EntityType string `dynamodbav:"EntityType" json:"-"`
	FeaturedPK string `dynamodbav:"FeaturedPK,omitempty" json:"-"`
	FeaturedSK string `dynamodbav:"FeaturedSK,omitempty" json:"-"`
	ProductID  string `dynamodbav:"productId" json:"productId"`
	Name       string `dynamodbav:"name" json:"name"`
	Price      int64  `dynamodbav:"price" json:"price"`
	Currency   string `dynamodbav:"currency" json:"currency"`
	Featured   bool   `dynamodbav:"featured" json:"featured"`
	CreatedAt  string `dynamodbav:"createdAt" json:"createdAt"`
}

// LedgerEntry records one movement of a user's posted money. Amount is
// always positive; Kind says its direction. Legs are the movement's
// double entry: the user's account and a platform account, summing to
// zero (docs/ledger.md, "Double entry").
type LedgerEntry struct {
	PK         string `dynamodbav:"PK" json:"-"`
	SK         string `dynamodbav:"SK" json:"-"`
	EntityType string `dynamodbav:"EntityType" json:"-"`
	EntryID    string `dynamodbav:"entryId" json:"entryId"`
	UserID     string `dynamodbav:"userId" json:"userId"`
	Kind       string `dynamodbav:"kind" json:"kind"`
	Amount     int64  `dynamodbav:"amount" json:"amount"`
	Currency   string `dynamodbav:"currency" json:"currency"`
	OrderID    string `dynamodbav:"orderId,omitempty" json:"orderId,omitempty"`
	// TransferID pairs a transfer's two entries; Counterparty is the other
	// user of the transfer. HoldID is the hold a capture posted.
	TransferID   string `dynamodbav:"transferId,omitempty" json:"transferId,omitempty"`
	Counterparty string `dynamodbav:"counterparty,omitempty" json:"counterparty,omitempty"`
	HoldID       string `dynamodbav:"holdId,omitempty" json:"holdId,omitempty"`
	// RefundID is the refund a refund entry posted (with its OrderID).
	RefundID string `dynamodbav:"refundId,omitempty" json:"refundId,omitempty"`
	// Metadata is the request's that posted the entry (a transfer's is on
	// its sender's entry only).
	Metadata metadata.Metadata `dynamodbav:"metadata,omitempty" json:"metadata,omitempty"`
	// Legs are stored on every entry a flow writes; an entry written before
	// entries carried legs has none until the legs migration adds them, and
	// reads as LegsOf its kind meanwhile (Posting).
	Legs      []Leg  `dynamodbav:"legs,omitempty" json:"legs,omitempty"`
	CreatedAt string `dynamodbav:"createdAt" json:"createdAt"`
}

// Leg is one account's side of a movement, in the entry's currency: a
// positive amount adds to the account, a negative one takes from it.
type Leg struct {
	Account string `dynamodbav:"account" json:"account"`
	Amount  int64  `dynamodbav:"amount" json:"amount"`
}

// LegsOf is the double entry of a movement of kind for amount on userID's
// posted money: the user's leg and its counter-account's, summing to zero.
func LegsOf(kind, userID string, amount int64) []Leg {
	signed := KindSign(kind) * amount
	return []Leg{{Account: UserAccount(userID), Amount: signed}, {Account: CounterAccount(kind), Amount: -signed}}
}

// WithLegs is e with its legs set from its kind, user and amount: what
// every flow stores.
func (e LedgerEntry) WithLegs() LedgerEntry {
	e.Legs = LegsOf(e.Kind, e.UserID, e.Amount)
	return e
}

// Posting is the entry's legs: as stored, or, for an entry stored before
// entries carried legs, as its kind implies. Readers use it so that both
// shapes read alike while the legs migration runs.
func (e LedgerEntry) Posting() []Leg {
	if len(e.Legs) > 0 {
		return e.Legs
	}
	return LegsOf(e.Kind, e.UserID, e.Amount)
}

// Signed is the entry's effect on the user's posted money (balance plus
// open holds): the sum of its legs on the user's account.
func (e LedgerEntry) Signed() int64 {
	var sum int64
	for _, l := range e.Posting() {
		if l.Account == UserAccount(e.UserID) {
			sum += l.Amount
		}
	}
	return sum
}

// Net is the sum of all the entry's legs, zero for a balanced entry.
func (e LedgerEntry) Net() int64 {
	var sum int64
	for _, l := range e.Posting() {
		sum += l.Amount
	}
	return sum
}

// KindSign is +1 for a kind that adds to the user's posted money, -1 for
// one that takes from it.
func KindSign(kind string) int64 {
	if kind == LedgerCredit || kind == LedgerTransferIn || kind == LedgerRefund {
		return 1
	}
	return -1
}

// CounterAccount is the platform account of the other leg of an entry of
// kind.
func CounterAccount(kind string) string {
	switch kind {
	case LedgerSettle, LedgerCapture:
		return AccountRevenue
	case LedgerTransferIn, LedgerTransferOut:
		return AccountTransfers
	case LedgerRefund:
		return AccountRefunds
	}
	return AccountFunding
}

// At is the hold as it reads at now: an authorized hold past its
// expiresAt is expired.
func (h Hold) At(now string) Hold {
	if h.Status == HoldAuthorized && h.ExpiresAt <= now {
		h.Status = HoldExpired
	}
	return h
}
