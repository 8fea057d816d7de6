// Package workload is oncetable's invariant workload: N concurrent clients
// drive the real HTTP handlers (net/http -> API Gateway v2 event ->
// runtime/httpapi, the local runner's code path, runtime/localrun) on the
// embedded engine while the engine injects faults in windows over time:
// throttling bursts, TransactionConflict, latency spikes, responses lost
// after commit, GSI and stream propagation delay, and the events
// consumer's process dying mid-batch. It is in the spirit of Jepsen's
// transfer and idempotence workloads.
//
// Clients create users, credit, place orders, charge, debit, settle and read
// balances at random; they refund paid orders (in part, in full, two or
// three at once on one order), cancel orders (racing a settle), authorize
// holds, capture them (in part or in full; two at once, or beside a void)
// or void them, let short holds expire (Config.HoldExpiry jumps the API's
// clock past them) and transfer between users (both directions at once). They retry ambiguous outcomes (timeouts, 5xx,
// connection errors, responses they deliberately drop) with the same
// Idempotency-Key; some resubmit old keys; some reuse a key with a different
// body. Beside them, Config.Intruders hostile customers (X-Local-Scopes
// payments/customer) call other users' debits, orders, charges, settles,
// balances and ledgers and the back office's routes (credit, orders by
// status), and, on their own routes, create orders under other users' order
// ids and page their ledgers with cursors signed with the API's secret that
// point into other users' partitions; they also refund, cancel, hold,
// capture, void and transfer other users' money. Every attempt is recorded
// in a history. At the start of each fault window a check point scans the
// table and checks what holds at any moment ([CheckTable]: refunds within
// the total, captures within the hold, available balances, each entry's
// legs). After the run, [Check]
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
//   - money is conserved: credits - debits - settles - captures + refunds =
//     the users' posted money (balances and open holds), and transfers out
//     equal transfers in;
//   - double entry: every entry's legs sum to zero with a leg on its
//     kind's platform account, and the platform's legs cancel the users'
//     posted money;
//   - an order's refunds sum to at most its total, only on a paid order,
//     and agree with its refunded amount, status and refund entries;
//   - a hold is captured at most once, never for more than it held, and
//     is on its user's profile exactly while it is open;
//   - the available balance (balance less live holds) is never below
//     zero, at any read, check point or the end;
//   - no hostile customer's call succeeds: each is answered 403 or 404 (400
//     for another user's order id on create or a forged cursor), or not
//     definitively and retried, and leaves no idempotency record.
//
// Beside the clients, the table's stream (NEW_AND_OLD_IMAGES) is read by
// runtime/streampoll, as an event source mapping would, into the
// production runtime/outbox Publisher, which publishes through the real
// aws-sdk-go-v2 eventbridge client to a fake EventBridge endpoint on
// loopback. In every window but calm, that endpoint refuses a seeded share
// of PutEvents entries and the consumer fails in a seeded share of
// invocations after publishing part of its batch (the poller retries the
// batch); in the consumer-restart window (at its first invocation, then in
// a share; fewer in all-faults) the
// consumer's process dies after publishing part of a batch, and a new
// poller resumes from the shard's checkpoint (streampoll.Checkpoints); the
// engine's StreamDelay holds records back in the delay windows. After the
// run the consumer drains the stream and [CheckEvents] compares what
// arrived with the table:
//
//   - every committed ledger entry, payment (created and processed) and
//     paid order yields exactly one event id, delivered at least once;
//   - no event appears for anything not committed, and its amount and user
//     are the table's;
//   - a redelivery carries the same id and the same detail;
//   - the events of one item arrive in commit order (stream order);
//   - the events of one user, by first arrival, arrive in commit order
//     (stream order; the engine's stream has one shard).
//
// The report counts them by fault window. committedAt is not promised to
// follow commit order; the run counts how often it does not.
//
// The client choices are drawn from a random source seeded by Config.Seed,
// and so are the engine's faults; thread scheduling is not, so two runs with
// one seed make the same kinds of requests in a similar mix, not the same
// history.
//
// Config.During runs beside the clients, for example a migration
// (test/workload/migratedemo, `make migrate-demo`); its Live.Deploy swaps the
// API for one built with a new configuration, as a Lambda deploy does, and
// waits for the requests of the old one to finish. Config.Check adds
// checks of its own on the table at rest.
//
// The short run is a test of this package (part of `make test`); the long
// one is cmd/soak (`make soak DURATION=10m`), which writes docs/reports/soak.md and
// docs/reports/soak.svg.
//
// It is not a load test of DynamoDB: it exercises the embedded engine only.
package workload
