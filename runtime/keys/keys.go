package keys

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
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
	HoldPrefix      = "HOLD#"
	RefundPrefix    = "REFUND#"
	// PlatformPrefix + account + "#" + shard is the partition of one shard
	// of a platform account's stored total, PlatformTotalSK its sort key.
	PlatformPrefix  = "PLATFORM#"
	PlatformTotalSK = "TOTAL"
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

// Layout is the set of key prefixes of a table, given at construction to
// the store and the flows. Its zero fields take [Default]'s values.
type Layout struct {
	UserPrefix, OrderPrefix, ItemPrefix, ProductPrefix, PaymentPrefix, LedgerPrefix, AddressPrefix, IdemPrefix string
	// ProfileSK is the sort key of a user's profile item.
	ProfileSK string
	// UserOrderPrefix starts the sort key of an order summary in a user's partition.
	UserOrderPrefix string
	// OrderStatusPrefix + status is the GSI1PK of an order.
	OrderStatusPrefix string
	// UnprocessedPartition and FeaturedPartition are the partition keys of
	// the sparse indexes.
	UnprocessedPartition, FeaturedPartition string
	// HoldPrefix starts the sort key of a hold in its user's partition.
	HoldPrefix string
	// RefundPrefix starts the sort key of a refund in its order's partition.
	RefundPrefix string
}

// Default is oncetable's own layout, the constants above.
var Default = Layout{
	UserPrefix: UserPrefix, OrderPrefix: OrderPrefix, ItemPrefix: ItemPrefix, ProductPrefix: ProductPrefix,
	PaymentPrefix: PaymentPrefix, LedgerPrefix: LedgerPrefix, AddressPrefix: AddressPrefix, IdemPrefix: IdemPrefix,
	ProfileSK: ProfileSK, UserOrderPrefix: UserOrderPrefix, OrderStatusPrefix: OrderStatusPrefix, UnprocessedPartition: UnprocessedPartition, FeaturedPartition: FeaturedPartition,
	HoldPrefix: HoldPrefix, RefundPrefix: RefundPrefix,
}

// WithDefaults fills l's empty fields from [Default].
func (l Layout) WithDefaults() Layout {
	d := Default
	for _, f := range []struct {
		v   *string
		def string
	}{
		{&l.UserPrefix, d.UserPrefix}, {&l.OrderPrefix, d.OrderPrefix}, {&l.ItemPrefix, d.ItemPrefix}, {&l.ProductPrefix, d.ProductPrefix}, {&l.PaymentPrefix, d.PaymentPrefix},
		{&l.LedgerPrefix, d.LedgerPrefix}, {&l.AddressPrefix, d.AddressPrefix}, {&l.IdemPrefix, d.IdemPrefix}, {&l.ProfileSK, d.ProfileSK},
		{&l.UserOrderPrefix, d.UserOrderPrefix}, {&l.OrderStatusPrefix, d.OrderStatusPrefix},
		{&l.UnprocessedPartition, d.UnprocessedPartition}, {&l.FeaturedPartition, d.FeaturedPartition},
		{&l.HoldPrefix, d.HoldPrefix}, {&l.RefundPrefix, d.RefundPrefix},
	} {
		if *f.v == "" {
			*f.v = f.def
		}
	}
	return l
}

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
//
// An id is compared byte for byte wherever it is used (keys, conditions,
// ownership), so ValidateID admits only ids whose bytes are the one way of
// writing what they show: in Unicode Normalization Form C (NFC; see
// [CanonicalID], which normalises first), without characters that show
// nothing or reorder the text around them (format characters such as
// U+200B ZERO WIDTH SPACE, bidirectional controls such as U+202E, default
// ignorables such as U+034F and variation selectors), and without
// unassigned or private-use code points, whose rendering and
// normalisation no one can know.
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
		case unicode.Is(unicode.Bidi_Control, r):
			return &InvalidIDError{Kind: kind, ID: id, Reason: fmt.Sprintf("must not contain bidirectional control characters (%U)", r)}
		case invisible(r):
			return &InvalidIDError{Kind: kind, ID: id, Reason: fmt.Sprintf("must not contain invisible characters (%U)", r)}
		case !assigned(r):
			return &InvalidIDError{Kind: kind, ID: id, Reason: fmt.Sprintf("must not contain unassigned or private-use characters (%U)", r)}
		}
	}
	if !norm.NFC.IsNormalString(id) {
		return &InvalidIDError{Kind: kind, ID: id, Reason: "must be in Unicode Normalization Form C (NFC)"}
	}
	return nil
}

// CanonicalID returns id in NFC, the form every key and comparison uses,
// once [ValidateID] accepts it: "é" sent decomposed (e + U+0301) names the
// same entity as "é" sent precomposed.
func CanonicalID(kind, id string) (string, error) {
	if utf8.ValidString(id) {
		id = norm.NFC.String(id)
	}
	return id, ValidateID(kind, id)
}

// invisible reports the characters that render as nothing: format
// characters (Cf: zero-width spaces and joiners, the byte order mark, tag
// characters), the other default-ignorable code points (Hangul fillers,
// U+034F COMBINING GRAPHEME JOINER) and variation selectors.
func invisible(r rune) bool {
	return unicode.In(r, unicode.Cf, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector)
}

// assigned reports whether r has a character assigned in the Unicode
// version of package unicode, other than private use (Co) and surrogates.
func assigned(r rune) bool {
	return unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z, unicode.Cc, unicode.Cf)
}

// ValidateProductID is [ValidateID] plus the catalogue's own rule: a
// product id is 1..128 bytes of ASCII letters, digits and "-_.:~". An
// order line is priced from the catalogue when its productId names a
// product, and at the client's price otherwise, so an id that only looks
// like a catalogue id ("mug" in Cyrillic letters, "Ｍug" in full width)
// would escape the price check: in ASCII without white space, two product
// ids that look alike are alike.
func ValidateProductID(kind, id string) error {
	if err := ValidateID(kind, id); err != nil {
		return err
	}
	for _, r := range id {
		if !productIDChar(r) {
			return &InvalidIDError{Kind: kind, ID: id, Reason: fmt.Sprintf("must be ASCII letters, digits and -_.:~ (a catalogue id), not %q (%U)", r, r)}
		}
	}
	return nil
}

func productIDChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.:~", r)
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
func (l Layout) User(userID string) (Key, error) {
	if err := ValidateID("userId", userID); err != nil {
		return Key{}, err
	}
	return Key{PK: l.UserPrefix + userID, SK: l.ProfileSK}, nil
}

// UserPartition is the partition key of everything a user owns.
func (l Layout) UserPartition(userID string) (string, error) {
	k, err := l.User(userID)
	return k.PK, err
}

// Address is a user's address.
func (l Layout) Address(userID, addressID string) (Key, error) {
	u, err := l.User(userID)
	if err != nil {
		return Key{}, err
	}
	if err := ValidateID("addressId", addressID); err != nil {
		return Key{}, err
	}
	return Key{PK: u.PK, SK: l.AddressPrefix + addressID}, nil
}

// UserOrder is the order summary in the user's partition.
func (l Layout) UserOrder(userID string, createdAt time.Time, orderID string) (Key, error) {
	u, err := l.User(userID)
	if err != nil {
		return Key{}, err
	}
	if err := ValidateID("orderId", orderID); err != nil {
		return Key{}, err
	}
	return Key{PK: u.PK, SK: l.UserOrderPrefix + Timestamp(createdAt) + "#" + orderID}, nil
}

// Ledger is one ledger entry of a user. The sort key's time is the one
// entryID holds ([IDTime]), so the key follows from the id alone and an
// entry is read by id with one GetItem; an entryID that holds no time
// (not made by [NewIDAt]) is an [*InvalidIDError].
func (l Layout) Ledger(userID, entryID string) (Key, error) {
	u, err := l.User(userID)
	if err != nil {
		return Key{}, err
	}
	if err := ValidateID("entryId", entryID); err != nil {
		return Key{}, err
	}
	at, err := IDTime(entryID)
	if err != nil {
		return Key{}, err
	}
	return Key{PK: u.PK, SK: l.LedgerPrefix + Timestamp(at) + "#" + entryID}, nil
}

// Hold is a hold of a user.
func (l Layout) Hold(userID, holdID string) (Key, error) {
	u, err := l.User(userID)
	if err != nil {
		return Key{}, err
	}
	if err := ValidateID("holdId", holdID); err != nil {
		return Key{}, err
	}
	return Key{PK: u.PK, SK: l.HoldPrefix + holdID}, nil
}

// Order is the order item.
func (l Layout) Order(orderID string) (Key, error) {
	if err := ValidateID("orderId", orderID); err != nil {
		return Key{}, err
	}
	return Key{PK: l.OrderPrefix + orderID, SK: l.OrderPrefix + orderID}, nil
}

// OrderItem is line number line (1-based) of an order.
func (l Layout) OrderItem(orderID string, line int) (Key, error) {
	o, err := l.Order(orderID)
	if err != nil {
		return Key{}, err
	}
	if line < 1 || line > 999 {
		return Key{}, &InvalidIDError{Kind: "line", ID: strconv.Itoa(line), Reason: "must be 1..999"}
	}
	return Key{PK: o.PK, SK: fmt.Sprintf("%s%03d", l.ItemPrefix, line)}, nil
}

// Payment is a payment of an order.
func (l Layout) Payment(orderID, paymentID string) (Key, error) {
	o, err := l.Order(orderID)
	if err != nil {
		return Key{}, err
	}
	if err := ValidateID("paymentId", paymentID); err != nil {
		return Key{}, err
	}
	return Key{PK: o.PK, SK: l.PaymentPrefix + paymentID}, nil
}

// Refund is a refund of an order, in the order's partition.
func (l Layout) Refund(orderID, refundID string) (Key, error) {
	o, err := l.Order(orderID)
	if err != nil {
		return Key{}, err
	}
	if err := ValidateID("refundId", refundID); err != nil {
		return Key{}, err
	}
	return Key{PK: o.PK, SK: l.RefundPrefix + refundID}, nil
}

// Product is a product item.
func (l Layout) Product(productID string) (Key, error) {
	if err := ValidateProductID("productId", productID); err != nil {
		return Key{}, err
	}
	return Key{PK: l.ProductPrefix + productID, SK: l.ProductPrefix + productID}, nil
}

// Idempotency is where the record of an idempotency key lived before
// runtime/idempotency gave each record a partition of its own: inside the
// partition of the entity the operation acts on (the library's
// Request.LegacyPartition). scopeHash is the hex digest computed by
// runtime/idempotency; it never holds the raw key.
func (l Layout) Idempotency(partition, scopeHash string) (Key, error) {
	if partition == "" || strings.ContainsAny(scopeHash, "#/") || scopeHash == "" {
		return Key{}, &InvalidIDError{Kind: "idempotency scope", ID: scopeHash, Reason: "malformed"}
	}
	return Key{PK: partition, SK: l.IdemPrefix + scopeHash}, nil
}

// OrderStatusGSI returns the GSI1 keys of an order in a status.
func (l Layout) OrderStatusGSI(status string, createdAt time.Time, orderID string) (pk, sk string) {
	return l.OrderStatusPrefix + status, Timestamp(createdAt) + "#" + orderID
}

// User is [Layout.User] of [Default].
func User(userID string) (Key, error) { return Default.User(userID) }

// UserPartition is [Layout.UserPartition] of [Default].
func UserPartition(userID string) (string, error) { return Default.UserPartition(userID) }

// Address is [Layout.Address] of [Default].
func Address(userID, addressID string) (Key, error) { return Default.Address(userID, addressID) }

// UserOrder is [Layout.UserOrder] of [Default].
func UserOrder(userID string, createdAt time.Time, orderID string) (Key, error) {
	return Default.UserOrder(userID, createdAt, orderID)
}

// PlatformTotal is the key of shard of the stored total of a platform
// account ("platform:revenue" or "revenue"): PLATFORM#revenue#07, TOTAL.
// Each shard is a partition of its own, so no one partition takes every
// totaller's writes (docs/ledger.md, "Platform totals").
func PlatformTotal(account string, shard int) Key {
	return Key{PK: fmt.Sprintf("%s%s#%02d", PlatformPrefix, strings.TrimPrefix(account, "platform:"), shard), SK: PlatformTotalSK}
}

// Ledger is [Layout.Ledger] of [Default].
func Ledger(userID, entryID string) (Key, error) { return Default.Ledger(userID, entryID) }

// Order is [Layout.Order] of [Default].
func Order(orderID string) (Key, error) { return Default.Order(orderID) }

// OrderItem is [Layout.OrderItem] of [Default].
func OrderItem(orderID string, line int) (Key, error) { return Default.OrderItem(orderID, line) }

// Payment is [Layout.Payment] of [Default].
func Payment(orderID, paymentID string) (Key, error) { return Default.Payment(orderID, paymentID) }

// Product is [Layout.Product] of [Default].
func Product(productID string) (Key, error) { return Default.Product(productID) }

// Idempotency is [Layout.Idempotency] of [Default].
func Idempotency(partition, scopeHash string) (Key, error) {
	return Default.Idempotency(partition, scopeHash)
}

// OrderStatusGSI is [Layout.OrderStatusGSI] of [Default].
func OrderStatusGSI(status string, createdAt time.Time, orderID string) (pk, sk string) {
	return Default.OrderStatusGSI(status, createdAt, orderID)
}

// UnprocessedSK is the sort key of a payment in the Unprocessed index.
func UnprocessedSK(createdAt time.Time, paymentID string) string {
	return Timestamp(createdAt) + "#" + paymentID
}

var idEncoding = base32.NewEncoding("0123456789abcdefghjkmnpqrstvwxyz").WithPadding(base32.NoPadding)

// NewID returns a fresh id such as "pay_01j9…": the prefix, then 48 bits of
// milliseconds and 80 random bits in Crockford base32, so ids sort by
// creation time and never contain a delimiter.
func NewID(prefix string) string { return NewIDAt(prefix, time.Now()) }

// NewIDAt is [NewID] created at now, for a caller with a clock of its own.
func NewIDAt(prefix string, now time.Time) string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(now.UnixMilli())<<16)
	if _, err := rand.Read(b[6:]); err != nil {
		panic("keys: crypto/rand failed: " + err.Error())
	}
	return prefix + "_" + idEncoding.EncodeToString(b[:])
}

// DerivedIDAt is an id like [NewIDAt]'s whose 80 bits after the time are
// the first 80 bits of SHA-256 of seed, not random: a flow passes the hash
// of its (caller, operation, key) (idempotency.Scope.Hash), so every apply
// of one request, in any Region, makes ids that differ at most by their
// time. The time stays so that a ledger entry's key sorts by it and an id
// alone finds its item ([IDTime]); [IDOrigin] is what the applies share.
func DerivedIDAt(prefix string, now time.Time, seed string) string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(now.UnixMilli())<<16)
	sum := sha256.Sum256([]byte(seed))
	copy(b[6:], sum[:10])
	return prefix + "_" + idEncoding.EncodeToString(b[:])
}

// IDOrigin is an id's prefix, its 80 bits after the time (in hex) and its
// suffix: equal for every id that [DerivedIDAt] made of one prefix and
// seed, whenever it made them, and, with overwhelming odds, different for
// any two ids of [NewIDAt]. An id [IDTime] refuses is an [*InvalidIDError].
func IDOrigin(id string) (string, error) {
	prefix, enc, _ := strings.Cut(id, "_")
	if _, err := IDTime(id); err != nil {
		return "", err
	}
	b, _ := idEncoding.DecodeString(enc[:idChars])
	return prefix + "_" + hex.EncodeToString(b[6:]) + enc[idChars:], nil
}

// idChars is the length of an id's encoded part: 128 bits in base32.
const idChars = 26

// IDTime is the creation time, to the millisecond, that an id made by
// [NewIDAt] holds: the 48 bits after the prefix's "_". An id may carry a
// suffix after its encoded part that starts with '-' (a transfer's
// "tr_…-out" and "tr_…-in"). Any other id is an [*InvalidIDError].
func IDTime(id string) (time.Time, error) {
	bad := &InvalidIDError{Kind: "id", ID: id, Reason: "holds no creation time"}
	_, enc, ok := strings.Cut(id, "_")
	if !ok || len(enc) < idChars {
		return time.Time{}, bad
	}
	if rest := enc[idChars:]; rest != "" && rest[0] != '-' {
		return time.Time{}, bad
	}
	b, err := idEncoding.DecodeString(enc[:idChars])
	if err != nil || len(b) != 16 {
		return time.Time{}, bad
	}
	return time.UnixMilli(int64(binary.BigEndian.Uint64(b[:8]) >> 16)).UTC(), nil
}
