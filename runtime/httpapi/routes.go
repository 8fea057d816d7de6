package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/mail"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"

	"github.com/oncetable/oncetable/runtime/keys"
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
	RouteUserOrders     = "userOrders"
	RouteCreateOrder    = "createOrder"
	RouteGetOrder       = "getOrder"
	RouteListOrders     = "listOrders"
	RouteCharge         = "charge"
	RouteSettle         = "settle"
	RouteUnprocessed    = "unprocessedPayments"
	RouteProcessPayment = "processPayment"
	RouteCreateProduct  = "createProduct"
	RouteGetProduct     = "getProduct"
	RouteListProducts   = "listProducts"
)

func (a *API) table() []route {
	r := func(name, method, pattern, flow string, h func(context.Context, *call) (events.APIGatewayV2HTTPResponse, error)) route {
		return route{name: name, method: method, pattern: strings.Split(strings.Trim(pattern, "/"), "/"), flow: flow, handle: h}
	}
	return []route{
		r(RouteCreateUser, http.MethodPost, "/users", "", a.createUser),
		r(RouteGetUser, http.MethodGet, "/users/{userId}", "", a.getUser),
		r(RouteAddAddress, http.MethodPost, "/users/{userId}/addresses", "", a.addAddress),
		r(RouteCredit, http.MethodPost, "/users/{userId}/credits", payments.FlowCredit, a.credit),
		r(RouteDebit, http.MethodPost, "/users/{userId}/debits", payments.FlowDebit, a.debit),
		r(RouteBalance, http.MethodGet, "/users/{userId}/balance", "", a.balance),
		r(RouteLedger, http.MethodGet, "/users/{userId}/ledger", "", a.ledger),
		r(RouteUserOrders, http.MethodGet, "/users/{userId}/orders", "", a.userOrders),
		r(RouteCreateOrder, http.MethodPost, "/users/{userId}/orders", payments.FlowCreateOrder, a.createOrder),
		r(RouteGetOrder, http.MethodGet, "/orders/{orderId}", "", a.getOrder),
		r(RouteListOrders, http.MethodGet, "/orders", "", a.listOrders),
		r(RouteCharge, http.MethodPost, "/orders/{orderId}/payments", payments.FlowCharge, a.charge),
		r(RouteSettle, http.MethodPost, "/orders/{orderId}/settle", payments.FlowSettle, a.settle),
		r(RouteUnprocessed, http.MethodGet, "/payments/unprocessed", "", a.unprocessed),
		r(RouteProcessPayment, http.MethodPost, "/orders/{orderId}/payments/{paymentId}/process", "", a.processPayment),
		r(RouteCreateProduct, http.MethodPost, "/products", "", a.createProduct),
		r(RouteGetProduct, http.MethodGet, "/products/{productId}", "", a.getProduct),
		r(RouteListProducts, http.MethodGet, "/products", "", a.listProducts),
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

// id returns a path parameter after validating it as an id.
func (c *call) id(name string) (string, error) {
	v := c.params[name]
	return v, keys.ValidateID(name, v)
}

func text(field, v string, max int, required bool) error {
	switch {
	case v == "" && required:
		return fmt.Errorf("%w: %q is required", ErrBadRequest, field)
	case len(v) > max:
		return fmt.Errorf("%w: %q must be at most %d bytes", ErrBadRequest, field, max)
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

// optionalID validates a client-chosen id, or generates one.
func optionalID(kind, v, prefix string) (string, error) {
	if v == "" {
		return keys.NewID(prefix), nil
	}
	return v, keys.ValidateID(kind, v)
}

// listPage answers one page of a list: limit and cursor from the query
// string, the store's page as the body.
func listPage(c *call, list func(limit int, cur string) (any, error)) (events.APIGatewayV2HTTPResponse, error) {
	limit, cur, err := c.page()
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	p, err := list(limit, cur)
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	return respond(http.StatusOK, p)
}

func (c *call) page() (int, string, error) {
	q := c.req.QueryStringParameters
	limit := 0
	if v, ok := q["limit"]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > store.MaxPageSize {
			return 0, "", fmt.Errorf("%w: limit must be an integer 1..%d", ErrBadRequest, store.MaxPageSize)
		}
		limit = n
	}
	return limit, q["cursor"], nil
}

type amountBody struct {
	Amount   json.RawMessage `json:"amount"`
	Currency string          `json:"currency"`
}

func (a *API) createUser(ctx context.Context, c *call) (events.APIGatewayV2HTTPResponse, error) {
	var in struct {
		UserID string `json:"userId"`
		Name   string `json:"name"`
		Email  string `json:"email"`
	}
	if _, err := c.decode(&in); err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	id, err := optionalID("userId", in.UserID, "usr")
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	if err := text("name", in.Name, 200, true); err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	if err := text("email", in.Email, 254, true); err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	if addr, err := mail.ParseAddress(in.Email); err != nil || addr.Address != in.Email {
		return events.APIGatewayV2HTTPResponse{}, fmt.Errorf("%w: \"email\" is not a plain address", ErrBadRequest)
	}
	u, err := a.st.CreateUser(ctx, store.NewUser{UserID: id, Name: in.Name, Email: in.Email})
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	return respond(http.StatusCreated, u)
}

func (a *API) getUser(ctx context.Context, c *call) (events.APIGatewayV2HTTPResponse, error) {
	id, err := c.id("userId")
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	v, err := a.st.UserView(ctx, id)
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	return respond(http.StatusOK, v)
}

func (a *API) addAddress(ctx context.Context, c *call) (events.APIGatewayV2HTTPResponse, error) {
	userID, err := c.id("userId")
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	var in struct {
		AddressID  string `json:"addressId"`
		Line1      string `json:"line1"`
		Line2      string `json:"line2"`
		City       string `json:"city"`
		PostalCode string `json:"postalCode"`
		Country    string `json:"country"`
	}
	if _, err := c.decode(&in); err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	id, err := optionalID("addressId", in.AddressID, "adr")
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	for _, f := range []struct {
		name, v  string
		max      int
		required bool
	}{{"line1", in.Line1, 200, true}, {"line2", in.Line2, 200, false}, {"city", in.City, 100, true}, {"postalCode", in.PostalCode, 20, true}, {"country", in.Country, 2, true}} {
		if err := text(f.name, f.v, f.max, f.required); err != nil {
			return events.APIGatewayV2HTTPResponse{}, err
		}
	}
	if len(in.Country) != 2 || strings.ToUpper(in.Country) != in.Country {
		return events.APIGatewayV2HTTPResponse{}, fmt.Errorf("%w: \"country\" must be an ISO 3166-1 alpha-2 code such as DE", ErrBadRequest)
	}
	addr, err := a.st.AddAddress(ctx, userID, store.NewAddress{AddressID: id, Line1: in.Line1, Line2: in.Line2,
		City: in.City, PostalCode: in.PostalCode, Country: in.Country})
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	return respond(http.StatusCreated, addr)
}

// moneyMove is credit and debit: the same body, different flows.
func (a *API) moneyMove(ctx context.Context, c *call, flow string, run func(context.Context, payments.Idem, string, money.Amount) (payments.Response, error)) (events.APIGatewayV2HTTPResponse, error) {
	userID, err := c.id("userId")
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	var in amountBody
	raw, err := c.decode(&in)
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	amt, err := money.ParseJSON(in.Amount, in.Currency)
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	idem, err := c.idem(flow, raw)
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	r, err := run(ctx, idem, userID, amt)
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	return fromFlow(r), nil
}

func (a *API) credit(ctx context.Context, c *call) (events.APIGatewayV2HTTPResponse, error) {
	return a.moneyMove(ctx, c, payments.FlowCredit, a.svc.Credit)
}

func (a *API) debit(ctx context.Context, c *call) (events.APIGatewayV2HTTPResponse, error) {
	return a.moneyMove(ctx, c, payments.FlowDebit, a.svc.Debit)
}

func (a *API) balance(ctx context.Context, c *call) (events.APIGatewayV2HTTPResponse, error) {
	id, err := c.id("userId")
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	b, err := a.st.Balance(ctx, id)
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	return respond(http.StatusOK, b)
}

func (a *API) ledger(ctx context.Context, c *call) (events.APIGatewayV2HTTPResponse, error) {
	id, err := c.id("userId")
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	return listPage(c, func(limit int, cur string) (any, error) {
		return a.st.Ledger(ctx, id, limit, cur)
	})
}

func (a *API) userOrders(ctx context.Context, c *call) (events.APIGatewayV2HTTPResponse, error) {
	id, err := c.id("userId")
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	return listPage(c, func(limit int, cur string) (any, error) {
		return a.st.UserOrders(ctx, id, limit, cur)
	})
}

func (a *API) createOrder(ctx context.Context, c *call) (events.APIGatewayV2HTTPResponse, error) {
	userID, err := c.id("userId")
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	var in struct {
		OrderID  string `json:"orderId"`
		Currency string `json:"currency"`
		Items    []struct {
			ProductID string          `json:"productId"`
			Quantity  json.RawMessage `json:"quantity"`
			UnitPrice json.RawMessage `json:"unitPrice"`
		} `json:"items"`
	}
	raw, err := c.decode(&in)
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	cur, err := money.ParseCurrency(in.Currency)
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	if in.OrderID != "" {
		if err := keys.ValidateID("orderId", in.OrderID); err != nil {
			return events.APIGatewayV2HTTPResponse{}, err
		}
	}
	order := payments.NewOrder{OrderID: in.OrderID, Currency: cur}
	if len(in.Items) == 0 || len(in.Items) > payments.MaxOrderItems {
		return events.APIGatewayV2HTTPResponse{}, fmt.Errorf("%w: %d items, want 1..%d", payments.ErrInvalidOrder, len(in.Items), payments.MaxOrderItems)
	}
	for i, it := range in.Items {
		price, err := money.ParseJSON(it.UnitPrice, in.Currency)
		if err != nil {
			return events.APIGatewayV2HTTPResponse{}, fmt.Errorf("items[%d].unitPrice: %w", i, err)
		}
		q, ok := positiveInt(it.Quantity, payments.MaxQuantity)
		if !ok {
			return events.APIGatewayV2HTTPResponse{}, fmt.Errorf("%w: items[%d].quantity must be a JSON integer 1..%d", payments.ErrInvalidOrder, i, payments.MaxQuantity)
		}
		if err := keys.ValidateID("productId", it.ProductID); err != nil {
			return events.APIGatewayV2HTTPResponse{}, fmt.Errorf("items[%d]: %w", i, err)
		}
		order.Items = append(order.Items, payments.NewItem{ProductID: it.ProductID, Quantity: q, UnitPrice: price})
	}
	idem, err := c.idem(payments.FlowCreateOrder, raw)
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	r, err := a.svc.CreateOrder(ctx, idem, userID, order)
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	return fromFlow(r), nil
}

func (a *API) getOrder(ctx context.Context, c *call) (events.APIGatewayV2HTTPResponse, error) {
	id, err := c.id("orderId")
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	v, err := a.st.Order(ctx, id)
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	return respond(http.StatusOK, v)
}

func (a *API) listOrders(ctx context.Context, c *call) (events.APIGatewayV2HTTPResponse, error) {
	status := c.req.QueryStringParameters["status"]
	if status != store.OrderCreated && status != store.OrderPaid {
		return events.APIGatewayV2HTTPResponse{}, fmt.Errorf("%w: status must be %q or %q", ErrBadRequest, store.OrderCreated, store.OrderPaid)
	}
	return listPage(c, func(limit int, cur string) (any, error) {
		return a.st.OrdersByStatus(ctx, status, limit, cur)
	})
}

func (a *API) charge(ctx context.Context, c *call) (events.APIGatewayV2HTTPResponse, error) {
	orderID, err := c.id("orderId")
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	var in amountBody
	raw, err := c.decode(&in)
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	amt, err := money.ParseJSON(in.Amount, in.Currency)
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	idem, err := c.idem(payments.FlowCharge, raw)
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	r, err := a.svc.Charge(ctx, idem, orderID, amt)
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	return fromFlow(r), nil
}

// settle takes an optional body {"amount", "currency"}: when present it
// must equal the order total.
func (a *API) settle(ctx context.Context, c *call) (events.APIGatewayV2HTTPResponse, error) {
	orderID, err := c.id("orderId")
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	raw, err := c.body()
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	var expected *money.Amount
	if len(strings.TrimSpace(string(raw))) > 0 {
		var in amountBody
		if err := decodeStrict(raw, &in); err != nil {
			return events.APIGatewayV2HTTPResponse{}, err
		}
		amt, err := money.ParseJSON(in.Amount, in.Currency)
		if err != nil {
			return events.APIGatewayV2HTTPResponse{}, err
		}
		expected = &amt
	}
	idem, err := c.idem(payments.FlowSettle, raw)
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	r, err := a.svc.Settle(ctx, idem, orderID, expected)
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	return fromFlow(r), nil
}

func (a *API) unprocessed(ctx context.Context, c *call) (events.APIGatewayV2HTTPResponse, error) {
	return listPage(c, func(limit int, cur string) (any, error) {
		return a.st.UnprocessedPayments(ctx, limit, cur)
	})
}

func (a *API) processPayment(ctx context.Context, c *call) (events.APIGatewayV2HTTPResponse, error) {
	orderID, err := c.id("orderId")
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	paymentID, err := c.id("paymentId")
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	if _, err := c.body(); err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	p, err := a.st.ProcessPayment(ctx, orderID, paymentID)
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	return respond(http.StatusOK, p)
}

func (a *API) createProduct(ctx context.Context, c *call) (events.APIGatewayV2HTTPResponse, error) {
	var in struct {
		ProductID string          `json:"productId"`
		Name      string          `json:"name"`
		Price     json.RawMessage `json:"price"`
		Currency  string          `json:"currency"`
		Featured  bool            `json:"featured"`
	}
	if _, err := c.decode(&in); err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	id, err := optionalID("productId", in.ProductID, "prd")
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	if err := text("name", in.Name, 200, true); err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	price, err := money.ParseJSON(in.Price, in.Currency)
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	p, err := a.st.CreateProduct(ctx, store.NewProduct{ProductID: id, Name: in.Name, Price: price.Minor,
		Currency: string(price.Currency), Featured: in.Featured})
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	return respond(http.StatusCreated, p)
}

func (a *API) getProduct(ctx context.Context, c *call) (events.APIGatewayV2HTTPResponse, error) {
	id, err := c.id("productId")
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	p, err := a.st.Product(ctx, id)
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	return respond(http.StatusOK, p)
}

// listProducts serves only the featured listing: listing every product
// would need a Scan, which no request path may do.
func (a *API) listProducts(ctx context.Context, c *call) (events.APIGatewayV2HTTPResponse, error) {
	if c.req.QueryStringParameters["featured"] != "true" {
		return events.APIGatewayV2HTTPResponse{}, fmt.Errorf("%w: only GET /products?featured=true is supported (a full listing would need a Scan)", ErrBadRequest)
	}
	return listPage(c, func(limit int, cur string) (any, error) {
		return a.st.FeaturedProducts(ctx, limit, cur)
	})
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
