package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/aws/aws-lambda-go/events"

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

// ProblemTypeBase prefixes every problem type URI.
const ProblemTypeBase = "urn:oncetable:problem:"

// Problem is an RFC 9457 problem details body.
type Problem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail"`
	// Code is the problem type's slug in snake case ("insufficient_funds"):
	// the member a client switches on. An RFC 9457 extension member.
	Code string `json:"code"`
	// Param names the one request member at fault, when there is one: a
	// body field ("amount", "items[2].quantity"), a path or query parameter
	// ("orderId", "limit") or a header ("Idempotency-Key").
	Param string `json:"param,omitempty"`
	// Extension members of particular problems.
	Available *int64 `json:"available,omitempty"`
	Requested *int64 `json:"requested,omitempty"`
	Currency  string `json:"currency,omitempty"`
	Expected  *int64 `json:"expected,omitempty"`
	// Region is the home Region of the user a money request is for, when
	// the request did not reach it (wrong-region, home-unavailable).
	Region string `json:"region,omitempty"`
}

// HTTP-level errors of this package.
var (
	ErrBadRequest       = errors.New("bad request")
	ErrBodyTooLarge     = errors.New("request body too large")
	ErrUnsupportedMedia = errors.New("unsupported media type")
	ErrRouteNotFound    = errors.New("no such route")
	ErrMethodNotAllowed = errors.New("method not allowed")
)

// mapping is one row of the error -> problem table.
type mapping struct {
	err     error
	status  int
	slug    string
	title   string
	outcome string
}

// problems is THE error -> problem+json table, most specific first.
var problems = []mapping{
	{idempotency.ErrKeyReused, http.StatusUnprocessableEntity, "idempotency-key-reused", "Idempotency-Key reused with a different request", "key_reused"},
	{idempotency.ErrKeyMissing, http.StatusBadRequest, "idempotency-key-missing", "Idempotency-Key header required", "invalid"},
	{idemhttp.ErrKeyInvalid, http.StatusBadRequest, "idempotency-key-invalid", "Invalid Idempotency-Key", "invalid"},
	{payments.ErrInsufficientFunds, http.StatusPaymentRequired, "insufficient-funds", "Insufficient funds", "insufficient_funds"},
	{payments.ErrAlreadyPaid, http.StatusConflict, "already-paid", "Order already paid", "already_paid"},
	{payments.ErrOrderCancelled, http.StatusConflict, "order-cancelled", "Order cancelled", "order_cancelled"},
	{payments.ErrRefundRequired, http.StatusConflict, "refund-required", "Order paid: refund it instead", "refund_required"},
	{payments.ErrInvalidTransition, http.StatusConflict, "invalid-transition", "Order cannot make that fulfilment step", "invalid_transition"},
	{payments.ErrNotCharged, http.StatusConflict, "not-charged", "Order not charged", "not_charged"},
	{payments.ErrAmountMismatch, http.StatusUnprocessableEntity, "amount-mismatch", "Amount does not match the order", "amount_mismatch"},
	{payments.ErrCurrencyMismatch, http.StatusUnprocessableEntity, "currency-mismatch", "Currency does not match the balance or the order", "currency_mismatch"},
	{payments.ErrBalanceLimit, http.StatusUnprocessableEntity, "balance-limit", "Balance would exceed the maximum", "balance_limit"},
	{payments.ErrInvalidOrder, http.StatusBadRequest, "invalid-order", "Invalid order", "invalid"},
	{payments.ErrPriceMismatch, http.StatusUnprocessableEntity, "price-mismatch", "Unit price differs from the catalogue", "price_mismatch"},
	{payments.ErrSameAccount, http.StatusBadRequest, "invalid-transfer", "Invalid transfer", "invalid"},
	{payments.ErrInvalidHold, http.StatusBadRequest, "invalid-hold", "Invalid hold", "invalid"},
	{payments.ErrHoldNotOpen, http.StatusConflict, "hold-not-open", "Hold is not open", "hold_not_open"},
	{payments.ErrHoldExpired, http.StatusConflict, "hold-expired", "Hold expired", "hold_expired"},
	{payments.ErrExceedsHold, http.StatusUnprocessableEntity, "amount-exceeds-hold", "Amount exceeds the hold", "exceeds_hold"},
	{payments.ErrTooManyHolds, http.StatusConflict, "too-many-holds", "Too many open holds", "conflict"},
	{payments.ErrNotPaid, http.StatusConflict, "not-paid", "Order not paid", "not_paid"},
	{payments.ErrExceedsRefundable, http.StatusUnprocessableEntity, "amount-exceeds-refundable", "Amount exceeds what is left to refund", "exceeds_refundable"},
	{store.ErrAlreadyExists, http.StatusConflict, "already-exists", "Already exists", "conflict"},
	{store.ErrLimitReached, http.StatusConflict, "limit-reached", "Limit reached", "conflict"},
	{store.ErrPaymentVoided, http.StatusConflict, "payment-voided", "Payment voided", "conflict"},
	{ErrNotOwner, http.StatusNotFound, "not-found", "Not found", "not_owner"},
	{store.ErrNotFound, http.StatusNotFound, "not-found", "Not found", "not_found"},
	{ErrUnauthenticated, http.StatusUnauthorized, "unauthenticated", "Unauthenticated", "unauthenticated"},
	{ErrForbidden, http.StatusForbidden, "forbidden", "Forbidden", "forbidden"},
	{keys.ErrInvalidID, http.StatusBadRequest, "invalid-id", "Invalid identifier", "invalid"},
	{money.ErrInvalidAmount, http.StatusBadRequest, "invalid-amount", "Invalid amount", "invalid"},
	{money.ErrOverflow, http.StatusBadRequest, "invalid-amount", "Invalid amount", "invalid"},
	{money.ErrUnknownCurrency, http.StatusBadRequest, "unknown-currency", "Unknown currency", "invalid"},
	{money.ErrCurrencyMismatch, http.StatusBadRequest, "invalid-amount", "Invalid amount", "invalid"},
	{cursor.ErrInvalid, http.StatusBadRequest, "invalid-cursor", "Invalid cursor", "invalid"},
	{metadata.ErrInvalid, http.StatusBadRequest, "invalid-metadata", "Invalid metadata", "invalid"},
	{ErrBodyTooLarge, http.StatusRequestEntityTooLarge, "body-too-large", "Request body too large", "invalid"},
	{ErrBadRequest, http.StatusBadRequest, "bad-request", "Bad request", "invalid"},
	{ErrUnsupportedMedia, http.StatusUnsupportedMediaType, "unsupported-media-type", "Content-Type must be application/json", "invalid"},
	{ErrRouteNotFound, http.StatusNotFound, "route-not-found", "No such route", "not_found"},
	{ErrMethodNotAllowed, http.StatusMethodNotAllowed, "method-not-allowed", "Method not allowed", "invalid"},
	{retry.ErrUnavailable, http.StatusServiceUnavailable, "unavailable", "Service temporarily unavailable", "unavailable"},
	{freeze.ErrFrozen, http.StatusServiceUnavailable, "frozen", "Money movement paused by the operators", "frozen"},
	{ErrWrongRegion, http.StatusMisdirectedRequest, "wrong-region", "The user's money is homed in another Region", "wrong_region"},
	{home.ErrFrozen, http.StatusServiceUnavailable, "home-unavailable", "The user's home Region is unavailable", "unavailable"},
	{home.ErrSplitHomes, http.StatusConflict, "cross-region-transfer", "The two users' money is homed in different Regions", "cross_region_transfer"},
}

// ParamError is an error caused by one request member, named by Param as
// the Problem's param member.
type ParamError struct {
	Param string
	Err   error
}

func (e *ParamError) Error() string { return e.Err.Error() }
func (e *ParamError) Unwrap() error { return e.Err }

// atParam names the request member that err is about; nil stays nil.
func atParam(param string, err error) error {
	if err == nil {
		return nil
	}
	return &ParamError{Param: param, Err: err}
}

// paramOf is the request member an error names: a ParamError's, an invalid
// id's field, or the cursor.
func paramOf(err error) string {
	var pe *ParamError
	if errors.As(err, &pe) {
		return pe.Param
	}
	var ie *keys.InvalidIDError
	if errors.As(err, &ie) {
		return ie.Kind
	}
	var me *metadata.Error
	if errors.As(err, &me) {
		return me.Param
	}
	if errors.Is(err, cursor.ErrInvalid) {
		return "cursor"
	}
	return ""
}

// code is the snake-case form of a problem slug.
func code(slug string) string { return strings.ReplaceAll(slug, "-", "_") }

// problemFor maps err to a problem response and the outcome to log.
func problemFor(err error) (events.APIGatewayV2HTTPResponse, string) {
	p, outcome := problemOf(err)
	return encodeProblem(p, err), outcome
}

// problemOf is the Problem that err is answered with and the outcome to log.
func problemOf(err error) (Problem, string) {
	p := Problem{Type: ProblemTypeBase + "internal", Title: "Internal error", Status: http.StatusInternalServerError,
		Detail: "the request failed unexpectedly; it is safe to retry with the same Idempotency-Key", Code: "internal"}
	outcome := "error"
	for _, m := range problems {
		if errors.Is(err, m.err) {
			p = Problem{Type: ProblemTypeBase + m.slug, Title: m.title, Status: m.status, Detail: err.Error(), Code: code(m.slug), Param: paramOf(err)}
			outcome = m.outcome
			break
		}
	}
	return p, outcome
}

// encodeProblem writes p, with the members and headers err adds.
func encodeProblem(p Problem, err error) events.APIGatewayV2HTTPResponse {
	headers := map[string]string{"Content-Type": "application/problem+json"}
	var ife *payments.InsufficientFundsError
	if errors.As(err, &ife) {
		p.Available, p.Requested, p.Currency = &ife.Available.Minor, &ife.Requested.Minor, string(ife.Requested.Currency)
	}
	var ame *payments.AmountMismatchError
	if errors.As(err, &ame) {
		p.Expected, p.Requested, p.Currency = &ame.Expected.Minor, &ame.Got.Minor, string(ame.Expected.Currency)
	}
	var ehe *payments.ExceedsHoldError
	if errors.As(err, &ehe) {
		p.Available, p.Requested, p.Currency = &ehe.Held.Minor, &ehe.Requested.Minor, string(ehe.Held.Currency)
	}
	var re *payments.RefundableError
	if errors.As(err, &re) {
		p.Available, p.Requested, p.Currency = &re.Refundable.Minor, &re.Requested.Minor, string(re.Refundable.Currency)
	}
	var ue *retry.UnavailableError
	if errors.As(err, &ue) {
		secs := int(ue.RetryAfter.Seconds())
		if secs < 1 {
			secs = 1
		}
		headers["Retry-After"] = strconv.Itoa(secs)
		p.Detail = "the database is busy (" + string(ue.Kind) + "); retry after " + strconv.Itoa(secs) + "s with the same Idempotency-Key"
	}
	var fe *freeze.FrozenError
	if errors.As(err, &fe) {
		headers["Retry-After"] = strconv.Itoa(max(1, int(fe.RetryAfter.Seconds())))
	}
	var hfe *home.FrozenError
	if errors.As(err, &hfe) {
		headers["Retry-After"] = strconv.Itoa(max(1, int(hfe.RetryAfter.Seconds())))
		p.Region = hfe.Home
	}
	var wre *WrongRegionError
	if errors.As(err, &wre) {
		p.Region = wre.Home
	}
	if p.Status == http.StatusMethodNotAllowed {
		var mna *methodNotAllowedError
		if errors.As(err, &mna) {
			headers["Allow"] = mna.allow
		}
	}
	body, _ := json.Marshal(p)
	return events.APIGatewayV2HTTPResponse{StatusCode: p.Status, Headers: headers, Body: withNewline(body)}
}

type methodNotAllowedError struct{ allow string }

func (e *methodNotAllowedError) Error() string { return "method not allowed; allowed: " + e.allow }
func (e *methodNotAllowedError) Unwrap() error { return ErrMethodNotAllowed }
