package keys

import (
	"crypto/rand"
	"encoding/base32"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// MaxIDLength is the longest id, in bytes, that a key may embed.
const MaxIDLength = 128

// Entity prefixes.
const (
	UserPrefix      = "USER#"
	OrderPrefix     = "ORDER#"
	ItemPrefix      = "ITEM#"
	ProductPrefix   = "PROD#"
	PaymentPrefix   = "PAYMENT#"
	LedgerPrefix    = "LEDGER#"
	AddressPrefix   = "PROFILE#ADDR#"
	IdemPrefix      = "IDEM#"
	ProfileSK       = "PROFILE"
	UserOrderPrefix = "ORDER#"
)

// Index partition keys for the overloaded and sparse indexes.
const (
	// OrderStatusPrefix + status is the GSI1PK of an order.
	OrderStatusPrefix = "ORDERSTATUS#"
	// UnprocessedPartition is the UnprocessedPK of every unprocessed payment.
	UnprocessedPartition = "PAYMENT#UNPROCESSED"
	// FeaturedPartition is the FeaturedPK of every featured product.
	FeaturedPartition = "PROD#FEATURED"
)

// ErrInvalidID is wrapped by every [*InvalidIDError].
var ErrInvalidID = errors.New("keys: invalid id")

// InvalidIDError names the id that was rejected and the rule it broke.
type InvalidIDError struct {
	Kind   string // "userId", "orderId", ...
	ID     string
	Reason string
}

func (e *InvalidIDError) Error() string {
	return fmt.Sprintf("invalid %s %q: %s", e.Kind, e.ID, e.Reason)
}

func (e *InvalidIDError) Unwrap() error { return ErrInvalidID }

// ValidateID checks an id of the given kind (used only in the error).
func ValidateID(kind, id string) error {
	switch {
	case id == "":
		return &InvalidIDError{Kind: kind, ID: id, Reason: "must not be empty"}
	case len(id) > MaxIDLength:
		return &InvalidIDError{Kind: kind, ID: id[:32] + "...", Reason: fmt.Sprintf("must be at most %d bytes", MaxIDLength)}
	case !utf8.ValidString(id):
		return &InvalidIDError{Kind: kind, ID: id, Reason: "must be valid UTF-8"}
	}
	for _, r := range id {
		switch {
		case r == '#':
			return &InvalidIDError{Kind: kind, ID: id, Reason: "must not contain '#'"}
		case r == '/':
			return &InvalidIDError{Kind: kind, ID: id, Reason: "must not contain '/'"}
		case unicode.IsControl(r) || r == utf8.RuneError:
			return &InvalidIDError{Kind: kind, ID: id, Reason: "must not contain control characters"}
		case unicode.IsSpace(r):
			return &InvalidIDError{Kind: kind, ID: id, Reason: "must not contain white space"}
		}
	}
	return nil
}

// Key is a primary key.
type Key struct {
	PK string
	SK string
}

// Timestamp formats t for a sort key: UTC, fixed width, so byte order is time order.
func Timestamp(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000000000Z")
}

// User is the profile item of a user; it also carries the balance.
func User(userID string) (Key, error) {
	if err := ValidateID("userId", userID); err != nil {
		return Key{}, err
	}
	return Key{PK: UserPrefix + userID, SK: ProfileSK}, nil
}

// UserPartition is the partition key of everything a user owns.
func UserPartition(userID string) (string, error) {
	k, err := User(userID)
	return k.PK, err
}

// Address is a user's address.
func Address(userID, addressID string) (Key, error) {
	u, err := User(userID)
	if err != nil {
		return Key{}, err
	}
	if err := ValidateID("addressId", addressID); err != nil {
		return Key{}, err
	}
	return Key{PK: u.PK, SK: AddressPrefix + addressID}, nil
}

// UserOrder is the order summary in the user's partition.
func UserOrder(userID string, createdAt time.Time, orderID string) (Key, error) {
	u, err := User(userID)
	if err != nil {
		return Key{}, err
	}
	if err := ValidateID("orderId", orderID); err != nil {
		return Key{}, err
	}
	return Key{PK: u.PK, SK: UserOrderPrefix + Timestamp(createdAt) + "#" + orderID}, nil
}

// Ledger is one ledger entry of a user.
func Ledger(userID string, at time.Time, entryID string) (Key, error) {
	u, err := User(userID)
	if err != nil {
		return Key{}, err
	}
	if err := ValidateID("entryId", entryID); err != nil {
		return Key{}, err
	}
	return Key{PK: u.PK, SK: LedgerPrefix + Timestamp(at) + "#" + entryID}, nil
}

// Order is the order item.
func Order(orderID string) (Key, error) {
	if err := ValidateID("orderId", orderID); err != nil {
		return Key{}, err
	}
	return Key{PK: OrderPrefix + orderID, SK: OrderPrefix + orderID}, nil
}

// OrderItem is line number line (1-based) of an order.
func OrderItem(orderID string, line int) (Key, error) {
	o, err := Order(orderID)
	if err != nil {
		return Key{}, err
	}
	if line < 1 || line > 999 {
		return Key{}, &InvalidIDError{Kind: "line", ID: strconv.Itoa(line), Reason: "must be 1..999"}
	}
	return Key{PK: o.PK, SK: fmt.Sprintf("%s%03d", ItemPrefix, line)}, nil
}

// Payment is a payment of an order.
func Payment(orderID, paymentID string) (Key, error) {
	o, err := Order(orderID)
	if err != nil {
		return Key{}, err
	}
	if err := ValidateID("paymentId", paymentID); err != nil {
		return Key{}, err
	}
	return Key{PK: o.PK, SK: PaymentPrefix + paymentID}, nil
}

// Product is a product item.
func Product(productID string) (Key, error) {
	if err := ValidateID("productId", productID); err != nil {
		return Key{}, err
	}
	return Key{PK: ProductPrefix + productID, SK: ProductPrefix + productID}, nil
}

// Idempotency is the record of an idempotency key inside the partition of
// the entity the operation acts on. scopeHash is the hex digest computed by
// runtime/idempotency; it never holds the raw key.
func Idempotency(partition, scopeHash string) (Key, error) {
	if partition == "" || strings.ContainsAny(scopeHash, "#/") || scopeHash == "" {
		return Key{}, &InvalidIDError{Kind: "idempotency scope", ID: scopeHash, Reason: "malformed"}
	}
	return Key{PK: partition, SK: IdemPrefix + scopeHash}, nil
}

// OrderStatusGSI returns the GSI1 keys of an order in a status.
func OrderStatusGSI(status string, createdAt time.Time, orderID string) (pk, sk string) {
	return OrderStatusPrefix + status, Timestamp(createdAt) + "#" + orderID
}

// UnprocessedSK is the sort key of a payment in the Unprocessed index.
func UnprocessedSK(createdAt time.Time, paymentID string) string {
	return Timestamp(createdAt) + "#" + paymentID
}

var idEncoding = base32.NewEncoding("0123456789abcdefghjkmnpqrstvwxyz").WithPadding(base32.NoPadding)

// NewID returns a fresh id such as "pay_01j9…": the prefix, then 48 bits of
// milliseconds and 80 random bits in Crockford base32, so ids sort by
// creation time and never contain a delimiter.
func NewID(prefix string) string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(time.Now().UnixMilli())<<16)
	if _, err := rand.Read(b[6:]); err != nil {
		panic("keys: crypto/rand failed: " + err.Error())
	}
	return prefix + "_" + idEncoding.EncodeToString(b[:])
}
