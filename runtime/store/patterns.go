package store

import (
	"context"
	"fmt"

	"github.com/oncetable/oncetable/runtime/schema"
)

// Pattern is one access pattern of the table: a named read that the store
// serves, the request it sends, its key condition and its index. The
// key condition is written with the schema's attribute names and the key
// layout's prefixes, and placeholders for the caller's values: <userId>,
// <orderId>, <productId>, <holdId>, <status> and <shard>. TestAccessPatterns runs
// every pattern against the engine and checks that the requests it sends
// are these (docs/access-patterns.md is generated from them).
type Pattern struct {
	// Name identifies the pattern (the operation's name in the store).
	Name string
	// Title says what it reads.
	Title string
	// Route is the API route that serves it, if any.
	Route string
	// Operation is the DynamoDB operation: GetItem or Query.
	Operation string
	// Index is the index queried; empty for the table.
	Index string
	// KeyCondition is the key of a GetItem or the key condition of a Query.
	KeyCondition string
	// Options are the other parameters that shape the request (order,
	// Limit, projection).
	Options string
	// Consistent reports a strongly consistent read.
	Consistent bool
	// Requests is how many requests one call sends by design.
	Requests int
	// Run calls the pattern with a's values.
	Run func(ctx context.Context, s *Store, a PatternArgs) error
}

// PatternArgs are the values a pattern is called with; each pattern uses
// those its key condition names.
type PatternArgs struct {
	UserID, OrderID, ProductID, Status, HoldID string
	// PaymentID is a payment of OrderID, EntryID an entry of UserID's ledger.
	PaymentID, EntryID string
	// Limit is the page size of the paginated patterns (0: the default).
	Limit int
}

// Consistency is "strong" or "eventual".
func (p Pattern) Consistency() string {
	if p.Consistent {
		return "strong"
	}
	return "eventual"
}

// Pattern returns the access pattern named name of s's layout.
func (s *Store) Pattern(name string) (Pattern, bool) {
	for _, p := range s.Patterns() {
		if p.Name == name {
			return p, true
		}
	}
	return Pattern{}, false
}

// Patterns lists the read access patterns of s's table, in the order of
// docs/access-patterns.md. Orders by status reads GSI1 in stage v1 (and
// in stage both before the cutover), the shards of OrdersByStatus in v2.
func (s *Store) Patterns() []Pattern {
	pk, sk, kl := s.sch.PartitionKey, s.sch.SortKey, s.keys
	eq := func(attr, v string) string { return fmt.Sprintf("%s = %q", attr, v) }
	user := kl.UserPrefix + "<userId>"
	order := kl.OrderPrefix + "<orderId>"
	product := kl.ProductPrefix + "<productId>"
	page := fmt.Sprintf("Limit = limit + 1 (1..%d, default %d)", MaxPageSize, DefaultPageSize)
	ps := []Pattern{
		{Name: "User", Title: "a user's profile (and balance)", Operation: "GetItem",
			KeyCondition: eq(pk, user) + " AND " + eq(sk, kl.ProfileSK), Consistent: true, Requests: 1,
			Run: func(ctx context.Context, s *Store, a PatternArgs) error { _, err := s.User(ctx, a.UserID); return err }},
		{Name: "Balance", Title: "a user's balance", Route: "GET /users/{userId}/balance", Operation: "GetItem",
			KeyCondition: eq(pk, user) + " AND " + eq(sk, kl.ProfileSK), Options: "projection " + pk + ", balance, currency, holds",
			Consistent: true, Requests: 1,
			Run: func(ctx context.Context, s *Store, a PatternArgs) error {
				_, err := s.Balance(ctx, a.UserID)
				return err
			}},
		{Name: "Hold", Title: "a user's hold", Route: "GET /users/{userId}/holds/{holdId}", Operation: "GetItem",
			KeyCondition: eq(pk, user) + " AND " + eq(sk, kl.HoldPrefix+"<holdId>"), Consistent: true, Requests: 1,
			Run: func(ctx context.Context, s *Store, a PatternArgs) error {
				_, err := s.Hold(ctx, a.UserID, a.HoldID)
				return err
			}},
		{Name: "UserView", Title: "a user with addresses and recent orders", Route: "GET /users/{userId}", Operation: "Query",
			KeyCondition: eq(pk, user) + " AND " + fmt.Sprintf("%s >= %q", sk, kl.UserOrderPrefix),
			Options:      fmt.Sprintf("descending, Limit %d: %s* (≤ %d), %s, then %s* newest first", MaxAddresses+1+RecentOrders, kl.AddressPrefix, MaxAddresses, kl.ProfileSK, kl.UserOrderPrefix),
			Consistent:   true, Requests: 1,
			Run: func(ctx context.Context, s *Store, a PatternArgs) error {
				_, err := s.UserView(ctx, a.UserID)
				return err
			}},
		{Name: "UserOrders", Title: "a user's orders, newest first, paginated", Route: "GET /users/{userId}/orders", Operation: "Query",
			KeyCondition: eq(pk, user) + " AND " + fmt.Sprintf("begins_with(%s, %q)", sk, kl.UserOrderPrefix),
			Options:      "descending, " + page, Consistent: true, Requests: 1,
			Run: func(ctx context.Context, s *Store, a PatternArgs) error {
				_, err := s.UserOrders(ctx, a.UserID, a.Limit, "")
				return err
			}},
		{Name: "Ledger", Title: "a user's ledger, newest first, paginated", Route: "GET /users/{userId}/ledger", Operation: "Query",
			KeyCondition: eq(pk, user) + " AND " + fmt.Sprintf("begins_with(%s, %q)", sk, kl.LedgerPrefix),
			Options:      "descending, " + page, Consistent: true, Requests: 1,
			Run: func(ctx context.Context, s *Store, a PatternArgs) error {
				_, err := s.Ledger(ctx, a.UserID, a.Limit, "")
				return err
			}},
		{Name: "LedgerEntry", Title: "one entry of a user's ledger", Route: "GET /users/{userId}/ledger/{entryId}", Operation: "GetItem",
			KeyCondition: eq(pk, user) + " AND " + eq(sk, kl.LedgerPrefix+"<at>#<entryId>"),
			Options:      "<at> is the time <entryId> holds (keys.IDTime)", Consistent: true, Requests: 1,
			Run: func(ctx context.Context, s *Store, a PatternArgs) error {
				_, err := s.LedgerEntry(ctx, a.UserID, a.EntryID)
				return err
			}},
		{Name: "Order", Title: "an order with its items and payments", Route: "GET /orders/{orderId}", Operation: "Query",
			KeyCondition: eq(pk, order) + " AND " + fmt.Sprintf("%s >= %q", sk, kl.ItemPrefix),
			Options:      fmt.Sprintf("yields %s*, %s<orderId>, %s*", kl.ItemPrefix, kl.OrderPrefix, kl.PaymentPrefix),
			Consistent:   true, Requests: 1,
			Run: func(ctx context.Context, s *Store, a PatternArgs) error {
				_, err := s.Order(ctx, a.OrderID)
				return err
			}},
		{Name: "Payment", Title: "a payment of an order", Route: "GET /orders/{orderId}/payments/{paymentId}", Operation: "GetItem",
			KeyCondition: eq(pk, order) + " AND " + eq(sk, kl.PaymentPrefix+"<paymentId>"), Consistent: true, Requests: 1,
			Run: func(ctx context.Context, s *Store, a PatternArgs) error {
				_, err := s.Payment(ctx, a.OrderID, a.PaymentID)
				return err
			}},
		s.byStatusPattern(page),
		{Name: "Product", Title: "a product", Route: "GET /products/{productId}", Operation: "GetItem",
			KeyCondition: eq(pk, product) + " AND " + eq(sk, product), Consistent: true, Requests: 1,
			Run: func(ctx context.Context, s *Store, a PatternArgs) error {
				_, err := s.Product(ctx, a.ProductID)
				return err
			}},
		{Name: "FeaturedProducts", Title: "featured products, by name", Route: "GET /products?featured=true", Operation: "Query",
			Index: s.sch.Featured.Name, KeyCondition: eq(s.sch.Featured.PartitionKey, kl.FeaturedPartition),
			Options: "ascending, " + page, Requests: 1,
			Run: func(ctx context.Context, s *Store, a PatternArgs) error {
				_, err := s.FeaturedProducts(ctx, a.Limit, "")
				return err
			}},
		{Name: "UnprocessedPayments", Title: "unprocessed payments, oldest first", Route: "GET /payments/unprocessed", Operation: "Query",
			Index: s.sch.Unprocessed.Name, KeyCondition: eq(s.sch.Unprocessed.PartitionKey, kl.UnprocessedPartition),
			Options: "ascending, " + page, Requests: 1,
			Run: func(ctx context.Context, s *Store, a PatternArgs) error {
				_, err := s.UnprocessedPayments(ctx, a.Limit, "")
				return err
			}},
	}
	return ps
}

// byStatusPattern is orders by status in the store's layout: one Query of
// GSI1 before the cutover of orders-by-status-v2, one per shard of
// OrdersByStatus from it on (stage v2; stage both is described as before
// the cutover, where it starts).
func (s *Store) byStatusPattern(page string) Pattern {
	p := Pattern{Name: "OrdersByStatus", Title: "orders in a status, newest first, paginated", Route: "GET /orders?status={status}",
		Operation: "Query", Requests: 1,
		Run: func(ctx context.Context, s *Store, a PatternArgs) error {
			_, err := s.OrdersByStatus(ctx, a.Status, a.Limit, "")
			return err
		}}
	if s.orders.Layout().Stage != schema.OrdersV2 {
		p.Index = s.sch.GSI1.Name
		p.KeyCondition = fmt.Sprintf("%s = %q", s.sch.GSI1.PartitionKey, s.keys.OrderStatusPrefix+"<status>")
		p.Options = "descending, " + page
		return p
	}
	ix := s.sch.OrdersByStatus
	hash := ix.HashKeys()
	n := s.orders.Layout().Shards
	p.Index, p.Requests = ix.Name, n
	p.KeyCondition = fmt.Sprintf("%s = %q AND %s = <shard>", hash[0].Name, "<status>", hash[1].Name)
	p.Options = fmt.Sprintf("one Query per shard 0..%d in parallel, descending, Limit = limit + 1 each, merged newest first", n-1)
	return p
}
