package payments

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/metadata"
	"github.com/oncetable/oncetable/runtime/money"
	"github.com/oncetable/oncetable/runtime/store"
	"github.com/oncetable/oncetable/runtime/txn"
)

// Order limits.
const (
	// MaxOrderItems keeps an order's transaction inside DynamoDB's 100
	// actions: one Put per line, at most one catalogue ConditionCheck per
	// line, the order, its summary, the counter and the record (2*47+4 =
	// 98), and the migration fence's ConditionCheck while a migration of
	// the order layout runs (99). So the same orders are valid whatever
	// the migration phase.
	MaxOrderItems = 47
	MaxQuantity   = 10_000
)

// NewOrder is the input of CreateOrder. OrderID may be empty: the server
// then generates one.
type NewOrder struct {
	OrderID  string
	Currency money.Currency
	Items    []NewItem
}

// NewItem is one order line. The server computes line and order totals.
type NewItem struct {
	ProductID string
	Quantity  int64
	UnitPrice money.Amount
}

// CreateOrder writes, in one TransactWriteItems: the order (status created,
// attribute_not_exists), its items, its summary in the user's partition,
// the user's orderCount (SET orderCount = if_not_exists(orderCount, 0) + 1,
// which also proves the user exists) and the idempotency record. Status 201
// with the order and its items.
func (s *Service) CreateOrder(ctx context.Context, idem Idem, userID string, in NewOrder, opts ...func(*FlowOptions)) (Response, error) {
	o, err := flowOptions(opts)
	if err != nil {
		return Response{}, err
	}
	f, err := s.createOrderFlow(idem, userID, in, o.Metadata)
	if err != nil {
		return Response{}, err
	}
	return s.run(ctx, f)
}

// draft is a validated order, priced, before it has a creation time.
type draft struct {
	userID string
	user   keys.Key
	order  keys.Key
	in     NewOrder
	lines  []money.Amount
	total  money.Amount
	md     metadata.Metadata
}

func (s *Service) createOrderFlow(idem Idem, userID string, in NewOrder, md metadata.Metadata) (flow, error) {
	uk, err := s.keys.User(userID)
	if err != nil {
		return flow{}, err
	}
	if in.OrderID == "" {
		in.OrderID = keys.NewID("ord")
	}
	ok, err := s.keys.Order(in.OrderID)
	if err != nil {
		return flow{}, err
	}
	lines, total, err := price(in)
	if err != nil {
		return flow{}, err
	}
	d := draft{userID: userID, user: uk, order: ok, in: in, lines: lines, total: total, md: md}
	build := func(shape store.OrderShape) idempotency.EffectFunc {
		return func(now time.Time) (*idempotency.Effect, error) { return s.orderEffect(d, shape, now) }
	}
	fail := func(c *txn.CancelledError) error {
		switch {
		case c.Failed(itemCounter):
			return orderUserFailure(userID, c.Item(itemCounter), in.Currency)
		case c.Failed(itemOrder):
			return fmt.Errorf("order %q: %w", in.OrderID, ErrAlreadyExists)
		}
		return s.priceFailure(d, c)
	}
	return flow{name: FlowCreateOrder, idem: idem, users: []string{userID}, partition: uk.PK, invocation: []string{in.OrderID}, build: build, writesOrders: true, fail: fail}, nil
}

// orderUserFailure explains a failed order counter from the profile's
// ALL_OLD image: no user, or a balance in another currency.
func orderUserFailure(userID string, old map[string]types.AttributeValue, cur money.Currency) error {
	var u store.User
	if len(old) == 0 || attributevalue.UnmarshalMap(old, &u) != nil {
		return fmt.Errorf("user %q: %w", userID, ErrNotFound)
	}
	return fmt.Errorf("balance of user %q is in %s, the order in %s: %w", userID, u.Currency, cur, ErrCurrencyMismatch)
}

// price checks an order's lines and returns each line's total and the
// order's.
func price(in NewOrder) ([]money.Amount, money.Amount, error) {
	if len(in.Items) == 0 || len(in.Items) > MaxOrderItems {
		return nil, money.Amount{}, fmt.Errorf("%w: %d items, want 1..%d", ErrInvalidOrder, len(in.Items), MaxOrderItems)
	}
	if !in.Currency.Valid() {
		return nil, money.Amount{}, fmt.Errorf("%w: unknown currency %q", ErrInvalidOrder, in.Currency)
	}
	total := money.Amount{Currency: in.Currency}
	lines := make([]money.Amount, len(in.Items))
	for i, it := range in.Items {
		var err error
		if err := keys.ValidateProductID("productId", it.ProductID); err != nil {
			return nil, money.Amount{}, err
		}
		if it.Quantity < 1 || it.Quantity > MaxQuantity {
			return nil, money.Amount{}, fmt.Errorf("%w: item %d: quantity %d, want 1..%d", ErrInvalidOrder, i+1, it.Quantity, MaxQuantity)
		}
		if it.UnitPrice.Currency != in.Currency {
			return nil, money.Amount{}, fmt.Errorf("%w: item %d is in %s, order in %s", ErrInvalidOrder, i+1, it.UnitPrice.Currency, in.Currency)
		}
		if lines[i], err = it.UnitPrice.Mul(it.Quantity); err != nil {
			return nil, money.Amount{}, fmt.Errorf("%w: item %d: %w", ErrInvalidOrder, i+1, err)
		}
		if total.Minor == 0 {
			total = lines[i]
		} else if total, err = total.Add(lines[i]); err != nil {
			return nil, money.Amount{}, fmt.Errorf("%w: total: %w", ErrInvalidOrder, err)
		}
	}
	return lines, total, nil
}

// orderEffect writes the order created at now: the user's orderCount, the
// order (in the writer's shape), its summary in the user's partition
// and one item per line.
func (s *Service) orderEffect(d draft, shape store.OrderShape, now time.Time) (*idempotency.Effect, error) {
	ts := keys.Timestamp(now)
	sk, err := s.keys.UserOrder(d.userID, now, d.in.OrderID)
	if err != nil {
		return nil, err
	}
	view := d.view(s.keys, now, sk.SK)
	eff := &idempotency.Effect{Status: http.StatusCreated, Body: view}
	count := expression.Name("orderCount")
	cur := expression.Value(string(d.in.Currency))
	// The order's currency is the balance's, or fixes it as a first credit
	// would: an order in another currency could be charged but never
	// settled.
	counter, err := s.items.Update(d.user,
		expression.Set(count, expression.Plus(expression.IfNotExists(count, expression.Value(0)), expression.Value(1))).
			Set(currencyName, expression.IfNotExists(currencyName, cur)).
			Set(updatedName, expression.Value(ts)),
		s.items.Exists().And(expression.Or(expression.AttributeNotExists(currencyName), currencyName.Equal(cur))))
	if err != nil {
		return nil, err
	}
	eff.Items.Add(itemCounter, counter)
	order, err := s.orderPut(view.Order, shape)
	if err != nil {
		return nil, err
	}
	eff.Items.Add(itemOrder, order)
	summary, err := s.items.PutNew(store.UserOrder{PK: sk.PK, SK: sk.SK, EntityType: store.TypeUserOrder,
		OrderID: d.in.OrderID, Status: store.OrderCreated, Total: d.total.Minor, Currency: string(d.in.Currency), CreatedAt: ts, UpdatedAt: ts})
	if err != nil {
		return nil, err
	}
	eff.Items.Add(itemSummary, summary)
	for i, line := range view.Items {
		put, err := s.items.PutNew(line)
		if err != nil {
			return nil, err
		}
		eff.Items.Add(fmt.Sprintf(itemLine, i+1), put)
	}
	return eff, s.addPriceChecks(eff, d)
}

// orderPut is the Put of a new order in shape.
func (s *Service) orderPut(o store.Order, shape store.OrderShape) (types.TransactWriteItem, error) {
	av, err := s.items.Marshal(o)
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	if av, err = shape.New(av); err != nil {
		return types.TransactWriteItem{}, err
	}
	return s.items.PutNewItem(av)
}

// catalogueLines maps each product to the first line that names it; lines
// of one product must agree on the unit price.
func catalogueLines(in NewOrder) (first map[string]int, agree map[string]bool) {
	first, agree = map[string]int{}, map[string]bool{}
	for i, it := range in.Items {
		j, seen := first[it.ProductID]
		if !seen {
			first[it.ProductID], agree[it.ProductID] = i, true
		} else if in.Items[j].UnitPrice != it.UnitPrice {
			agree[it.ProductID] = false
		}
	}
	return first, agree
}

// addPriceChecks adds one ConditionCheck per product the order names: the
// product is not in the catalogue, or its price and currency are the
// line's. Two lines of one product at different prices pass only for a
// product outside the catalogue. A shop prices from its catalogue, so this
// is checked in the order's transaction, never read before it.
func (s *Service) addPriceChecks(eff *idempotency.Effect, d draft) error {
	first, agree := catalogueLines(d.in)
	for i, it := range d.in.Items {
		if first[it.ProductID] != i {
			continue
		}
		k, err := s.keys.Product(it.ProductID)
		if err != nil {
			return err
		}
		cond := s.items.NotExists()
		if agree[it.ProductID] {
			cond = cond.Or(expression.Name("price").Equal(expression.Value(it.UnitPrice.Minor)).
				And(currencyName.Equal(expression.Value(string(it.UnitPrice.Currency)))))
		}
		check, err := s.items.ConditionCheck(k, cond)
		if err != nil {
			return err
		}
		eff.Items.Add(fmt.Sprintf(itemPrice, i+1), check)
	}
	return nil
}

// priceFailure names the first line whose catalogue check failed.
func (s *Service) priceFailure(d draft, c *txn.CancelledError) error {
	first, _ := catalogueLines(d.in)
	for i, it := range d.in.Items {
		if first[it.ProductID] != i || !c.Failed(fmt.Sprintf(itemPrice, i+1)) {
			continue
		}
		var p store.Product
		if err := s.items.Unmarshal(c.Item(fmt.Sprintf(itemPrice, i+1)), &p); err != nil {
			return err
		}
		line := i + 1
		for j, other := range d.in.Items { // the first line that differs
			if other.ProductID == it.ProductID && (other.UnitPrice.Minor != p.Price || string(other.UnitPrice.Currency) != p.Currency) {
				line = j + 1
				break
			}
		}
		return &PriceMismatchError{Line: line, ProductID: it.ProductID,
			Catalogue: money.Amount{Minor: p.Price, Currency: money.Currency(p.Currency)}, Got: d.in.Items[line-1].UnitPrice}
	}
	return nil
}

// view is the order as created at now, with its items.
func (d draft) view(l keys.Layout, now time.Time, userOrderSK string) store.OrderView {
	ts := keys.Timestamp(now)
	gpk, gsk := l.OrderStatusGSI(store.OrderCreated, now, d.in.OrderID)
	v := store.OrderView{
		Order: store.Order{PK: d.order.PK, SK: d.order.SK, EntityType: store.TypeOrder, GSI1PK: gpk, GSI1SK: gsk,
			OrderID: d.in.OrderID, UserID: d.userID, Status: store.OrderCreated, Total: d.total.Minor,
			Currency: string(d.in.Currency), ItemCount: len(d.in.Items), UserOrderSK: userOrderSK, CreatedAt: ts, UpdatedAt: ts,
			Metadata: d.md},
		Items:    make([]store.OrderItem, len(d.in.Items)),
		Payments: []store.Payment{},
	}
	for i, it := range d.in.Items {
		// Lines are 1..MaxOrderItems, which keys.OrderItem accepts.
		ik, _ := l.OrderItem(d.in.OrderID, i+1)
		v.Items[i] = store.OrderItem{PK: ik.PK, SK: ik.SK, EntityType: store.TypeOrderItem, OrderID: d.in.OrderID,
			Line: i + 1, ProductID: it.ProductID, Quantity: it.Quantity, UnitPrice: it.UnitPrice.Minor,
			LineTotal: d.lines[i].Minor, CreatedAt: ts}
	}
	return v
}
