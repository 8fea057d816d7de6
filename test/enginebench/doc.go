// Package enginebench measures the embedded DynamoDB-compatible engine
// (runtime/ddblocal) side by side with its peers, on the same machine and in
// one run:
//
//   - this engine without a client: the JSON request bodies the SDK would
//     send, handed to its http.Handler in process;
//   - this engine in-process (the unmodified SDK client over its socket-free
//     transport, as tests use it);
//   - this engine over loopback HTTP (its http.Handler on 127.0.0.1);
//   - the SDK client alone, replaying recorded answers: the ceiling for any
//     engine behind the SDK;
//   - minidyn (github.com/truora/minidyn) in-process twice: its fake client
//     called directly, and its JSON handler behind the same SDK client and
//     transport as the engine;
//   - dynalite (npm dynalite@4.0.0) on loopback, installed by the bench itself
//     into a cache directory and run with the project's Node.js
//     (node_modules/.bin/node) when present.
//
// Every client peer is driven through the same small API (the methods of
// the aws-sdk-go-v2 *dynamodb.Client the workloads use), and every workload
// is the same request sequence for every peer; the workloads without a
// client send byte for byte what the SDK sends (TestRawBodiesMatchTheSDK).
// Where a peer lacks an operation (dynalite has no TransactWriteItems) its
// row says so instead of a figure.
//
// Run it with `make bench-engine`, which writes docs/reports/engine-benchmark.md
// from several processes: the paired measurement first, PAIRED_RUNS times
// (5) one after the other, each in a process holding only the two peers it
// needs (a user's process holds no minidyn, and the heap of other peers'
// tables would weigh on its garbage collector) and writing its own JSON;
// then every other benchmark, whose process reads the paired runs back for
// the report (-paired-in takes files separated by commas, or a directory
// of them):
//
//	go test -run '^$' -bench '^BenchmarkPaired$' -benchtime 1x ./test/enginebench/ -args -paired-out /tmp/paired/run-01.json -paired-durable
//	go test -run '^$' -bench '^BenchmarkPaired$' -benchtime 1x ./test/enginebench/ -args -paired-out /tmp/paired/run-02.json
//	…
//	go test -run '^$' -bench '^Benchmark(Engine|Startup)$' -benchtime 2s ./test/enginebench/ -args -paired-in /tmp/paired -report ../../docs/reports/engine-benchmark.md
//
// `-bench .` alone still writes the whole report from one process, the
// paired rows then measured once, beside every peer's tables (the report
// says which), so with their run-to-run spread unknown.
//
// BenchmarkPaired measures the engine in-process against the SDK client
// alone in alternating slices of about -paired-slice (200ms),
// -paired-rounds (15) rounds per row (with GOMAXPROCS -paired-procs when
// set), swapping which goes first every round (ABBA); it starts only those
// two peers, and uses BenchmarkEngine's tables when that ran in the same
// process. A run's median per-round ratio is what one process measures;
// the report takes, per row, the median of the run medians and the
// run-to-run spread (greatest run median less the least), and counts an
// engine goal met with margin only when the row's median exceeds it by
// more than that spread: two cells measured minutes apart on a shared
// machine drift too much for their ratio to decide a goal, and so may one
// run. With -paired-durable it then measures the write rows (PutItem and
// the transactions on 1k and 100k items) on a data directory in the
// default mode and in the durable mode (fsync per commit), as shares of
// the SDK client alone and the durable one over the other, for
// -durable-rounds rounds (as BenchmarkDurable, `make bench-durable`, which
// writes docs/reports/engine-durability.md); `make bench-engine` does so in its
// first run, and the report shows them beside the write rows. A quick
// trial:
//
//	go test -run '^$' -bench Paired -benchtime 1x ./test/enginebench/ -args -large-table 2000 -paired-rounds 3 -rss-items 0 -report /tmp/trial.md
//
// `make bench-engine-regression` (regression.sh, rendered by cmd/benchab)
// measures the engine rows and the runtime/ddblocal benchmarks of an older
// commit (BASE, by default 9f303ac) and of the working tree side by side in
// one run, alternating them row by row, and writes
// docs/reports/engine-regression.md: the medians, after ÷ before, and the engine
// goals for each version.
//
// cmd/rssload is the separate process that loads one million items of about
// 200 bytes into an engine and reports its own resident set size.
//
// This package is a benchmark, not part of the runtime: its dependencies
// (minidyn) must never be imported from runtime/ or lambdas/.
package enginebench
