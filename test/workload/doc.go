// Package workload is oncetable's invariant workload: N concurrent clients
// drive the real HTTP handlers (net/http -> API Gateway v2 event ->
// runtime/httpapi, the local runner's code path, runtime/localrun) on the
// embedded engine while the engine injects faults in windows over time:
// throttling bursts, TransactionConflict, latency spikes, responses lost
// after commit and GSI propagation delay. It is in the spirit of Jepsen's
// transfer and idempotence workloads.
//
// Clients create users, credit, place orders, charge, debit, settle and read
// balances at random. They retry ambiguous outcomes (timeouts, 5xx,
// connection errors, responses they deliberately drop) with the same
// Idempotency-Key; some resubmit old keys; some reuse a key with a different
// body. Every attempt is recorded in a history. After the run, [Check]
// compares the history with the final table and reports each violation of
// these invariants, with the history that led to it:
//
//   - no balance is ever negative, at any observed read;
//   - every balance equals the sum of its ledger entries;
//   - every acknowledged request was applied exactly once, an unacknowledged
//     one at most once, a request answered with a business failure not at all
//     (unless an earlier attempt of it was still in flight: then it is
//     reported as an observation, not a violation);
//   - every idempotency key was applied at most once (every effect is claimed
//     by exactly one idempotency record, every record by one request);
//   - no order is paid twice and every paid order has exactly one settle
//     ledger entry;
//   - replayed responses are byte-identical to the first;
//   - a key reused with a different body never applied anything;
//   - money is conserved: credits - debits - settles = sum of balances.
//
// The client choices are drawn from a random source seeded by Config.Seed,
// and so are the engine's faults; thread scheduling is not, so two runs with
// one seed make the same kinds of requests in a similar mix, not the same
// history.
//
// The short run is a test of this package (part of `make test`); the long
// one is cmd/soak (`make soak DURATION=10m`), which writes docs/soak.md and
// docs/soak.svg.
//
// It is not a load test of DynamoDB: it exercises the embedded engine only.
package workload
