// Package store is the oncetable single-table model: the typed entities
// (with dynamodbav tags, marshalled by attributevalue), their keys (from
// runtime/keys, names from runtime/schema) and the one request that serves
// each access pattern. It also holds the non-money writes (users,
// addresses, products, processing a payment); the money flows live in
// runtime/payments.
//
// Access patterns. Every one is a single request (orders by status in v2:
// one per shard); none is a Scan. Each is also a value, a [Pattern] of
// [Store.Patterns] (name, operation, index, key condition, requests), which
// TestAccessPatterns runs against the engine and from which the table of
// docs/access-patterns.md is generated.
//
//	pattern                          request   key / index                                              consistency
//	a user's profile (and balance)   GetItem   PK=USER#<u>, SK=PROFILE                                   strong
//	a user with addresses and        Query     PK=USER#<u>, SK >= "ORDER#", descending, Limit 21:        strong
//	  recent orders                              PROFILE#ADDR#*, PROFILE, ORDER#<createdAt>#* newest first
//	a user's orders, newest first    Query     PK=USER#<u>, begins_with(SK,"ORDER#"), descending, cursor strong
//	a user's ledger, newest first    Query     PK=USER#<u>, begins_with(SK,"LEDGER#"), descending, cursor strong
//	a user's balance                 GetItem   PK=USER#<u>, SK=PROFILE, projection balance,currency      strong
//	an order by id, with its items   Query     PK=ORDER#<o>, SK >= "ITEM#" (ITEM#*, ORDER#<o>, PAYMENT#*)  strong
//	orders by status, newest first   Query     v1: GSI1: GSI1PK=ORDERSTATUS#<status>, GSI1SK=<createdAt>#<o> eventual
//	                                 N Query   v2: OrdersByStatus: status = :s AND shard = :n, each of   eventual
//	                                             the N shards, merged (createdAt, orderId descending)
//	a product                        GetItem   PK=PROD#<p>, SK=PROD#<p>                                  strong
//	featured products                Query     Featured (sparse): FeaturedPK=PROD#FEATURED               eventual
//	unprocessed payments, oldest     Query     Unprocessed (sparse): UnprocessedPK=PAYMENT#UNPROCESSED  eventual
//	  first                                      processing REMOVEs UnprocessedPK/SK, leaving the index
//	an idempotency record            (read only as the ALL_OLD item of a failed condition, or in settle's
//	                                   BatchGetItem together with the order)                             strong
//
// GSI reads are eventually consistent: an order just settled may still be
// listed under created for a moment. Reads that must be exact after money
// moves (balance, order status) use the base table with ConsistentRead.
//
// Paginated reads return an opaque cursor (runtime/cursor) signed with the
// query's name and checked to lie in the queried partition.
//
// Order layout. Orders by status have two layouts, the stages of the
// migration orders-by-status-v2 (runtime/migrate/orders): the store is
// given one as Options.Orders, an [OrderLayout] (ORDER_INDEXES v1 | both |
// v2, ORDER_SHARDS; the zero value is v1), and chooses from it, once, its
// [OrderWriter] ([Store.Orders]): v1 and v2 write one shape and read no
// phase; stage both is the fenced dual writer (orderwriter_migration.go),
// which reads the migration's phase (cached for PhaseTTL), fences each
// order-writing transaction on it and writes it again when the phase
// moved. Retiring the migration deletes that file. [Store.OrdersByStatus]
// reads GSI1 before the cutover and the N shards of OrdersByStatus from it
// on; its cursor holds the last order returned, which every shard resumes
// after, and a cursor of the other layout is an [ErrCursorLayout].
//
// It is not for HTTP (runtime/httpapi) or for the idempotent money flows
// (runtime/payments).
package store
