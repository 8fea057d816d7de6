package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/mail"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/metadata"
	"github.com/oncetable/oncetable/runtime/money"
	"github.com/oncetable/oncetable/runtime/payments"
	"github.com/oncetable/oncetable/runtime/store"
)

// Route names, for API.Only.
const (
	RouteCreateUser     = "createUser"
	RouteGetUser        = "getUser"
	RouteAddAddress     = "addAddress"
	RouteCredit         = "credit"
	RouteDebit          = "debit"
	RouteBalance        = "balance"
	RouteLedger         = "ledger"
	RouteLedgerEntry    = "ledgerEntry"
	RouteUserOrders     = "userOrders"
	RouteCreateOrder    = "createOrder"
	RouteGetOrder       = "getOrder"
	RouteListOrders     = "listOrders"
	RouteCharge         = "charge"
	RouteGetPayment     = "getPayment"
	RouteSettle         = "settle"
	RouteUnprocessed    = "unprocessedPayments"
	RouteProcessPayment = "processPayment"
	RouteCreateProduct  = "createProduct"
	RouteGetProduct     = "getProduct"
	RouteListProducts   = "listProducts"
	RouteTransfer       = "transfer"
	RouteAuthorizeHold  = "authorizeHold"
	RouteGetHold        = "getHold"
	RouteCaptureHold    = "captureHold"
	RouteVoidHold       = "voidHold"
	RouteRefund         = "refund"
	RouteGetRefund      = "getRefund"
	RouteListRefunds    = "listRefunds"
	RouteCancelOrder    = "cancelOrder"
	RouteShipOrder      = "shipOrder"
	RouteDeliverOrder   = "deliverOrder"
)

// Who may call a route: the roles it admits and, for a customer, whose
// data it names. docs/runtime.md argues the table.
var (
	// ownUser: a customer for itself, a service or an operator for anyone.
	ownUser = access{roles: []Role{RoleCustomer, RoleService, RoleOperator}, owner: OwnerUser}
	// ownOrder: likewise, the user being the order's.
	ownOrder = access{roles: []Role{RoleCustomer, RoleService, RoleOperator}, owner: OwnerOrder}
	// catalogue: anyone with a role; it names no user.
	catalogue = access{roles: []Role{RoleCustomer, RoleService, RoleOperator}}
	// backend: onboarding users, which no customer does for itself.
	backend = access{roles: []Role{RoleService, RoleOperator}}
	// merchant: closing a user's hold, which the customer who granted it
	// must not undo (a void would free what was promised to the merchant).
	merchant = access{roles: []Role{RoleService, RoleOperator}, owner: OwnerUser}
	// merchantOrder: giving an order's money back, which the customer
	// who paid must not do for itself (it would keep the goods and the
	// money).
	merchantOrder = access{roles: []Role{RoleService, RoleOperator}, owner: OwnerOrder}
	// fulfilment: shipping and delivering an order, which the customer
	// must not claim for itself (a delivered order is one it got).
	fulfilment = access{roles: []Role{RoleService, RoleOperator}, owner: OwnerOrder}
	// backOffice: creating money, setting prices, the queues across users.
	backOffice = access{roles: []Role{RoleOperator}}
)

// access is who may call a route.
type access struct {
	roles []Role
	owner Owner
}

func (a *API) table() []route {
	r := func(name, method, pattern, flow string, who access, h func(context.Context, *call) (reply, error)) route {
		return route{name: name, method: method, pattern: strings.Split(strings.Trim(pattern, "/"), "/"), flow: flow,
			roles: who.roles, owner: who.owner, handle: h}
	}
	return []route{
		r(RouteCreateUser, http.MethodPost, "/users", "", backend, a.createUser),
		r(RouteGetUser, http.MethodGet, "/users/{userId}", "", ownUser, a.getUser),
		r(RouteAddAddress, http.MethodPost, "/users/{userId}/addresses", "", ownUser, a.addAddress),
		r(RouteCredit, http.MethodPost, "/users/{userId}/credits", payments.FlowCredit, backOffice, a.credit),
		r(RouteDebit, http.MethodPost, "/users/{userId}/debits", payments.FlowDebit, ownUser, a.debit),
		r(RouteBalance, http.MethodGet, "/users/{userId}/balance", "", ownUser, a.balance),
		r(RouteLedger, http.MethodGet, "/users/{userId}/ledger", "", ownUser, a.ledger),
		r(RouteLedgerEntry, http.MethodGet, "/users/{userId}/ledger/{entryId}", "", ownUser, a.ledgerEntry),
		r(RouteUserOrders, http.MethodGet, "/users/{userId}/orders", "", ownUser, a.userOrders),
		r(RouteCreateOrder, http.MethodPost, "/users/{userId}/orders", payments.FlowCreateOrder, ownUser, a.createOrder),
		r(RouteGetOrder, http.MethodGet, "/orders/{orderId}", "", ownOrder, a.getOrder),
		r(RouteListOrders, http.MethodGet, "/orders", "", backOffice, a.listOrders),
		r(RouteCharge, http.MethodPost, "/orders/{orderId}/payments", payments.FlowCharge, ownOrder, a.charge),
		r(RouteGetPayment, http.MethodGet, "/orders/{orderId}/payments/{paymentId}", "", ownOrder, a.getPayment),
		r(RouteSettle, http.MethodPost, "/orders/{orderId}/settle", payments.FlowSettle, ownOrder, a.settle),
		r(RouteUnprocessed, http.MethodGet, "/payments/unprocessed", "", backOffice, a.unprocessed),
		r(RouteProcessPayment, http.MethodPost, "/orders/{orderId}/payments/{paymentId}/process", "", backOffice, a.processPayment),
		r(RouteCreateProduct, http.MethodPost, "/products", "", backOffice, a.createProduct),
		r(RouteGetProduct, http.MethodGet, "/products/{productId}", "", catalogue, a.getProduct),
		r(RouteListProducts, http.MethodGet, "/products", "", catalogue, a.listProducts),
		r(RouteTransfer, http.MethodPost, "/users/{userId}/transfers", payments.FlowTransfer, ownUser, a.transfer),
		r(RouteAuthorizeHold, http.MethodPost, "/users/{userId}/holds", payments.FlowAuthorize, ownUser, a.authorizeHold),
		r(RouteGetHold, http.MethodGet, "/users/{userId}/holds/{holdId}", "", ownUser, a.getHold),
		r(RouteCaptureHold, http.MethodPost, "/users/{userId}/holds/{holdId}/capture", payments.FlowCapture, merchant, a.captureHold),
		r(RouteVoidHold, http.MethodPost, "/users/{userId}/holds/{holdId}/void", payments.FlowVoid, merchant, a.voidHold),
		r(RouteRefund, http.MethodPost, "/orders/{orderId}/refunds", payments.FlowRefund, merchantOrder, a.refund),
		r(RouteListRefunds, http.MethodGet, "/orders/{orderId}/refunds", "", ownOrder, a.listRefunds),
		r(RouteGetRefund, http.MethodGet, "/orders/{orderId}/refunds/{refundId}", "", ownOrder, a.getRefund),
		r(RouteCancelOrder, http.MethodPost, "/orders/{orderId}/cancel", payments.FlowCancel, ownOrder, a.cancelOrder),
		r(RouteShipOrder, http.MethodPost, "/orders/{orderId}/ship", payments.FlowShip, fulfilment, a.shipOrder),
		r(RouteDeliverOrder, http.MethodPost, "/orders/{orderId}/deliver", payments.FlowDeliver, fulfilment, a.deliverOrder),
	}
}

// body reads, size-checks and type-checks the request body.
func (c *call) body() ([]byte, error) {
	b, err := rawBody(c.req)
	if err != nil {
		return nil, err
	}
	return b, checkContentType(c.req, b)
}

// decode reads the body strictly into v.
func (c *call) decode(v any) ([]byte, error) {
	b, err := c.body()
	if err != nil {
		return nil, err
	}
	return b, decodeStrict(b, v)
}

// checkParams validates the path parameters, every one an id named after
// its pattern segment, in pattern order, before any handler runs, and
// puts each in its canonical form (NFC) for the handler.
func (c *call) checkParams() error {
	for _, seg := range c.route.pattern {
		if name, ok := strings.CutPrefix(seg, "{"); ok {
			name = strings.TrimSuffix(name, "}")
			id, err := keys.CanonicalID(name, c.params[name])
			if err != nil {
				return err
			}
			c.params[name] = id
		}
	}
	return nil
}

// reply is a handler's answer on success: a status and a body to encode,
// or a money flow's stored or fresh response, sent as it is.
type reply struct {
	status int
	body   any
	flow   *payments.Response
}

func ok[T any](v T, err error) (reply, error) { return reply{status: http.StatusOK, body: v}, err }

func created[T any](v T, err error) (reply, error) {
	return reply{status: http.StatusCreated, body: v}, err
}

// flowReply answers a money flow with its stored or fresh response. A
// declined flow (payments.Declined) is answered with its problem, stored
// under the key first, so that a retry with the key replays the refusal
// even after the state changed; a flow route gets this by answering
// through flowReply.
func (a *API) flowReply(ctx context.Context, c *call, idem payments.Idem) func(payments.Response, error) (reply, error) {
	return func(r payments.Response, err error) (reply, error) {
		if err != nil && payments.Declined(err) {
			p, outcome := problemOf(err)
			ev := encodeProblem(p, err)
			c.outcome = outcome
			r, err = a.svc.Decline(ctx, idem, payments.Response{Status: ev.StatusCode,
				Header: http.Header{"Content-Type": {ev.Headers["Content-Type"]}}, Body: json.RawMessage(strings.TrimSuffix(ev.Body, "\n"))})
		}
		return reply{flow: &r}, err
	}
}

// response encodes r.
func (r reply) response() (events.APIGatewayV2HTTPResponse, error) {
	if r.flow != nil {
		return fromFlow(*r.flow), nil
	}
	return respond(r.status, r.body)
}

// listPage answers one page of a list: limit and cursor from the query
// string, the store's page as the body.
func listPage(c *call, list func(limit int, cur string) (any, error)) (reply, error) {
	limit, cur, err := c.page()
	if err != nil {
		return reply{}, err
	}
	return ok(list(limit, cur))
}

func (c *call) page() (int, string, error) {
	q := c.req.QueryStringParameters
	limit := 0
	if v, ok := q["limit"]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > store.MaxPageSize {
			return 0, "", atParam("limit", fmt.Errorf("%w: limit must be an integer 1..%d", ErrBadRequest, store.MaxPageSize))
		}
		limit = n
	}
	return limit, q["cursor"], nil
}

func (a *API) createUser(ctx context.Context, c *call) (reply, error) {
	var in CreateUserRequest
	if _, err := c.decode(&in); err != nil {
		return reply{}, err
	}
	id, err := requiredID("userId", in.UserID)
	if err != nil {
		return reply{}, err
	}
	if err := checkFields(in, "name", in.Name, "email", in.Email); err != nil {
		return reply{}, err
	}
	if addr, err := mail.ParseAddress(in.Email); err != nil || addr.Address != in.Email {
		return reply{}, atParam("email", fmt.Errorf("%w: \"email\" is not a plain address", ErrBadRequest))
	}
	return created(a.st.CreateUser(ctx, store.NewUser{UserID: id, Name: in.Name, Email: in.Email, Metadata: in.Metadata}))
}

func (a *API) getUser(ctx context.Context, c *call) (reply, error) {
	id := c.params["userId"]
	return ok(a.st.UserView(ctx, id))
}

func (a *API) addAddress(ctx context.Context, c *call) (reply, error) {
	userID := c.params["userId"]
	var in AddAddressRequest
	if _, err := c.decode(&in); err != nil {
		return reply{}, err
	}
	id, err := requiredID("addressId", in.AddressID)
	if err != nil {
		return reply{}, err
	}
	if err := checkFields(in, "line1", in.Line1, "line2", in.Line2, "city", in.City, "postalCode", in.PostalCode, "country", in.Country); err != nil {
		return reply{}, err
	}
	if !isCountry(in.Country) {
		return reply{}, atParam("country", fmt.Errorf("%w: \"country\" %q is not an ISO 3166-1 alpha-2 country code (upper case, such as DE)", ErrBadRequest, in.Country))
	}
	return created(a.st.AddAddress(ctx, userID, store.NewAddress{AddressID: id, Line1: in.Line1, Line2: in.Line2,
		City: in.City, PostalCode: in.PostalCode, Country: in.Country}))
}

// amountBody is the body of a money flow that moves an amount: its
// "amount" and "currency" members, and its "metadata".
type amountBody interface {
	money() (json.RawMessage, string)
	meta() metadata.Metadata
}

func (in AmountRequest) money() (json.RawMessage, string)   { return in.Amount, in.Currency }
func (in TransferRequest) money() (json.RawMessage, string) { return in.Amount, in.Currency }
func (in HoldRequest) money() (json.RawMessage, string)     { return in.Amount, in.Currency }
func (in AmountRequest) meta() metadata.Metadata            { return in.Metadata }
func (in TransferRequest) meta() metadata.Metadata          { return in.Metadata }
func (in HoldRequest) meta() metadata.Metadata              { return in.Metadata }

// flowRun is a money flow run under its key with the amount and the
// request's options (its metadata).
type flowRun func(payments.Idem, money.Amount, func(*payments.FlowOptions)) (payments.Response, error)

// amountFlow is the handler of a money flow whose body T carries an
// amount: decode the body strictly (the metadata's bounds included), let
// check refuse the rest of it (nil: T holds nothing else), parse the
// money, then key the request and run it (runFlow).
func amountFlow[T amountBody](ctx context.Context, a *API, c *call, check func(T) error, run flowRun) (reply, error) {
	var in T
	raw, err := c.decode(&in)
	if err != nil {
		return reply{}, err
	}
	if check != nil {
		if err := check(in); err != nil {
			return reply{}, err
		}
	}
	amt, err := money.ParseJSON(in.money())
	if err != nil {
		return reply{}, atMoney(err, "amount", "currency")
	}
	return a.runFlow(ctx, c, raw, func(idem payments.Idem) (payments.Response, error) {
		return run(idem, amt, payments.WithMetadata(in.meta()))
	})
}

// runFlow keys the request (raw, its body) under the route's flow and
// answers what run returns through flowReply.
func (a *API) runFlow(ctx context.Context, c *call, raw []byte, run func(payments.Idem) (payments.Response, error)) (reply, error) {
	idem, err := c.idem(c.route.flow, raw)
	if err != nil {
		return reply{}, err
	}
	return a.flowReply(ctx, c, idem)(run(idem))
}

// onParam is the run of a flow on the route's param that takes only an
// amount: credit, debit and charge.
func onParam(ctx context.Context, c *call, param string, flow func(context.Context, payments.Idem, string, money.Amount, ...func(*payments.FlowOptions)) (payments.Response, error)) flowRun {
	return func(idem payments.Idem, amt money.Amount, opt func(*payments.FlowOptions)) (payments.Response, error) {
		return flow(ctx, idem, c.params[param], amt, opt)
	}
}

func (a *API) credit(ctx context.Context, c *call) (reply, error) {
	return amountFlow[AmountRequest](ctx, a, c, nil, onParam(ctx, c, "userId", a.svc.Credit))
}

func (a *API) debit(ctx context.Context, c *call) (reply, error) {
	return amountFlow[AmountRequest](ctx, a, c, nil, onParam(ctx, c, "userId", a.svc.Debit))
}

func (a *API) balance(ctx context.Context, c *call) (reply, error) {
	id := c.params["userId"]
	return ok(a.st.Balance(ctx, id))
}

func (a *API) ledger(ctx context.Context, c *call) (reply, error) {
	return userPage(ctx, a, c, a.st.Ledger)
}

func (a *API) ledgerEntry(ctx context.Context, c *call) (reply, error) {
	return ok(a.st.LedgerEntry(ctx, c.params["userId"], c.params["entryId"]))
}

// userPage answers one page of a list of the route's user; an empty first
// page is the user's 404 when the user does not exist (see userExists).
func userPage[T any](ctx context.Context, a *API, c *call, list func(context.Context, string, int, string) (store.Page[T], error)) (reply, error) {
	id := c.params["userId"]
	return listPage(c, func(limit int, cur string) (any, error) {
		p, err := list(ctx, id, limit, cur)
		if err == nil && len(p.Items) == 0 && cur == "" {
			err = a.userExists(ctx, id)
		}
		return p, err
	})
}

// userExists answers ErrNotFound for an unknown user: every
// /users/{userId}/... route is 404 for a user that does not exist. A list
// reads the profile only when its first page is empty, so a user with
// entries pays nothing for the rule.
func (a *API) userExists(ctx context.Context, id string) error {
	_, err := a.st.User(ctx, id)
	return err
}

func (a *API) userOrders(ctx context.Context, c *call) (reply, error) {
	return userPage(ctx, a, c, a.st.UserOrders)
}

func (a *API) createOrder(ctx context.Context, c *call) (reply, error) {
	userID := c.params["userId"]
	var in CreateOrderRequest
	raw, err := c.decode(&in)
	if err != nil {
		return reply{}, err
	}
	cur, err := money.ParseCurrency(in.Currency)
	if err != nil {
		return reply{}, atParam("currency", err)
	}
	if in.OrderID != "" {
		if c.principal.roleFor(c.route.roles) == RoleCustomer {
			return reply{}, atParam("orderId", fmt.Errorf("%w: a customer's orders get their ids from the server: leave \"orderId\" out (the Idempotency-Key makes a retry return the same order)", keys.ErrInvalidID))
		}
		if in.OrderID, err = keys.CanonicalID("orderId", in.OrderID); err != nil {
			return reply{}, err
		}
	}
	order := payments.NewOrder{OrderID: in.OrderID, Currency: cur}
	if len(in.Items) == 0 || len(in.Items) > payments.MaxOrderItems {
		return reply{}, atParam("items", fmt.Errorf("%w: %d items, want 1..%d", payments.ErrInvalidOrder, len(in.Items), payments.MaxOrderItems))
	}
	for i, it := range in.Items {
		price, err := money.ParseJSON(it.UnitPrice, in.Currency)
		if err != nil {
			return reply{}, atParam(fmt.Sprintf("items[%d].unitPrice", i), fmt.Errorf("items[%d].unitPrice: %w", i, err))
		}
		q, ok := positiveInt(it.Quantity, payments.MaxQuantity)
		if !ok {
			return reply{}, atParam(fmt.Sprintf("items[%d].quantity", i), fmt.Errorf("%w: items[%d].quantity must be a JSON integer 1..%d", payments.ErrInvalidOrder, i, payments.MaxQuantity))
		}
		if err := keys.ValidateProductID("productId", it.ProductID); err != nil {
			return reply{}, atParam(fmt.Sprintf("items[%d].productId", i), fmt.Errorf("items[%d]: %w", i, err))
		}
		order.Items = append(order.Items, payments.NewItem{ProductID: it.ProductID, Quantity: q, UnitPrice: price})
	}
	return a.runFlow(ctx, c, raw, func(idem payments.Idem) (payments.Response, error) {
		return a.svc.CreateOrder(ctx, idem, userID, order, payments.WithMetadata(in.Metadata))
	})
}

func (a *API) getOrder(ctx context.Context, c *call) (reply, error) {
	id := c.params["orderId"]
	return ok(a.st.Order(ctx, id))
}

func (a *API) getPayment(ctx context.Context, c *call) (reply, error) {
	return ok(a.st.Payment(ctx, c.params["orderId"], c.params["paymentId"]))
}

func (a *API) listOrders(ctx context.Context, c *call) (reply, error) {
	status := c.req.QueryStringParameters["status"]
	if !slices.Contains(store.OrderStatuses, status) {
		return reply{}, atParam("status", fmt.Errorf("%w: status must be one of %s", ErrBadRequest, strings.Join(store.OrderStatuses, ", ")))
	}
	return listPage(c, func(limit int, cur string) (any, error) {
		return a.st.OrdersByStatus(ctx, status, limit, cur)
	})
}

func (a *API) charge(ctx context.Context, c *call) (reply, error) {
	return amountFlow[AmountRequest](ctx, a, c, nil, onParam(ctx, c, "orderId", a.svc.Charge))
}

// settle takes an optional body {"amount", "currency", "metadata"}: an
// amount, when named, must equal the order total.
func (a *API) settle(ctx context.Context, c *call) (reply, error) {
	var in OptionalAmountRequest
	raw, present, err := c.decodeOptional(&in)
	if err != nil {
		return reply{}, err
	}
	expected, err := in.optionalAmount(present)
	if err != nil {
		return reply{}, err
	}
	return a.runFlow(ctx, c, raw, func(idem payments.Idem) (payments.Response, error) {
		return a.svc.Settle(ctx, idem, c.params["orderId"], expected, payments.WithMetadata(in.Metadata))
	})
}

// optionalAmount is the amount of an optional body, nil when it names
// none; a currency without an amount is refused.
func (in OptionalAmountRequest) optionalAmount(present bool) (*money.Amount, error) {
	switch {
	case present && len(in.Amount) > 0:
		m, err := money.ParseJSON(in.Amount, in.Currency)
		if err != nil {
			return nil, atMoney(err, "amount", "currency")
		}
		return &m, nil
	case present && in.Currency != "":
		return nil, atParam("amount", fmt.Errorf("%w: \"currency\" without \"amount\": name both, or neither", money.ErrInvalidAmount))
	}
	return nil, nil
}

// decodeOptional reads the body strictly into v when there is one; an
// empty (or blank) body leaves v as it is, and present false.
func (c *call) decodeOptional(v any) (raw []byte, present bool, err error) {
	if raw, err = c.body(); err != nil || len(strings.TrimSpace(string(raw))) == 0 {
		return raw, false, err
	}
	return raw, true, decodeStrict(raw, v)
}

func (a *API) unprocessed(ctx context.Context, c *call) (reply, error) {
	return listPage(c, func(limit int, cur string) (any, error) {
		return a.st.UnprocessedPayments(ctx, limit, cur)
	})
}

func (a *API) processPayment(ctx context.Context, c *call) (reply, error) {
	orderID := c.params["orderId"]
	paymentID := c.params["paymentId"]
	if _, err := c.body(); err != nil {
		return reply{}, err
	}
	return ok(a.st.ProcessPayment(ctx, orderID, paymentID))
}

func (a *API) createProduct(ctx context.Context, c *call) (reply, error) {
	var in CreateProductRequest
	if _, err := c.decode(&in); err != nil {
		return reply{}, err
	}
	id, err := requiredID("productId", in.ProductID)
	if err != nil {
		return reply{}, err
	}
	if err := checkFields(in, "name", in.Name); err != nil {
		return reply{}, err
	}
	price, err := money.ParseJSON(in.Price, in.Currency)
	if err != nil {
		return reply{}, atMoney(err, "price", "currency")
	}
	return created(a.st.CreateProduct(ctx, store.NewProduct{ProductID: id, Name: in.Name, Price: price.Minor,
		Currency: string(price.Currency), Featured: in.Featured}))
}

func (a *API) getProduct(ctx context.Context, c *call) (reply, error) {
	id := c.params["productId"]
	return ok(a.st.Product(ctx, id))
}

// listProducts serves only the featured listing: listing every product
// would need a Scan, which no request path may do.
func (a *API) listProducts(ctx context.Context, c *call) (reply, error) {
	if c.req.QueryStringParameters["featured"] != "true" {
		return reply{}, atParam("featured", fmt.Errorf("%w: only GET /products?featured=true is supported (a full listing would need a Scan)", ErrBadRequest))
	}
	return listPage(c, func(limit int, cur string) (any, error) {
		return a.st.FeaturedProducts(ctx, limit, cur)
	})
}

// atMoney names the member of a money.ParseJSON error: the currency's
// for an unknown currency, else the amount's.
func atMoney(err error, amount, currency string) error {
	if errors.Is(err, money.ErrUnknownCurrency) {
		return atParam(currency, err)
	}
	return atParam(amount, err)
}

// transfer moves money from the path's user to the body's toUserId; a
// customer may send only from its own balance (the route's owner).
func (a *API) transfer(ctx context.Context, c *call) (reply, error) {
	from := c.params["userId"]
	var to string
	check := func(in TransferRequest) error {
		to = in.ToUserID
		if to == "" {
			return atParam("toUserId", fmt.Errorf("%w: \"toUserId\" is required", keys.ErrInvalidID))
		}
		if err := keys.ValidateID("toUserId", to); err != nil {
			return err
		}
		if to == from {
			return atParam("toUserId", fmt.Errorf("%w: \"toUserId\" names the sender", payments.ErrSameAccount))
		}
		return nil
	}
	return amountFlow(ctx, a, c, check, func(idem payments.Idem, amt money.Amount, opt func(*payments.FlowOptions)) (payments.Response, error) {
		return a.svc.Transfer(ctx, idem, from, to, amt, opt)
	})
}

func (a *API) authorizeHold(ctx context.Context, c *call) (reply, error) {
	var expiry time.Duration
	check := func(in HoldRequest) error {
		if len(in.ExpiresInSeconds) == 0 {
			return nil
		}
		lim := in.Limits()["expiresInSeconds"]
		secs, ok := positiveInt(in.ExpiresInSeconds, lim.Max)
		if !ok || secs < lim.Min {
			return atParam("expiresInSeconds", fmt.Errorf("%w: \"expiresInSeconds\" must be a JSON integer %d..%d", payments.ErrInvalidHold, lim.Min, lim.Max))
		}
		expiry = time.Duration(secs) * time.Second
		return nil
	}
	return amountFlow(ctx, a, c, check, func(idem payments.Idem, amt money.Amount, opt func(*payments.FlowOptions)) (payments.Response, error) {
		return a.svc.Authorize(ctx, idem, c.params["userId"], amt, expiry, opt)
	})
}

func (a *API) getHold(ctx context.Context, c *call) (reply, error) {
	return ok(a.st.Hold(ctx, c.params["userId"], c.params["holdId"]))
}

func (a *API) captureHold(ctx context.Context, c *call) (reply, error) {
	return amountFlow[AmountRequest](ctx, a, c, nil, func(idem payments.Idem, amt money.Amount, opt func(*payments.FlowOptions)) (payments.Response, error) {
		return a.svc.Capture(ctx, idem, c.params["userId"], c.params["holdId"], amt, opt)
	})
}

// voidHold takes an optional body {"metadata"} (an empty JSON object is
// accepted).
func (a *API) voidHold(ctx context.Context, c *call) (reply, error) {
	var in VoidRequest
	raw, _, err := c.decodeOptional(&in)
	if err != nil {
		return reply{}, err
	}
	return a.runFlow(ctx, c, raw, func(idem payments.Idem) (payments.Response, error) {
		return a.svc.Void(ctx, idem, c.params["userId"], c.params["holdId"], payments.WithMetadata(in.Metadata))
	})
}

// cancelOrder takes no body (an empty JSON object is accepted).
func (a *API) cancelOrder(ctx context.Context, c *call) (reply, error) {
	return a.orderStep(ctx, c, a.svc.Cancel)
}

// shipOrder and deliverOrder take no body (an empty JSON object is
// accepted), as cancelOrder.
func (a *API) shipOrder(ctx context.Context, c *call) (reply, error) {
	return a.orderStep(ctx, c, a.svc.Ship)
}

func (a *API) deliverOrder(ctx context.Context, c *call) (reply, error) {
	return a.orderStep(ctx, c, a.svc.Deliver)
}

// orderStep runs step, a flow that names only its order, on the path's
// order.
func (a *API) orderStep(ctx context.Context, c *call, step func(context.Context, payments.Idem, string) (payments.Response, error)) (reply, error) {
	var in struct{}
	raw, _, err := c.decodeOptional(&in)
	if err != nil {
		return reply{}, err
	}
	return a.runFlow(ctx, c, raw, func(idem payments.Idem) (payments.Response, error) {
		return step(ctx, idem, c.params["orderId"])
	})
}

// refund takes an optional body {"amount", "currency", "metadata"}:
// without an amount (or without a body) it refunds all that is left of the
// order.
func (a *API) refund(ctx context.Context, c *call) (reply, error) {
	var in OptionalAmountRequest
	raw, present, err := c.decodeOptional(&in)
	if err != nil {
		return reply{}, err
	}
	amt, err := in.optionalAmount(present)
	if err != nil {
		return reply{}, err
	}
	return a.runFlow(ctx, c, raw, func(idem payments.Idem) (payments.Response, error) {
		return a.svc.Refund(ctx, idem, c.params["orderId"], amt, payments.WithMetadata(in.Metadata))
	})
}

// listRefunds pages an order's refunds; an empty first page is the
// order's 404 when the order does not exist.
func (a *API) listRefunds(ctx context.Context, c *call) (reply, error) {
	id := c.params["orderId"]
	return listPage(c, func(limit int, cur string) (any, error) {
		p, err := a.st.Refunds(ctx, id, limit, cur)
		if err == nil && len(p.Items) == 0 && cur == "" {
			_, err = a.st.OrderOwner(ctx, id)
		}
		return p, err
	})
}

func (a *API) getRefund(ctx context.Context, c *call) (reply, error) {
	return ok(a.st.Refund(ctx, c.params["orderId"], c.params["refundId"]))
}

// positiveInt parses a JSON integer literal in 1..max.
func positiveInt(raw json.RawMessage, max int64) (int64, bool) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s[0] < '1' || s[0] > '9' {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && n >= 1 && n <= max
}
