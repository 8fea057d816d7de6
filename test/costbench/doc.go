// Package costbench measures what each oncetable money flow costs:
// for charge, debit and settle, each on a first call, a replay and the
// losing side of a concurrent race, it counts the DynamoDB requests made
// (an SDK middleware counter, every attempt), the write and read capacity
// the engine reports through ReturnConsumedCapacity (the middleware asks
// for TOTAL on every request), and the handler latency in process (p50,
// p99). The same runs are measured side by side with a baseline written
// only in this benchmark: the Powertools-style idempotency sequence (a
// conditional Put of an INPROGRESS record, the effect, an Update to
// COMPLETE; a replay is a failed Put plus a GetItem). It also measures
// throughput on one hot account under 16 and 64 concurrent clients.
//
// The measurements are Go benchmarks (`make bench`). With COSTBENCH_OUT set
// to a path, the run writes the Markdown report there (docs/cost.md):
//
//	COSTBENCH_OUT=$PWD/docs/cost.md go test -run '^$' -bench . -benchtime 400x ./test/costbench
//
// It measures the embedded engine, not DynamoDB: request counts and
// capacity units follow DynamoDB's rules, latencies do not.
package costbench
