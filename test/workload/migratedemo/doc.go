// Package migratedemo is `make migrate-demo`: the invariant workload
// (test/workload) over HTTP on the embedded engine, with partition
// throughput and every fault on, while the reference migration
// orders-by-status-v2 (runtime/migrate/orders) runs in the middle as
// production would run it:
//
//   - deploy 1: UpdateTable adds the OrdersByStatus GSI (the engine
//     backfills it), and the API is redeployed with ORDER_INDEXES=both:
//     new handler instances whose order writers are fenced, while the old
//     instances drain (test/workload's Live.Deploy);
//   - the migration from none to done with runtime/migrate: the backfill is
//     killed once mid-sweep (its context cancelled) and resumed from its
//     checkpoints, and the migration is rolled back once from verify before
//     it goes forward again;
//   - deploy 2: the API is redeployed with ORDER_INDEXES=v2 (no fence, the
//     v2 shape only) and UpdateTable deletes GSI1.
//
// The clients keep writing orders in every phase (a phase lasts until some
// were acknowledged in it). After the run the workload's checkers run (money
// conserved, idempotency, events, ...) and [CheckIndex] reads OrdersByStatus
// across every shard: each order in the table must be there with its current
// status, or it is lost.
//
// [Scale] is the scale figure: orders at a fixed offered rate above one
// partition's write limit, in v1 (one GSI1 partition per status) and in v2
// (N shards), with the engine's throttle counts by reason.
//
// It runs on the embedded engine only, with scaled-down partition limits
// (see [Config]); it is not a load test of DynamoDB.
package migratedemo
