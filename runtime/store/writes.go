package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/metadata"
	"github.com/oncetable/oncetable/runtime/retry"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/txn"
)

// NotExists is [Builder.NotExists] under schema.Default.
func NotExists() expression.ConditionBuilder { return Builder{}.NotExists() }

// Exists is [Builder.Exists] under schema.Default.
func Exists() expression.ConditionBuilder { return Builder{}.Exists() }

// PutNew is [Builder.PutNew] of table under schema.Default.
func PutNew(table string, item any) (types.TransactWriteItem, error) {
	return Builder{Table: table}.PutNew(item)
}

// Update is [Builder.Update] of table under schema.Default.
func Update(table string, k keys.Key, upd expression.UpdateBuilder, cond expression.ConditionBuilder) (types.TransactWriteItem, error) {
	return Builder{Table: table}.Update(k, upd, cond)
}

// NewUser is the input of CreateUser.
type NewUser struct {
	UserID   string
	Name     string
	Email    string
	Metadata metadata.Metadata
}

// CreateUser writes a profile with a zero balance (PutItem,
// attribute_not_exists). An existing id gives ErrAlreadyExists.
func (s *Store) CreateUser(ctx context.Context, in NewUser) (User, error) {
	k, err := s.keys.User(in.UserID)
	if err != nil {
		return User{}, err
	}
	if err := metadata.Validate(in.Metadata); err != nil {
		return User{}, err
	}
	now := keys.Timestamp(s.now())
	u := User{PK: k.PK, SK: k.SK, EntityType: TypeUser, UserID: in.UserID, Name: in.Name, Email: in.Email,
		Metadata: in.Metadata, CreatedAt: now, UpdatedAt: now}
	if err := s.putNew(ctx, u); err != nil {
		if _, ok := conditionFailed(err); ok {
			return User{}, fmt.Errorf("user %q: %w", in.UserID, ErrAlreadyExists)
		}
		return User{}, err
	}
	return u, nil
}

func (s *Store) putNew(ctx context.Context, item any) error {
	av, err := s.items.Marshal(item)
	if err != nil {
		return err
	}
	expr, err := expression.NewBuilder().WithCondition(s.items.NotExists()).Build()
	if err != nil {
		return err
	}
	// Sent again after an unknown outcome, its own first write would fail
	// the condition and read as "already exists": DoWrite.
	return retry.DoWrite(ctx, s.retry, func(int) error {
		_, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{
			TableName:                aws.String(s.table),
			Item:                     av,
			ConditionExpression:      expr.Condition(),
			ExpressionAttributeNames: expr.Names(),
		})
		return err
	})
}

// NewAddress is the input of AddAddress.
type NewAddress struct {
	AddressID  string
	Line1      string
	Line2      string
	City       string
	PostalCode string
	Country    string
}

// AddAddress writes an address and bumps the profile's addressCount in one
// TransactWriteItems, so a user never holds more than MaxAddresses.
func (s *Store) AddAddress(ctx context.Context, userID string, in NewAddress) (Address, error) {
	uk, err := s.keys.User(userID)
	if err != nil {
		return Address{}, err
	}
	ak, err := s.keys.Address(userID, in.AddressID)
	if err != nil {
		return Address{}, err
	}
	now := keys.Timestamp(s.now())
	a := Address{PK: ak.PK, SK: ak.SK, EntityType: TypeAddress, UserID: userID, AddressID: in.AddressID,
		Line1: in.Line1, Line2: in.Line2, City: in.City, PostalCode: in.PostalCode, Country: in.Country, CreatedAt: now}
	count := expression.Name("addressCount")
	bump, err := s.items.Update(uk,
		expression.Set(count, expression.Plus(expression.IfNotExists(count, expression.Value(0)), expression.Value(1))).
			Set(expression.Name(schema.UpdatedAt), expression.Value(now)),
		s.items.Exists().And(expression.Or(expression.AttributeNotExists(count), count.LessThan(expression.Value(MaxAddresses)))))
	if err != nil {
		return Address{}, err
	}
	put, err := s.items.PutNew(a)
	if err != nil {
		return Address{}, err
	}
	var tx txn.Items
	tx.Add("profile", bump)
	tx.Add("address", put)
	// No ClientRequestToken: a resend after an unknown outcome would meet
	// its own address. DoWrite.
	err = retry.DoWrite(ctx, s.retry, func(int) error {
		_, err := s.db.TransactWriteItems(ctx, tx.Input())
		return err
	})
	if c, ok := txn.Cancelled(err, &tx); ok {
		switch {
		case c.Failed("profile") && len(c.Item("profile")) == 0:
			return Address{}, notFound("user", userID)
		case c.Failed("address"):
			return Address{}, fmt.Errorf("address %q: %w", in.AddressID, ErrAlreadyExists)
		case c.Failed("profile"):
			return Address{}, fmt.Errorf("addresses of user %q (at most %d): %w", userID, MaxAddresses, ErrLimitReached)
		}
	}
	if err != nil {
		return Address{}, err
	}
	return a, nil
}

// NewProduct is the input of CreateProduct.
type NewProduct struct {
	ProductID string
	Name      string
	Price     int64
	Currency  string
	Featured  bool
}

// CreateProduct writes a product (PutItem, attribute_not_exists). A featured
// product carries FeaturedPK/FeaturedSK and so enters the sparse index.
func (s *Store) CreateProduct(ctx context.Context, in NewProduct) (Product, error) {
	k, err := s.keys.Product(in.ProductID)
	if err != nil {
		return Product{}, err
	}
	p := Product{PK: k.PK, SK: k.SK, EntityType: TypeProduct, ProductID: in.ProductID, Name: in.Name,
		Price: in.Price, Currency: in.Currency, Featured: in.Featured, CreatedAt: keys.Timestamp(s.now())}
	if in.Featured {
		p.FeaturedPK, p.FeaturedSK = s.keys.FeaturedPartition, in.Name+"#"+in.ProductID
	}
	if err := s.putNew(ctx, p); err != nil {
		if _, ok := conditionFailed(err); ok {
			return Product{}, fmt.Errorf("product %q: %w", in.ProductID, ErrAlreadyExists)
		}
		return Product{}, err
	}
	return p, nil
}

// ProcessPayment marks a payment processed and REMOVEs its Unprocessed index
// keys, which takes it out of the sparse index, and puts the order's user on
// it for its PaymentProcessed event: charge's request names only the order,
// so the payment is written without the user (runtime/payments). That costs
// a strongly consistent GetItem of the order, projected to userId (1 read
// unit), before the UpdateItem: two requests. Processing twice is harmless:
// the first processedAt and userId are kept. The voided payment of a
// cancelled order is not processed: ErrPaymentVoided.
func (s *Store) ProcessPayment(ctx context.Context, orderID, paymentID string) (Payment, error) {
	k, err := s.keys.Payment(orderID, paymentID)
	if err != nil {
		return Payment{}, err
	}
	userID, err := s.orderUser(ctx, orderID, paymentID)
	if err != nil {
		return Payment{}, err
	}
	processedAt, user := expression.Name("processedAt"), expression.Name("userId")
	upd := expression.Set(expression.Name("status"), expression.Value(PaymentProcessed)).
		Set(processedAt, expression.IfNotExists(processedAt, expression.Value(keys.Timestamp(s.now())))).
		Set(user, expression.IfNotExists(user, expression.Value(userID))).
		Remove(expression.Name(s.sch.Unprocessed.PartitionKey)).
		Remove(expression.Name(s.sch.Unprocessed.SortKey))
	expr, err := expression.NewBuilder().WithUpdate(upd).
		WithCondition(s.items.Exists().And(expression.Name(s.sch.EntityType).Equal(expression.Value(TypePayment))).
			And(expression.Name("status").NotEqual(expression.Value(PaymentVoided)))).Build()
	if err != nil {
		return Payment{}, err
	}
	var out *dynamodb.UpdateItemOutput
	err = retry.Do(ctx, s.retry, func(int) error {
		var err error
		out, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName:                           aws.String(s.table),
			Key:                                 s.items.Key(k),
			UpdateExpression:                    expr.Update(),
			ConditionExpression:                 expr.Condition(),
			ExpressionAttributeNames:            expr.Names(),
			ExpressionAttributeValues:           expr.Values(),
			ReturnValues:                        types.ReturnValueAllNew,
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		})
		return err
	})
	if old, ok := conditionFailed(err); ok {
		var p Payment
		if len(old) > 0 && s.items.Unmarshal(old, &p) == nil && p.Status == PaymentVoided {
			return Payment{}, fmt.Errorf("payment %q of order %q: its order was cancelled: %w", paymentID, orderID, ErrPaymentVoided)
		}
		return Payment{}, notFound("payment", paymentID)
	}
	if err != nil {
		return Payment{}, err
	}
	var p Payment
	return p, s.items.Unmarshal(out.Attributes, &p)
}

// orderUser reads the user of the order a payment belongs to. No order
// means no payment either.
func (s *Store) orderUser(ctx context.Context, orderID, paymentID string) (string, error) {
	u, err := s.OrderOwner(ctx, orderID)
	if errors.Is(err, ErrNotFound) {
		return "", notFound("payment", paymentID)
	}
	return u, err
}
