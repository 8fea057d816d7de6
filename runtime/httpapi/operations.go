package httpapi

import (
	"errors"
	"net/http"

	"github.com/oncetable/oncetable/runtime/cursor"
	"github.com/oncetable/oncetable/runtime/freeze"
	"github.com/oncetable/oncetable/runtime/home"
	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/idempotency/idemhttp"
	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/metadata"
	"github.com/oncetable/oncetable/runtime/money"
	"github.com/oncetable/oncetable/runtime/payments"
	"github.com/oncetable/oncetable/runtime/retry"
	"github.com/oncetable/oncetable/runtime/store"
)

// KeyRule says whether a route takes an Idempotency-Key header.
type KeyRule string

// Idempotency-Key rules.
const (
	KeyNone     KeyRule = ""         // the header is ignored
	KeyRequired KeyRule = "required" // 400 idempotency-key-missing without it
	// KeyOptional: a POST that moves no money; with a key, a retry replays
	// the first answer instead of answering 409 already-exists.
	KeyOptional KeyRule = "optional"
)

// Param is a query parameter of a route.
type Param struct {
	Name        string
	Description string
	Required    bool
	Enum        []string // allowed values, if a closed set
	Min, Max    int      // integer bounds, when Max > 0
	MaxBytes    int      // string length bound, when > 0
}

// Operation is what the API's OpenAPI document says about one route,
// beside its RouteSpec. The body types are the ones the handler decodes
// into and marshals, so the document is generated from them.
type Operation struct {
	RouteSpec
	Summary      string
	Body         any  // zero value of the request body type; nil: no body
	BodyOptional bool // a body may be sent or omitted
	Status       int  // status of a success
	Response     any  // zero value of the success body type
	Query        []Param
	Key          KeyRule
	// Errors are the sentinels this route answers with, mapped to
	// problem types by the package's one problem table; the ones every
	// route can answer (CommonErrors) are not repeated.
	Errors []error
}

// CommonErrors can be answered by every route.
var CommonErrors = []error{ErrBadRequest, ErrRouteNotFound, ErrMethodNotAllowed, ErrUnauthenticated, ErrForbidden, retry.ErrUnavailable, errInternal}

// errInternal stands for an unexpected failure (500 internal).
var errInternal = errors.New("internal error")

var pageParams = []Param{
	{Name: "limit", Description: "items per page (default 20)", Min: 1, Max: store.MaxPageSize},
	{Name: "cursor", Description: "nextCursor of the previous page", MaxBytes: cursor.MaxLength},
}

var (
	bodyErrors   = []error{ErrUnsupportedMedia, ErrBodyTooLarge}
	keyErrors    = []error{idempotency.ErrKeyMissing, idemhttp.ErrKeyInvalid, idempotency.ErrKeyReused}
	amountErrors = []error{money.ErrInvalidAmount, money.ErrUnknownCurrency}
)

// operations documents every route, by route name.
var operations = map[string]Operation{
	RouteCreateUser: {Summary: "Create a user", Body: CreateUserRequest{}, Status: http.StatusCreated, Response: store.User{},
		Errors: join(bodyErrors, []error{keys.ErrInvalidID, store.ErrAlreadyExists})},
	RouteGetUser: {Summary: "Read a user with addresses and recent orders", Status: http.StatusOK, Response: store.UserView{},
		Errors: []error{keys.ErrInvalidID, store.ErrNotFound}},
	RouteAddAddress: {Summary: "Add an address to a user (at most 10)", Body: AddAddressRequest{}, Status: http.StatusCreated, Response: store.Address{},
		Errors: join(bodyErrors, []error{keys.ErrInvalidID, store.ErrNotFound, store.ErrAlreadyExists, store.ErrLimitReached})},
	RouteCredit: {Summary: "Credit a user's balance", Body: AmountRequest{}, Status: http.StatusCreated, Response: payments.CreditResult{}, Key: KeyRequired,
		Errors: join(bodyErrors, keyErrors, amountErrors, []error{keys.ErrInvalidID, store.ErrNotFound, payments.ErrCurrencyMismatch, payments.ErrBalanceLimit})},
	RouteDebit: {Summary: "Debit a user's balance", Body: AmountRequest{}, Status: http.StatusCreated, Response: payments.DebitResult{}, Key: KeyRequired,
		Errors: join(bodyErrors, keyErrors, amountErrors, []error{keys.ErrInvalidID, store.ErrNotFound, payments.ErrCurrencyMismatch, payments.ErrInsufficientFunds})},
	RouteBalance: {Summary: "Read a user's balance", Status: http.StatusOK, Response: store.Balance{},
		Errors: []error{keys.ErrInvalidID, store.ErrNotFound}},
	RouteLedger: {Summary: "List a user's ledger, newest first", Status: http.StatusOK, Response: store.Page[store.LedgerEntry]{}, Query: pageParams,
		Errors: []error{keys.ErrInvalidID, cursor.ErrInvalid, store.ErrNotFound}},
	RouteLedgerEntry: {Summary: "Read one entry of a user's ledger", Status: http.StatusOK, Response: store.LedgerEntry{},
		Errors: []error{keys.ErrInvalidID, store.ErrNotFound}},
	RouteUserOrders: {Summary: "List a user's orders, newest first", Status: http.StatusOK, Response: store.Page[store.UserOrder]{}, Query: pageParams,
		Errors: []error{keys.ErrInvalidID, cursor.ErrInvalid, store.ErrNotFound}},
	RouteCreateOrder: {Summary: "Create an order", Body: CreateOrderRequest{}, Status: http.StatusCreated, Response: store.OrderView{}, Key: KeyRequired,
		Errors: join(bodyErrors, keyErrors, amountErrors, []error{keys.ErrInvalidID, payments.ErrInvalidOrder, payments.ErrPriceMismatch, payments.ErrCurrencyMismatch, store.ErrNotFound, store.ErrAlreadyExists})},
	RouteGetOrder: {Summary: "Read an order with its items, payments and refunds", Status: http.StatusOK, Response: store.OrderView{},
		Errors: []error{keys.ErrInvalidID, store.ErrNotFound}},
	RouteListOrders: {Summary: "List orders by status", Status: http.StatusOK, Response: store.Page[store.Order]{},
		Query:  append([]Param{{Name: "status", Required: true, Enum: store.OrderStatuses}}, pageParams...),
		Errors: []error{cursor.ErrInvalid}},
	RouteCharge: {Summary: "Charge an order's total", Body: AmountRequest{}, Status: http.StatusCreated, Response: payments.ChargeResult{}, Key: KeyRequired,
		Errors: join(bodyErrors, keyErrors, amountErrors, []error{keys.ErrInvalidID, store.ErrNotFound, payments.ErrAlreadyPaid, payments.ErrOrderCancelled, payments.ErrAmountMismatch, payments.ErrCurrencyMismatch})},
	RouteGetPayment: {Summary: "Read a payment of an order", Status: http.StatusOK, Response: store.Payment{},
		Errors: []error{keys.ErrInvalidID, store.ErrNotFound}},
	RouteSettle: {Summary: "Settle an order from the user's balance; its metadata goes on its ledger entry and its keys are set on the order's", Body: OptionalAmountRequest{}, BodyOptional: true, Status: http.StatusOK, Response: store.Order{}, Key: KeyRequired,
		Errors: join(bodyErrors, keyErrors, amountErrors, []error{keys.ErrInvalidID, store.ErrNotFound, payments.ErrAlreadyPaid, payments.ErrOrderCancelled, payments.ErrAmountMismatch,
			payments.ErrCurrencyMismatch, payments.ErrInsufficientFunds, payments.ErrNotCharged})},
	RouteUnprocessed: {Summary: "List payments not processed yet, oldest first", Status: http.StatusOK, Response: store.Page[store.Payment]{}, Query: pageParams,
		Errors: []error{cursor.ErrInvalid}},
	RouteProcessPayment: {Summary: "Mark a payment processed", Status: http.StatusOK, Response: store.Payment{},
		Errors: join(bodyErrors, []error{keys.ErrInvalidID, store.ErrNotFound, store.ErrPaymentVoided})},
	RouteCreateProduct: {Summary: "Create a product", Body: CreateProductRequest{}, Status: http.StatusCreated, Response: store.Product{},
		Errors: join(bodyErrors, amountErrors, []error{keys.ErrInvalidID, store.ErrAlreadyExists})},
	RouteGetProduct: {Summary: "Read a product", Status: http.StatusOK, Response: store.Product{},
		Errors: []error{keys.ErrInvalidID, store.ErrNotFound}},
	RouteTransfer: {Summary: "Transfer money to another user", Body: TransferRequest{}, Status: http.StatusCreated, Response: payments.TransferResult{}, Key: KeyRequired,
		Errors: join(bodyErrors, keyErrors, amountErrors, []error{keys.ErrInvalidID, payments.ErrSameAccount, store.ErrNotFound, payments.ErrCurrencyMismatch,
			payments.ErrInsufficientFunds, payments.ErrBalanceLimit, home.ErrSplitHomes})},
	RouteAuthorizeHold: {Summary: "Hold part of a user's balance until it is captured, voided or expires", Body: HoldRequest{}, Status: http.StatusCreated, Response: store.Hold{}, Key: KeyRequired,
		Errors: join(bodyErrors, keyErrors, amountErrors, []error{keys.ErrInvalidID, payments.ErrInvalidHold, store.ErrNotFound, payments.ErrCurrencyMismatch,
			payments.ErrInsufficientFunds, payments.ErrTooManyHolds})},
	RouteGetHold: {Summary: "Read a hold", Status: http.StatusOK, Response: store.Hold{},
		Errors: []error{keys.ErrInvalidID, store.ErrNotFound}},
	RouteCaptureHold: {Summary: "Capture a hold in full or in part; the rest returns to the balance", Body: AmountRequest{}, Status: http.StatusOK, Response: store.Hold{}, Key: KeyRequired,
		Errors: join(bodyErrors, keyErrors, amountErrors, []error{keys.ErrInvalidID, store.ErrNotFound, payments.ErrCurrencyMismatch, payments.ErrExceedsHold,
			payments.ErrHoldNotOpen, payments.ErrHoldExpired})},
	RouteVoidHold: {Summary: "Void a hold; its money returns to the balance, its metadata's keys are set on the hold's", Body: VoidRequest{}, BodyOptional: true, Status: http.StatusOK, Response: store.Hold{}, Key: KeyRequired,
		Errors: join(bodyErrors, keyErrors, []error{keys.ErrInvalidID, store.ErrNotFound, payments.ErrHoldNotOpen})},
	RouteRefund: {Summary: "Refund a paid order in full or in part, to the balance it was paid from; no body (or {}) refunds all that is left",
		Body: OptionalAmountRequest{}, BodyOptional: true, Status: http.StatusCreated, Response: store.Refund{}, Key: KeyRequired,
		Errors: join(bodyErrors, keyErrors, amountErrors, []error{keys.ErrInvalidID, store.ErrNotFound, payments.ErrNotPaid, payments.ErrExceedsRefundable,
			payments.ErrCurrencyMismatch, payments.ErrBalanceLimit})},
	RouteListRefunds: {Summary: "List an order's refunds, oldest first", Status: http.StatusOK, Response: store.Page[store.Refund]{}, Query: pageParams,
		Errors: []error{keys.ErrInvalidID, cursor.ErrInvalid, store.ErrNotFound}},
	RouteGetRefund: {Summary: "Read a refund of an order", Status: http.StatusOK, Response: store.Refund{},
		Errors: []error{keys.ErrInvalidID, store.ErrNotFound}},
	RouteCancelOrder: {Summary: "Cancel an order that is not paid yet, voiding its payment; a paid order is refunded instead (POST /orders/{orderId}/refunds)",
		Status: http.StatusOK, Response: store.Order{}, Key: KeyRequired,
		Errors: join(bodyErrors, keyErrors, []error{keys.ErrInvalidID, store.ErrNotFound, payments.ErrOrderCancelled, payments.ErrRefundRequired})},
	RouteShipOrder: {Summary: "Ship a paid order (or one refunded in part); no body",
		Status: http.StatusOK, Response: store.Order{}, Key: KeyRequired,
		Errors: join(bodyErrors, keyErrors, []error{keys.ErrInvalidID, store.ErrNotFound, payments.ErrOrderCancelled, payments.ErrInvalidTransition})},
	RouteDeliverOrder: {Summary: "Mark a shipped order delivered; no body",
		Status: http.StatusOK, Response: store.Order{}, Key: KeyRequired,
		Errors: join(bodyErrors, keyErrors, []error{keys.ErrInvalidID, store.ErrNotFound, payments.ErrOrderCancelled, payments.ErrInvalidTransition})},
	RouteListProducts: {Summary: "List featured products", Status: http.StatusOK, Response: store.Page[store.Product]{},
		Query:  append([]Param{{Name: "featured", Required: true, Enum: []string{"true"}, Description: "only the featured listing exists (a full one would need a Scan)"}}, pageParams...),
		Errors: []error{cursor.ErrInvalid}},
}

func join(lists ...[]error) []error {
	var out []error
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// Operations returns the documented route table in declaration order.
func Operations() []Operation {
	var out []Operation
	for _, r := range Routes() {
		op := operations[r.Name]
		op.RouteSpec = r
		if r.Flow != "" {
			// Every money flow is behind the kill switch and, with homes,
			// served by its users' home Region.
			op.Errors = append(append([]error(nil), op.Errors...), freeze.ErrFrozen, ErrWrongRegion, home.ErrFrozen)
		}
		if l, ok := op.Body.(Limited); ok && l.Limits()["metadata"].Metadata {
			op.Errors = append(append([]error(nil), op.Errors...), metadata.ErrInvalid)
		}
		if op.Key == KeyNone && r.Method == http.MethodPost && r.Flow == "" {
			op.Key = KeyOptional
			op.Errors = append(append([]error(nil), op.Errors...), idemhttp.ErrKeyInvalid, idempotency.ErrKeyReused)
		}
		out = append(out, op)
	}
	return out
}

// ProblemType is one problem type of the API.
type ProblemType struct {
	Type   string // full URI, ProblemTypeBase + slug
	Code   string // the Problem's code member
	Status int
	Title  string
	// Stored: a money flow declined with this problem stores it under the
	// request's Idempotency-Key, and a retry with the key replays it.
	Stored bool
}

// ProblemOf returns the problem type that err is answered with.
func ProblemOf(err error) ProblemType {
	if errors.Is(err, errInternal) {
		return ProblemType{Type: ProblemTypeBase + "internal", Code: "internal", Status: http.StatusInternalServerError, Title: "Internal error"}
	}
	for _, m := range problems {
		if errors.Is(err, m.err) {
			return ProblemType{Type: ProblemTypeBase + m.slug, Code: code(m.slug), Status: m.status, Title: m.title, Stored: payments.Declined(m.err)}
		}
	}
	return ProblemOf(errInternal)
}

// ProblemTypes lists every problem type of the API, as the problem table
// maps errors to them, without repeats.
func ProblemTypes() []ProblemType {
	seen := map[string]bool{}
	var out []ProblemType
	for _, m := range problems {
		if !seen[m.slug] {
			seen[m.slug] = true
			out = append(out, ProblemType{Type: ProblemTypeBase + m.slug, Code: code(m.slug), Status: m.status, Title: m.title, Stored: payments.Declined(m.err)})
		}
	}
	return append(out, ProblemOf(errInternal))
}
