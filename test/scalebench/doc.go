// Package scalebench finds the scale ceiling of every access pattern and
// money flow of oncetable on production-skewed data (test/population),
// with the embedded engine's partition throughput emulation on
// (ddblocal.PartitionThroughput). It is `make bench-scale`, which writes
// docs/reports/scale.md and docs/reports/scale.svg.
//
// The ceiling is the partitions', not this machine's. The engine's
// per-partition limits are DynamoDB's (3,000 RCU and 1,000 WCU per
// partition-key value per second) divided by Config.Scale (default 20):
// every rate the bench offers is then Scale times smaller than the
// DynamoDB rate it stands for, small enough for two shared cores to offer
// in full, and the throttling is the same because the token buckets are
// linear in the rate. Every figure is reported at DynamoDB scale
// (multiplied back by Scale).
//
// For each pattern the bench ramps an open-loop offered load (doubling
// from Config.StartRate; each step a warm-up and a measured window),
// drawing each call's user, product or order from the population's own
// activity distributions, until at least 1% of calls are throttled;
// it then measures the geometric midpoint of the last clean and the
// first throttled step (so the onset is known within a factor √2), and
// runs once more at twice the onset. Calls are not retried (the store's
// retry policy and the SDK retryer are off), so a throttle is seen as
// such. Each step records what reached the engine (the requests counted
// by a wrapper in front of the in-process client), the ThrottlingReasons
// and transaction cancellation codes the calls got, the partition keys the
// engine throttled (Engine.ThrottledKeys, as Contributor Insights would
// show them), latency, and the process's CPU use, and it flags a step
// where the client, not the partitions, limited the load: calls dropped
// because every worker was busy, or the dispatcher falling behind its
// schedule.
//
// Four tables are measured: v1 (today's layout: orders by status on
// GSI1), v2 (OrdersByStatus over Config.OrderShards shards), v2 with the
// unprocessed queue sharded as docs/migrations.md sketches it (the
// Unprocessed index keyed by UnprocessedPK and a number queueShard that
// a wrapper adds to each new payment: what a charge writing the shard
// would send), and platform-1, v1 with the platform accounts' totals on
// one item each: its PlatformTotals (the totaller's writes,
// runtime/platform) is compared with v1's, on the default shards.
package scalebench
