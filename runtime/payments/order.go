package payments

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/money"
	"github.com/oncetable/oncetable/runtime/store"
)

// Order limits.
const (
	// MaxOrderItems keeps an order's transaction (items + order + summary +
	// counter + record) well inside DynamoDB's 100 actions.
	MaxOrderItems = 50
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
func (s *Service) CreateOrder(ctx context.Context, idem Idem, userID string, in NewOrder) (Response, error) {
	uk, err := keys.User(userID)
	if err != nil {
		return Response{}, err
	}
	if in.OrderID == "" {
		in.OrderID = keys.NewID("ord")
	}
	ok, err := keys.Order(in.OrderID)
	if err != nil {
		return Response{}, err
	}
	if len(in.Items) == 0 || len(in.Items) > MaxOrderItems {
		return Response{}, fmt.Errorf("%w: %d items, want 1..%d", ErrInvalidOrder, len(in.Items), MaxOrderItems)
	}
	if !in.Currency.Valid() {
		return Response{}, fmt.Errorf("%w: unknown currency %q", ErrInvalidOrder, in.Currency)
	}
	total := money.Amount{Currency: in.Currency}
	lines := make([]money.Amount, len(in.Items))
	for i, it := range in.Items {
		if err := keys.ValidateID("productId", it.ProductID); err != nil {
			return Response{}, err
		}
		if it.Quantity < 1 || it.Quantity > MaxQuantity {
			return Response{}, fmt.Errorf("%w: item %d: quantity %d, want 1..%d", ErrInvalidOrder, i+1, it.Quantity, MaxQuantity)
		}
		if it.UnitPrice.Currency != in.Currency {
			return Response{}, fmt.Errorf("%w: item %d is in %s, order in %s", ErrInvalidOrder, i+1, it.UnitPrice.Currency, in.Currency)
		}
		if lines[i], err = it.UnitPrice.Mul(it.Quantity); err != nil {
			return Response{}, fmt.Errorf("%w: item %d: %w", ErrInvalidOrder, i+1, err)
		}
		if total.Minor == 0 {
			total = lines[i]
		} else if total, err = total.Add(lines[i]); err != nil {
			return Response{}, fmt.Errorf("%w: total: %w", ErrInvalidOrder, err)
		}
	}
	build := func(now time.Time) ([]types.TransactWriteItem, int, any, error) {
		ts := keys.Timestamp(now)
		sk, err := keys.UserOrder(userID, now, in.OrderID)
		if err != nil {
			return nil, 0, nil, err
		}
		gpk, gsk := keys.OrderStatusGSI(store.OrderCreated, now, in.OrderID)
		view := store.OrderView{
			Order: store.Order{PK: ok.PK, SK: ok.SK, EntityType: store.TypeOrder, GSI1PK: gpk, GSI1SK: gsk,
				OrderID: in.OrderID, UserID: userID, Status: store.OrderCreated, Total: total.Minor,
				Currency: string(in.Currency), ItemCount: len(in.Items), UserOrderSK: sk.SK, CreatedAt: ts, UpdatedAt: ts},
			Items:    make([]store.OrderItem, len(in.Items)),
			Payments: []store.Payment{},
		}
		count := expression.Name("orderCount")
		counter, err := store.Update(s.st.Table(), uk,
			expression.Set(count, expression.Plus(expression.IfNotExists(count, expression.Value(0)), expression.Value(1))).
				Set(updatedName, expression.Value(ts)),
			store.Exists())
		if err != nil {
			return nil, 0, nil, err
		}
		order, err := store.PutNew(s.st.Table(), view.Order)
		if err != nil {
			return nil, 0, nil, err
		}
		summary, err := store.PutNew(s.st.Table(), store.UserOrder{PK: sk.PK, SK: sk.SK, EntityType: store.TypeUserOrder,
			OrderID: in.OrderID, Status: store.OrderCreated, Total: total.Minor, Currency: string(in.Currency), CreatedAt: ts, UpdatedAt: ts})
		if err != nil {
			return nil, 0, nil, err
		}
		items := []types.TransactWriteItem{counter, order, summary}
		for i, it := range in.Items {
			ik, err := keys.OrderItem(in.OrderID, i+1)
			if err != nil {
				return nil, 0, nil, err
			}
			view.Items[i] = store.OrderItem{PK: ik.PK, SK: ik.SK, EntityType: store.TypeOrderItem, OrderID: in.OrderID,
				Line: i + 1, ProductID: it.ProductID, Quantity: it.Quantity, UnitPrice: it.UnitPrice.Minor,
				LineTotal: lines[i].Minor, CreatedAt: ts}
			put, err := store.PutNew(s.st.Table(), view.Items[i])
			if err != nil {
				return nil, 0, nil, err
			}
			items = append(items, put)
		}
		return items, http.StatusCreated, view, nil
	}
	fail := func(reasons []types.CancellationReason) error {
		switch {
		case store.ReasonFailed(reasons, 0):
			return fmt.Errorf("user %q: %w", userID, ErrNotFound)
		case store.ReasonFailed(reasons, 1):
			return fmt.Errorf("order %q: %w", in.OrderID, ErrAlreadyExists)
		}
		return nil
	}
	return s.run(ctx, FlowCreateOrder, idem, uk.PK, []string{in.OrderID}, build, fail)
}
