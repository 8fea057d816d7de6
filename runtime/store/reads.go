package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/retry"
	"github.com/oncetable/oncetable/runtime/schema"
)

// KeyAV is [Builder.Key] under schema.Default.
func KeyAV(k keys.Key) map[string]types.AttributeValue { return Builder{}.Key(k) }

func (s *Store) getItem(ctx context.Context, k keys.Key, out any, proj ...string) (bool, error) {
	in := &dynamodb.GetItemInput{TableName: aws.String(s.table), Key: s.items.Key(k), ConsistentRead: aws.Bool(true)}
	if len(proj) > 0 {
		pb := expression.NamesList(expression.Name(proj[0]))
		for _, p := range proj[1:] {
			pb = pb.AddNames(expression.Name(p))
		}
		expr, err := expression.NewBuilder().WithProjection(pb).Build()
		if err != nil {
			return false, err
		}
		in.ProjectionExpression, in.ExpressionAttributeNames = expr.Projection(), expr.Names()
	}
	var outp *dynamodb.GetItemOutput
	err := retry.Do(ctx, s.retry, func(int) error {
		var err error
		outp, err = s.db.GetItem(ctx, in)
		return err
	})
	if err != nil {
		return false, err
	}
	if len(outp.Item) == 0 {
		return false, nil
	}
	return true, s.items.Unmarshal(outp.Item, out)
}

// User returns a user's profile (GetItem, strongly consistent).
func (s *Store) User(ctx context.Context, userID string) (User, error) {
	k, err := s.keys.User(userID)
	if err != nil {
		return User{}, err
	}
	var u User
	ok, err := s.getItem(ctx, k, &u)
	if err != nil {
		return User{}, err
	}
	if !ok {
		return User{}, notFound("user", userID)
	}
	return u, nil
}

// Balance is a user's balance. Currency is absent until the first credit
// fixes it, as in the profile (User.Currency).
type Balance struct {
	UserID string `json:"userId"`
	// Balance is the user's posted money: what the ledger sums to.
	Balance  int64  `json:"balance"`
	Currency string `json:"currency,omitempty"`
	// Available is what a debit, settle, transfer or hold may take now:
	// Balance less the holds that have not expired.
	Available int64 `json:"available"`
	// Held is the sum of the holds that have not expired.
	Held int64 `json:"held"`
}

// Balance reads a user's balance with a strongly consistent, projected
// GetItem of the profile. Currency is empty until the first credit.
func (s *Store) Balance(ctx context.Context, userID string) (Balance, error) {
	k, err := s.keys.User(userID)
	if err != nil {
		return Balance{}, err
	}
	var u User
	ok, err := s.getItem(ctx, k, &u, s.sch.PartitionKey, "balance", "currency", "holds")
	if err != nil {
		return Balance{}, err
	}
	if !ok {
		return Balance{}, notFound("user", userID)
	}
	// An expired hold no longer counts, whether or not a flow has
	// released it yet (docs/ledger.md, "Expiry without a sweeper").
	open, expired := u.Held(keys.Timestamp(s.Now()))
	return Balance{UserID: userID, Balance: u.Balance + open + expired, Available: u.Balance + expired, Held: open, Currency: u.Currency}, nil
}

// UserView is a user with addresses and recent orders.
type UserView struct {
	User
	Addresses    []Address   `json:"addresses"`
	RecentOrders []UserOrder `json:"recentOrders"`
}

// UserView reads profile, addresses and the newest orders with one Query:
// PK = USER#<id> AND SK >= "ORDER#", newest first. Descending, the partition
// yields PROFILE#ADDR#* (at most MaxAddresses), then PROFILE, then
// ORDER#<createdAt>#* newest first; ledger and idempotency records sort
// below ORDER# and are never read.
func (s *Store) UserView(ctx context.Context, userID string) (UserView, error) {
	pk, err := s.keys.UserPartition(userID)
	if err != nil {
		return UserView{}, err
	}
	kc := expression.Key(s.sch.PartitionKey).Equal(expression.Value(pk)).
		And(expression.Key(s.sch.SortKey).GreaterThanEqual(expression.Value(s.keys.UserOrderPrefix)))
	expr, err := expression.NewBuilder().WithKeyCondition(kc).Build()
	if err != nil {
		return UserView{}, err
	}
	out, err := s.query(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		KeyConditionExpression:    expr.KeyCondition(),
		ExpressionAttributeNames:  expr.Names(),
		ExpressionAttributeValues: expr.Values(),
		ScanIndexForward:          aws.Bool(false),
		ConsistentRead:            aws.Bool(true),
		Limit:                     aws.Int32(MaxAddresses + 1 + RecentOrders),
	})
	if err != nil {
		return UserView{}, err
	}
	v := UserView{Addresses: []Address{}, RecentOrders: []UserOrder{}}
	found := false
	for _, item := range out.Items {
		sk := item[s.sch.SortKey].(*types.AttributeValueMemberS).Value
		switch {
		case sk == s.keys.ProfileSK:
			found = true
			err = s.items.Unmarshal(item, &v.User)
		case strings.HasPrefix(sk, s.keys.AddressPrefix):
			var a Address
			err = s.items.Unmarshal(item, &a)
			v.Addresses = append(v.Addresses, a)
		case strings.HasPrefix(sk, s.keys.UserOrderPrefix) && len(v.RecentOrders) < RecentOrders:
			var o UserOrder
			err = s.items.Unmarshal(item, &o)
			v.RecentOrders = append(v.RecentOrders, o)
		}
		if err != nil {
			return UserView{}, err
		}
	}
	if !found {
		return UserView{}, notFound("user", userID)
	}
	return v, nil
}

func (s *Store) query(ctx context.Context, in *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
	var out *dynamodb.QueryOutput
	err := retry.Do(ctx, s.retry, func(int) error {
		var err error
		out, err = s.db.Query(ctx, in)
		return err
	})
	return out, err
}

// pageQuery describes one paginated access pattern.
type pageQuery struct {
	binding    string // names the query for cursor signing
	index      string // "" for the table
	pkAttr     string
	pk         string
	skPrefix   string // "" for the whole partition
	forward    bool
	consistent bool
}

// pageLimit is a requested page size within 1..MaxPageSize, DefaultPageSize
// when none is asked for.
func pageLimit(limit int) int {
	if limit <= 0 {
		return DefaultPageSize
	}
	return min(limit, MaxPageSize)
}

func runPage[T any](ctx context.Context, s *Store, q pageQuery, limit int, cur string) (Page[T], error) {
	limit = pageLimit(limit)
	start, err := s.cursor.Decode(q.binding, cur)
	if err != nil {
		return Page[T]{}, err
	}
	if err := s.checkStart(q, start); err != nil {
		return Page[T]{}, err
	}
	kc := expression.Key(q.pkAttr).Equal(expression.Value(q.pk))
	if q.skPrefix != "" {
		kc = kc.And(expression.Key(s.sch.SortKey).BeginsWith(q.skPrefix))
	}
	expr, err := expression.NewBuilder().WithKeyCondition(kc).Build()
	if err != nil {
		return Page[T]{}, err
	}
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		KeyConditionExpression:    expr.KeyCondition(),
		ExpressionAttributeNames:  expr.Names(),
		ExpressionAttributeValues: expr.Values(),
		ScanIndexForward:          aws.Bool(q.forward),
		Limit:                     aws.Int32(int32(limit + 1)), // one more: is there a next page?
		ExclusiveStartKey:         start,
	}
	if q.index != "" {
		in.IndexName = aws.String(q.index)
	} else {
		in.ConsistentRead = aws.Bool(q.consistent)
	}
	out, err := s.query(ctx, in)
	if err != nil {
		if start != nil && isValidation(err) {
			// checkStart admits only keys inside the query; should the
			// endpoint still find one outside, the cursor is what is wrong.
			return Page[T]{}, fmt.Errorf("%w: outside this query", ErrInvalidCursor)
		}
		return Page[T]{}, err
	}
	items, last := out.Items, out.LastEvaluatedKey
	if len(items) > limit {
		// The extra item proves a next page; it starts after the last one
		// returned. A page that ends the results has no cursor.
		items, last = items[:limit], pageKey(s.sch, items[limit-1], q.index)
	}
	p := Page[T]{Items: make([]T, 0, len(items))}
	for _, item := range items {
		var v T
		if err := s.items.Unmarshal(item, &v); err != nil {
			return Page[T]{}, err
		}
		p.Items = append(p.Items, v)
	}
	if p.NextCursor, err = s.cursor.Encode(q.binding, last); err != nil {
		return Page[T]{}, err
	}
	return p, nil
}

// checkStart admits a decoded cursor only as an ExclusiveStartKey of q: the
// key attributes pageKey writes for q, no other, each a string, in q's
// partition and under its sort key prefix. A signature proves who issued a
// cursor, not that it belongs here: a cursor signed for this binding with a
// leaked or derived secret must still be a 400, never a DynamoDB
// ValidationException ("The provided starting key is outside query
// boundaries").
func (s *Store) checkStart(q pageQuery, start map[string]types.AttributeValue) error {
	if start == nil {
		return nil
	}
	want := []string{s.sch.PartitionKey, s.sch.SortKey}
	if q.index != "" {
		found := false
		for _, ix := range s.sch.Indexes() {
			if ix.Name == q.index {
				want, found = append(want, ix.PartitionKey, ix.SortKey), true
			}
		}
		if !found {
			return fmt.Errorf("store: no index %q in the schema", q.index)
		}
	}
	names := map[string]bool{}
	for _, name := range want {
		names[name] = true
		if v, ok := start[name].(*types.AttributeValueMemberS); !ok || v.Value == "" {
			return fmt.Errorf("%w: not from this query", ErrInvalidCursor)
		}
	}
	if len(start) != len(names) {
		return fmt.Errorf("%w: not from this query", ErrInvalidCursor)
	}
	if start[q.pkAttr].(*types.AttributeValueMemberS).Value != q.pk {
		return fmt.Errorf("%w: not from this query", ErrInvalidCursor)
	}
	if q.index == "" && !strings.HasPrefix(start[s.sch.SortKey].(*types.AttributeValueMemberS).Value, q.skPrefix) {
		return fmt.Errorf("%w: not from this query", ErrInvalidCursor)
	}
	return nil
}

// isValidation reports whether DynamoDB refused a request as malformed.
func isValidation(err error) bool {
	var ae smithy.APIError
	return errors.As(err, &ae) && ae.ErrorCode() == "ValidationException"
}

// pageKey is the ExclusiveStartKey that resumes a Query after item: the
// table's key, plus the index's key on an index.
func pageKey(sch schema.Schema, item map[string]types.AttributeValue, index string) map[string]types.AttributeValue {
	names := []string{sch.PartitionKey, sch.SortKey}
	for _, ix := range sch.Indexes() {
		if ix.Name == index {
			names = append(names, ix.PartitionKey, ix.SortKey)
		}
	}
	key := map[string]types.AttributeValue{}
	for _, n := range names {
		if v, ok := item[n]; ok {
			key[n] = v
		}
	}
	return key
}

// Ledger pages a user's ledger newest first: Query PK = USER#<id> AND
// begins_with(SK, "LEDGER#"), descending, strongly consistent.
func (s *Store) Ledger(ctx context.Context, userID string, limit int, cur string) (Page[LedgerEntry], error) {
	pk, err := s.keys.UserPartition(userID)
	if err != nil {
		return Page[LedgerEntry]{}, err
	}
	return runPage[LedgerEntry](ctx, s, pageQuery{binding: "ledger", pkAttr: s.sch.PartitionKey, pk: pk,
		skPrefix: s.keys.LedgerPrefix, consistent: true}, limit, cur)
}

// UserOrders pages a user's orders newest first: Query PK = USER#<id> AND
// begins_with(SK, "ORDER#"), descending, strongly consistent.
func (s *Store) UserOrders(ctx context.Context, userID string, limit int, cur string) (Page[UserOrder], error) {
	pk, err := s.keys.UserPartition(userID)
	if err != nil {
		return Page[UserOrder]{}, err
	}
	return runPage[UserOrder](ctx, s, pageQuery{binding: "userOrders", pkAttr: s.sch.PartitionKey, pk: pk,
		skPrefix: s.keys.UserOrderPrefix, consistent: true}, limit, cur)
}

// UnprocessedPayments pages the sparse Unprocessed index oldest first:
// Query UnprocessedPK = PAYMENT#UNPROCESSED, ascending. Eventually
// consistent; only projected attributes are returned.
func (s *Store) UnprocessedPayments(ctx context.Context, limit int, cur string) (Page[Payment], error) {
	return runPage[Payment](ctx, s, pageQuery{binding: "unprocessed", index: s.sch.Unprocessed.Name,
		pkAttr: s.sch.Unprocessed.PartitionKey, pk: s.keys.UnprocessedPartition, forward: true}, limit, cur)
}

// FeaturedProducts pages the sparse Featured index by name: Query
// FeaturedPK = PROD#FEATURED, ascending. Eventually consistent.
func (s *Store) FeaturedProducts(ctx context.Context, limit int, cur string) (Page[Product], error) {
	return runPage[Product](ctx, s, pageQuery{binding: "featured", index: s.sch.Featured.Name,
		pkAttr: s.sch.Featured.PartitionKey, pk: s.keys.FeaturedPartition, forward: true}, limit, cur)
}

// Product reads a product (GetItem, strongly consistent).
func (s *Store) Product(ctx context.Context, productID string) (Product, error) {
	k, err := s.keys.Product(productID)
	if err != nil {
		return Product{}, err
	}
	var p Product
	ok, err := s.getItem(ctx, k, &p)
	if err != nil {
		return Product{}, err
	}
	if !ok {
		return Product{}, notFound("product", productID)
	}
	return p, nil
}

// LegacyLedgerWindow is how long after its id's time an entry's sort key
// may be, for an entry whose sort key took its time from the commit rather
// than from its id (the keys oncetable v0.1.0 wrote): [Store.LedgerEntry]
// looks there when the GetItem finds nothing.
const LegacyLedgerWindow = time.Minute

// LedgerEntry reads one entry of a user's ledger by its id: a GetItem,
// strongly consistent, on the key the id gives (keys.Layout.Ledger). An id
// that holds no time is not found. When the GetItem finds nothing, one
// Query of the [LegacyLedgerWindow] after the id's time, filtered on the
// id, finds an entry keyed by its commit time; a new entry never needs it.
func (s *Store) LedgerEntry(ctx context.Context, userID, entryID string) (LedgerEntry, error) {
	if _, err := s.keys.User(userID); err != nil {
		return LedgerEntry{}, err
	}
	if err := keys.ValidateID("entryId", entryID); err != nil {
		return LedgerEntry{}, err
	}
	k, err := s.keys.Ledger(userID, entryID)
	if err != nil {
		return LedgerEntry{}, notFound("ledger entry", entryID) // a well-formed id that holds no time names no entry
	}
	var e LedgerEntry
	found, err := s.getItem(ctx, k, &e)
	if err != nil || found {
		return e, err
	}
	return s.legacyLedgerEntry(ctx, k.PK, entryID)
}

// legacyLedgerEntry is the Query of [Store.LedgerEntry] for an entry keyed
// by its commit time, which follows its id's time within LegacyLedgerWindow.
func (s *Store) legacyLedgerEntry(ctx context.Context, pk, entryID string) (LedgerEntry, error) {
	at, err := keys.IDTime(entryID)
	if err != nil {
		return LedgerEntry{}, err
	}
	from := s.keys.LedgerPrefix + keys.Timestamp(at)
	to := s.keys.LedgerPrefix + keys.Timestamp(at.Add(LegacyLedgerWindow))
	kc := expression.Key(s.sch.PartitionKey).Equal(expression.Value(pk)).
		And(expression.Key(s.sch.SortKey).Between(expression.Value(from), expression.Value(to)))
	expr, err := expression.NewBuilder().WithKeyCondition(kc).
		WithFilter(expression.Name("entryId").Equal(expression.Value(entryID))).Build()
	if err != nil {
		return LedgerEntry{}, err
	}
	in := &dynamodb.QueryInput{TableName: aws.String(s.table), KeyConditionExpression: expr.KeyCondition(),
		FilterExpression: expr.Filter(), ExpressionAttributeNames: expr.Names(),
		ExpressionAttributeValues: expr.Values(), ConsistentRead: aws.Bool(true)}
	for {
		out, err := s.query(ctx, in)
		if err != nil {
			return LedgerEntry{}, err
		}
		if len(out.Items) > 0 {
			var e LedgerEntry
			return e, s.items.Unmarshal(out.Items[0], &e)
		}
		if len(out.LastEvaluatedKey) == 0 {
			return LedgerEntry{}, notFound("ledger entry", entryID)
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// Payment reads a payment of an order (GetItem, strongly consistent).
func (s *Store) Payment(ctx context.Context, orderID, paymentID string) (Payment, error) {
	k, err := s.keys.Payment(orderID, paymentID)
	if err != nil {
		return Payment{}, err
	}
	var p Payment
	ok, err := s.getItem(ctx, k, &p)
	if err != nil {
		return Payment{}, err
	}
	if !ok {
		return Payment{}, notFound("payment", paymentID)
	}
	return p, nil
}

// OrderView is an order with its items, payments and refunds.
type OrderView struct {
	Order
	Items    []OrderItem `json:"items"`
	Payments []Payment   `json:"payments"`
	Refunds  []Refund    `json:"refunds,omitempty"`
}

// Refund reads a refund of an order (GetItem, strongly consistent).
func (s *Store) Refund(ctx context.Context, orderID, refundID string) (Refund, error) {
	k, err := s.keys.Refund(orderID, refundID)
	if err != nil {
		return Refund{}, err
	}
	var r Refund
	ok, err := s.getItem(ctx, k, &r)
	if err != nil {
		return Refund{}, err
	}
	if !ok {
		return Refund{}, notFound("refund", refundID)
	}
	return r, nil
}

// Refunds pages an order's refunds oldest first: Query PK = ORDER#<id> AND
// begins_with(SK, "REFUND#"), ascending (refund ids sort by time),
// strongly consistent.
func (s *Store) Refunds(ctx context.Context, orderID string, limit int, cur string) (Page[Refund], error) {
	k, err := s.keys.Order(orderID)
	if err != nil {
		return Page[Refund]{}, err
	}
	return runPage[Refund](ctx, s, pageQuery{binding: "refunds", pkAttr: s.sch.PartitionKey, pk: k.PK,
		skPrefix: s.keys.RefundPrefix, forward: true, consistent: true}, limit, cur)
}

// OrderOwner reads the user of an order (GetItem, strongly consistent,
// projected to userId: one read unit). An order's user never changes.
func (s *Store) OrderOwner(ctx context.Context, orderID string) (string, error) {
	k, err := s.keys.Order(orderID)
	if err != nil {
		return "", err
	}
	var o struct {
		UserID string `dynamodbav:"userId"`
	}
	found, err := s.getItem(ctx, k, &o, "userId")
	switch {
	case err != nil:
		return "", err
	case !found:
		return "", notFound("order", orderID)
	case o.UserID == "":
		return "", fmt.Errorf("store: order %q has no userId", orderID)
	}
	return o.UserID, nil
}

// Order reads an order with its items, payments and refunds in one
// strongly consistent Query: PK = ORDER#<id> AND SK >= "ITEM#" (ITEM#*,
// ORDER#<id>, PAYMENT#*, REFUND#*; the IDEM# records sort below and are
// not read).
func (s *Store) Order(ctx context.Context, orderID string) (OrderView, error) {
	k, err := s.keys.Order(orderID)
	if err != nil {
		return OrderView{}, err
	}
	kc := expression.Key(s.sch.PartitionKey).Equal(expression.Value(k.PK)).
		And(expression.Key(s.sch.SortKey).GreaterThanEqual(expression.Value(s.keys.ItemPrefix)))
	expr, err := expression.NewBuilder().WithKeyCondition(kc).Build()
	if err != nil {
		return OrderView{}, err
	}
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		KeyConditionExpression:    expr.KeyCondition(),
		ExpressionAttributeNames:  expr.Names(),
		ExpressionAttributeValues: expr.Values(),
		ConsistentRead:            aws.Bool(true),
	}
	v := OrderView{Items: []OrderItem{}, Payments: []Payment{}}
	found := false
	for {
		out, err := s.query(ctx, in)
		if err != nil {
			return OrderView{}, err
		}
		for _, item := range out.Items {
			sk := item[s.sch.SortKey].(*types.AttributeValueMemberS).Value
			switch {
			case sk == k.SK:
				found = true
				err = s.items.Unmarshal(item, &v.Order)
			case strings.HasPrefix(sk, s.keys.ItemPrefix):
				var it OrderItem
				err = s.items.Unmarshal(item, &it)
				v.Items = append(v.Items, it)
			case strings.HasPrefix(sk, s.keys.PaymentPrefix):
				var p Payment
				err = s.items.Unmarshal(item, &p)
				v.Payments = append(v.Payments, p)
			case strings.HasPrefix(sk, s.keys.RefundPrefix):
				var r Refund
				err = s.items.Unmarshal(item, &r)
				v.Refunds = append(v.Refunds, r)
			}
			if err != nil {
				return OrderView{}, err
			}
		}
		if len(out.LastEvaluatedKey) == 0 {
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	if !found {
		return OrderView{}, notFound("order", orderID)
	}
	return v, nil
}

// Hold reads a user's hold with a strongly consistent GetItem. An
// authorized hold past its expiresAt reads as expired (HoldExpired).
func (s *Store) Hold(ctx context.Context, userID, holdID string) (Hold, error) {
	k, err := s.keys.Hold(userID, holdID)
	if err != nil {
		return Hold{}, err
	}
	var h Hold
	ok, err := s.getItem(ctx, k, &h)
	if err != nil {
		return Hold{}, err
	}
	if !ok {
		return Hold{}, notFound("hold", holdID)
	}
	return h.At(keys.Timestamp(s.Now())), nil
}
