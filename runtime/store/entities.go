package store

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
)

// Order statuses. An order is created, then paid by settle; its GSI1PK
// follows its status (ORDERSTATUS#<status>).
const (
	OrderCreated = "created"
	OrderPaid    = "paid"
)

// Payment statuses. A created payment sits in the sparse Unprocessed index
// until processing REMOVEs its index keys.
const (
	PaymentCreated   = "created"
	PaymentProcessed = "processed"
)

// Ledger entry kinds.
const (
	LedgerCredit = "credit"
	LedgerDebit  = "debit"
	LedgerSettle = "settle"
)

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
	CreatedAt    string `dynamodbav:"createdAt" json:"createdAt"`
	UpdatedAt    string `dynamodbav:"updatedAt" json:"updatedAt"`
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

// LedgerEntry records one movement of a user's balance. Amount is always
// positive; Kind says its direction (credit adds, debit and settle subtract).
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
	CreatedAt  string `dynamodbav:"createdAt" json:"createdAt"`
}

// Signed is the entry's effect on the balance.
func (e LedgerEntry) Signed() int64 {
	if e.Kind == LedgerCredit {
		return e.Amount
	}
	return -e.Amount
}
