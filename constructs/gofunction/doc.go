// Package gofunction is the CDK construct for a Go Lambda function: it builds
// a Go main package with the local Go toolchain into a `bootstrap` binary for
// the provided.al2023 runtime on arm64 and wires it with a role, an explicit
// log group, X-Ray tracing and the environment of its runtime/config value.
//
//	fn := gofunction.New(stack, "Charge", &gofunction.Props{
//		Entry:       "./lambdas/charge",
//		Environment: config.Payments{Table: *table.TableName()}.Environment(),
//	})
//	fn.Monitor(ops, &gofunction.AlarmProps{ErrorKind: oncall.MoneyFunctionErrors}) // error and throttle rates, p99 duration, concurrency + widgets
//
// The build runs `go build` with CGO_ENABLED=0, GOOS=linux, GOARCH=arm64,
// -trimpath, -ldflags="-s -w", -buildvcs=false and -tags
// lambda.norpc,nethttpomithttp2 (no net/rpc, no HTTP/2 client) through
// CDK's local bundling hook; Docker is never used. The asset hash is the
// SHA-256 of the Go files of every package of the main module the entry
// depends on, plus go.mod and go.sum, so synthesis is reproducible and the
// same sources give the same template on every machine. A missing toolchain
// or a compile error becomes an error annotation carrying the compiler's
// message, which stops `cdk synth` without a panic trace.
//
// Build and SourceHash are plain Go and usable without the CDK, for example
// to check binary sizes or to prebuild in CI.
//
// It is not the place for the functions' DynamoDB permissions or their HTTP
// routes: constructs/paymentsapi grants and routes per function.
package gofunction
