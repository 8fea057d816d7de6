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
// Run it with `make bench-engine`, which writes docs/engine-benchmark.md:
//
//	go test -run '^$' -bench . -benchtime 2s ./test/enginebench/ -args -report ../../docs/engine-benchmark.md
//
// BenchmarkPaired, part of the same run, measures the engine in-process
// against the SDK client alone in alternating slices of about
// -paired-slice (200ms), -paired-rounds (15) rounds per row (with
// GOMAXPROCS -paired-procs when set), swapping
// which goes first every round (ABBA), on the tables BenchmarkEngine
// prepared; its median per-round ratio is what the report's engine goals
// judge, since two cells measured minutes apart on a shared machine
// drift too much for their ratio to decide a goal. A quick trial:
//
//	go test -run '^$' -bench Paired -benchtime 200ms ./test/enginebench/ -args -large-table 2000 -rss-items 0 -report /tmp/trial.md
//
// `make bench-engine-regression` (regression.sh, rendered by cmd/benchab)
// measures the engine rows and the runtime/ddblocal benchmarks of an older
// commit (BASE, by default 9f303ac) and of the working tree side by side in
// one run, alternating them row by row, and writes
// docs/engine-regression.md: the medians, after ÷ before, and the engine
// goals of issue 10 for each version.
//
// cmd/rssload is the separate process that loads one million items of about
// 200 bytes into an engine and reports its own resident set size.
//
// This package is a benchmark, not part of the runtime: its dependencies
// (minidyn) must never be imported from runtime/ or lambdas/.
package enginebench
