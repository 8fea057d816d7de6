package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/retry"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/txn"
)

// NotExists is the condition that the item does not exist yet.
func NotExists() expression.ConditionBuilder {
	return expression.AttributeNotExists(expression.Name(schema.PartitionKey))
}

// Exists is the condition that the item exists.
func Exists() expression.ConditionBuilder {
	return expression.AttributeExists(expression.Name(schema.PartitionKey))
}

// PutNew is a transaction Put of item under the condition that its key is free.
func PutNew(table string, item any) (types.TransactWriteItem, error) {
	av, err := attributevalue.MarshalMap(item)
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	expr, err := expression.NewBuilder().WithCondition(NotExists()).Build()
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{Put: &types.Put{
		TableName:                           aws.String(table),
		Item:                                av,
		ConditionExpression:                 expr.Condition(),
		ExpressionAttributeNames:            expr.Names(),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}}, nil
}

// Update is a transaction Update of key with an update and a condition that
// returns the old item when the condition fails.
func Update(table string, k keys.Key, upd expression.UpdateBuilder, cond expression.ConditionBuilder) (types.TransactWriteItem, error) {
	expr, err := expression.NewBuilder().WithUpdate(upd).WithCondition(cond).Build()
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{Update: &types.Update{
		TableName:                           aws.String(table),
		Key:                                 keyAV(k),
		UpdateExpression:                    expr.Update(),
		ConditionExpression:                 expr.Condition(),
		ExpressionAttributeNames:            expr.Names(),
		ExpressionAttributeValues:           expr.Values(),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}}, nil
}

// NewUser is the input of CreateUser.
type NewUser struct {
	UserID string
	Name   string
	Email  string
}

// CreateUser writes a profile with a zero balance (PutItem,
// attribute_not_exists). An existing id gives ErrAlreadyExists.
func (s *Store) CreateUser(ctx context.Context, in NewUser) (User, error) {
	k, err := keys.User(in.UserID)
	if err != nil {
		return User{}, err
	}
	now := keys.Timestamp(s.now())
	u := User{PK: k.PK, SK: k.SK, EntityType: TypeUser, UserID: in.UserID, Name: in.Name, Email: in.Email,
		CreatedAt: now, UpdatedAt: now}
	if err := s.putNew(ctx, u); err != nil {
		if _, ok := conditionFailed(err); ok {
			return User{}, fmt.Errorf("user %q: %w", in.UserID, ErrAlreadyExists)
		}
		return User{}, err
	}
	return u, nil
}

func (s *Store) putNew(ctx context.Context, item any) error {
	av, err := attributevalue.MarshalMap(item)
	if err != nil {
		return err
	}
	expr, err := expression.NewBuilder().WithCondition(NotExists()).Build()
	if err != nil {
		return err
	}
	return retry.Do(ctx, s.retry, func(int) error {
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
	uk, err := keys.User(userID)
	if err != nil {
		return Address{}, err
	}
	ak, err := keys.Address(userID, in.AddressID)
	if err != nil {
		return Address{}, err
	}
	now := keys.Timestamp(s.now())
	a := Address{PK: ak.PK, SK: ak.SK, EntityType: TypeAddress, UserID: userID, AddressID: in.AddressID,
		Line1: in.Line1, Line2: in.Line2, City: in.City, PostalCode: in.PostalCode, Country: in.Country, CreatedAt: now}
	count := expression.Name("addressCount")
	bump, err := Update(s.table, uk,
		expression.Set(count, expression.Plus(expression.IfNotExists(count, expression.Value(0)), expression.Value(1))).
			Set(expression.Name(schema.UpdatedAt), expression.Value(now)),
		Exists().And(expression.Or(expression.AttributeNotExists(count), count.LessThan(expression.Value(MaxAddresses)))))
	if err != nil {
		return Address{}, err
	}
	put, err := PutNew(s.table, a)
	if err != nil {
		return Address{}, err
	}
	var tx txn.Items
	tx.Add("profile", bump)
	tx.Add("address", put)
	err = retry.Do(ctx, s.retry, func(int) error {
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
	k, err := keys.Product(in.ProductID)
	if err != nil {
		return Product{}, err
	}
	p := Product{PK: k.PK, SK: k.SK, EntityType: TypeProduct, ProductID: in.ProductID, Name: in.Name,
		Price: in.Price, Currency: in.Currency, Featured: in.Featured, CreatedAt: keys.Timestamp(s.now())}
	if in.Featured {
		p.FeaturedPK, p.FeaturedSK = keys.FeaturedPartition, in.Name+"#"+in.ProductID
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
// keys, which takes it out of the sparse index (one UpdateItem). Processing
// twice is harmless: the first processedAt is kept.
func (s *Store) ProcessPayment(ctx context.Context, orderID, paymentID string) (Payment, error) {
	k, err := keys.Payment(orderID, paymentID)
	if err != nil {
		return Payment{}, err
	}
	processedAt := expression.Name("processedAt")
	upd := expression.Set(expression.Name("status"), expression.Value(PaymentProcessed)).
		Set(processedAt, expression.IfNotExists(processedAt, expression.Value(keys.Timestamp(s.now())))).
		Remove(expression.Name(schema.Unprocessed.PartitionKey)).
		Remove(expression.Name(schema.Unprocessed.SortKey))
	expr, err := expression.NewBuilder().WithUpdate(upd).
		WithCondition(Exists().And(expression.Name(schema.EntityType).Equal(expression.Value(TypePayment)))).Build()
	if err != nil {
		return Payment{}, err
	}
	var out *dynamodb.UpdateItemOutput
	err = retry.Do(ctx, s.retry, func(int) error {
		var err error
		out, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName:                 aws.String(s.table),
			Key:                       keyAV(k),
			UpdateExpression:          expr.Update(),
			ConditionExpression:       expr.Condition(),
			ExpressionAttributeNames:  expr.Names(),
			ExpressionAttributeValues: expr.Values(),
			ReturnValues:              types.ReturnValueAllNew,
		})
		return err
	})
	if _, ok := conditionFailed(err); ok {
		return Payment{}, notFound("payment", paymentID)
	}
	if err != nil {
		return Payment{}, err
	}
	var p Payment
	return p, attributevalue.UnmarshalMap(out.Attributes, &p)
}
