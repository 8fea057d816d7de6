// Package population generates a production-like population for
// oncetable's single table and loads it through the real writers (the
// store and the money flows of runtime/payments, so every item is built by
// the code that builds it in production):
//
//   - users, merchants and products whose activity is Zipf-skewed (the
//     k-th most active has weight 1/k^s), with a few very hot users on top
//     that take a fixed share of all activity together;
//   - orders drawn by that activity, so the orders per user have a long
//     tail: most users have a few, the hot ones thousands;
//   - each order's life cycle: most are paid and their payment processed,
//     some are left created (not charged), some charged with their payment
//     unprocessed, so the sparse Unprocessed index and both status
//     partitions of GSI1 hold a backlog;
//   - featured products in the sparse Featured index.
//
// The table has no merchant entity: a merchant is the owner of products
// (its id prefixes theirs), and a merchant's popularity is what makes its
// products hot. Sizes, skews and shares are [Config] fields; the seed is
// fixed (Config.Seed), so two loads of one Config draw the same users,
// orders and lines (the flows still mint their own payment and ledger ids).
//
// [Population] keeps the activity distributions, so that a load generator
// (test/scalebench) draws its targets with the skew the data was made with.
package population
