package httpapi

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/metadata"
	"github.com/oncetable/oncetable/runtime/payments"
)

// Limit is the constraint on one field of a request body. The handler
// checks it and the OpenAPI document (runtime/httpapi/openapi) states it,
// from this one value, so the two cannot disagree.
type Limit struct {
	Required bool
	// Text fields: at most MaxBytes bytes of UTF-8 without control
	// characters; Pattern, when set, is the ECMA-262 pattern they match.
	MaxBytes int
	Pattern  string
	Format   string // JSON Schema format, such as "email"
	// Enum, when set, is the closed set of values a text field takes.
	Enum []string
	// ProductID fields are ID fields that follow keys.ValidateProductID
	// (ASCII letters, digits and -_.:~).
	ProductID bool
	// ID fields follow keys.ValidateID (1..keys.MaxIDLength bytes, no '#',
	// '/', white space or control characters).
	ID bool
	// Amount fields are JSON integers of minor units, 1..money.MaxMinor.
	Amount bool
	// Currency fields are ISO 4217 codes of money.Currencies.
	Currency bool
	// Integer fields are JSON integers Min..Max.
	Min, Max int64
	// Array fields hold MinItems..MaxItems elements.
	MinItems, MaxItems int
	// Metadata fields are JSON objects of strings bounded as the metadata
	// package says (metadata.Validate).
	Metadata bool
}

// Limited is a request body type that states the limits of its fields,
// by JSON name.
type Limited interface {
	Limits() map[string]Limit
}

// Text limits of the request bodies, in bytes.
const (
	MaxNameBytes       = 200
	MaxEmailBytes      = 254
	MaxLineBytes       = 200
	MaxCityBytes       = 100
	MaxPostalCodeBytes = 20
)

// metadataLimit is the limit of every request's "metadata".
var metadataLimit = Limit{Metadata: true}

// CreateUserRequest is the body of POST /users.
type CreateUserRequest struct {
	UserID   string            `json:"userId"`
	Name     string            `json:"name"`
	Email    string            `json:"email"`
	Metadata metadata.Metadata `json:"metadata,omitempty"`
}

// Limits implements Limited.
func (CreateUserRequest) Limits() map[string]Limit {
	return map[string]Limit{
		"userId":   {Required: true, ID: true},
		"name":     {Required: true, MaxBytes: MaxNameBytes},
		"email":    {Required: true, MaxBytes: MaxEmailBytes, Format: "email"},
		"metadata": metadataLimit,
	}
}

// AddAddressRequest is the body of POST /users/{userId}/addresses.
type AddAddressRequest struct {
	AddressID  string `json:"addressId"`
	Line1      string `json:"line1"`
	Line2      string `json:"line2"`
	City       string `json:"city"`
	PostalCode string `json:"postalCode"`
	Country    string `json:"country"`
}

// Limits implements Limited.
func (AddAddressRequest) Limits() map[string]Limit {
	return map[string]Limit{
		"addressId":  {Required: true, ID: true},
		"line1":      {Required: true, MaxBytes: MaxLineBytes},
		"line2":      {MaxBytes: MaxLineBytes},
		"city":       {Required: true, MaxBytes: MaxCityBytes},
		"postalCode": {Required: true, MaxBytes: MaxPostalCodeBytes},
		"country":    {Required: true, MaxBytes: 2, Enum: countries},
	}
}

// AmountRequest is the body of a credit, a debit, a charge and a capture.
type AmountRequest struct {
	Amount   json.RawMessage   `json:"amount"`
	Currency string            `json:"currency"`
	Metadata metadata.Metadata `json:"metadata,omitempty"`
}

// Limits implements Limited.
func (AmountRequest) Limits() map[string]Limit {
	return map[string]Limit{"amount": {Required: true, Amount: true}, "currency": {Required: true, Currency: true}, "metadata": metadataLimit}
}

// OptionalAmountRequest is the optional body of a settle (the amount, when
// named, must be the order's total) and of a refund (without an amount it
// refunds all that is left): amount and currency together or neither.
type OptionalAmountRequest struct {
	Amount   json.RawMessage   `json:"amount,omitempty"`
	Currency string            `json:"currency,omitempty"`
	Metadata metadata.Metadata `json:"metadata,omitempty"`
}

// Limits implements Limited.
func (OptionalAmountRequest) Limits() map[string]Limit {
	return map[string]Limit{"amount": {Amount: true}, "currency": {Currency: true}, "metadata": metadataLimit}
}

// VoidRequest is the optional body of a void.
type VoidRequest struct {
	Metadata metadata.Metadata `json:"metadata,omitempty"`
}

// Limits implements Limited.
func (VoidRequest) Limits() map[string]Limit { return map[string]Limit{"metadata": metadataLimit} }

// TransferRequest is the body of POST /users/{userId}/transfers.
type TransferRequest struct {
	ToUserID string            `json:"toUserId"`
	Amount   json.RawMessage   `json:"amount"`
	Currency string            `json:"currency"`
	Metadata metadata.Metadata `json:"metadata,omitempty"`
}

// Limits implements Limited.
func (TransferRequest) Limits() map[string]Limit {
	return map[string]Limit{"toUserId": {Required: true, ID: true}, "amount": {Required: true, Amount: true}, "currency": {Required: true, Currency: true},
		"metadata": metadataLimit}
}

// HoldRequest is the body of POST /users/{userId}/holds.
type HoldRequest struct {
	Amount           json.RawMessage   `json:"amount"`
	Currency         string            `json:"currency"`
	ExpiresInSeconds json.RawMessage   `json:"expiresInSeconds,omitempty"`
	Metadata         metadata.Metadata `json:"metadata,omitempty"`
}

// Limits implements Limited.
func (HoldRequest) Limits() map[string]Limit {
	return map[string]Limit{"amount": {Required: true, Amount: true}, "currency": {Required: true, Currency: true},
		"expiresInSeconds": {Min: int64(payments.MinHoldExpiry.Seconds()), Max: int64(payments.MaxHoldExpiry.Seconds())},
		"metadata":         metadataLimit}
}

// CreateOrderRequest is the body of POST /users/{userId}/orders.
type CreateOrderRequest struct {
	OrderID  string             `json:"orderId"`
	Currency string             `json:"currency"`
	Items    []OrderLineRequest `json:"items"`
	Metadata metadata.Metadata  `json:"metadata,omitempty"`
}

// Limits implements Limited.
func (CreateOrderRequest) Limits() map[string]Limit {
	return map[string]Limit{
		"orderId":  {ID: true},
		"currency": {Required: true, Currency: true},
		"items":    {Required: true, MinItems: 1, MaxItems: payments.MaxOrderItems},
		"metadata": metadataLimit,
	}
}

// OrderLineRequest is one line of a CreateOrderRequest.
type OrderLineRequest struct {
	ProductID string          `json:"productId"`
	Quantity  json.RawMessage `json:"quantity"`
	UnitPrice json.RawMessage `json:"unitPrice"`
}

// Limits implements Limited.
func (OrderLineRequest) Limits() map[string]Limit {
	return map[string]Limit{
		"productId": {Required: true, ID: true, ProductID: true},
		"quantity":  {Required: true, Min: 1, Max: payments.MaxQuantity},
		"unitPrice": {Required: true, Amount: true},
	}
}

// CreateProductRequest is the body of POST /products.
type CreateProductRequest struct {
	ProductID string          `json:"productId"`
	Name      string          `json:"name"`
	Price     json.RawMessage `json:"price"`
	Currency  string          `json:"currency"`
	Featured  bool            `json:"featured"`
}

// Limits implements Limited.
func (CreateProductRequest) Limits() map[string]Limit {
	return map[string]Limit{
		"productId": {Required: true, ID: true, ProductID: true},
		"name":      {Required: true, MaxBytes: MaxNameBytes},
		"price":     {Required: true, Amount: true},
		"currency":  {Required: true, Currency: true},
		"featured":  {},
	}
}

// checkText applies a text Limit to the field's value.
func checkText(field, v string, l Limit) error {
	switch {
	case v == "" && l.Required:
		return fmt.Errorf("%w: %q is required", ErrBadRequest, field)
	case len(v) > l.MaxBytes:
		return fmt.Errorf("%w: %q must be at most %d bytes", ErrBadRequest, field, l.MaxBytes)
	case !utf8.ValidString(v):
		return fmt.Errorf("%w: %q must be valid UTF-8", ErrBadRequest, field)
	}
	for _, r := range v {
		if r < 0x20 || r == 0x7f {
			return fmt.Errorf("%w: %q must not contain control characters", ErrBadRequest, field)
		}
	}
	return nil
}

// checkFields applies the text limits of t to name, value pairs, in order.
func checkFields(t Limited, pairs ...string) error {
	limits := t.Limits()
	for i := 0; i+1 < len(pairs); i += 2 {
		if err := checkText(pairs[i], pairs[i+1], limits[pairs[i]]); err != nil {
			return atParam(pairs[i], err)
		}
	}
	return nil
}

// requiredID validates the id a creating POST must carry. The client
// chooses it, so a retry of the same request names the same entity and
// gets 409 already-exists instead of creating a second one (these routes
// take no Idempotency-Key; orders, which do, may leave orderId out).
func requiredID(kind, v string) (string, error) {
	if v == "" {
		return "", atParam(kind, fmt.Errorf("%w: %q is required: choose the id, so that a retry cannot create a second %s", keys.ErrInvalidID, kind, strings.TrimSuffix(kind, "Id")))
	}
	if kind == "productId" {
		return v, keys.ValidateProductID(kind, v)
	}
	return keys.CanonicalID(kind, v)
}
