// Package cli is the migrate command's logic: it parses
//
//	migrate [flags] status
//	migrate [flags] run -to PHASE
//	migrate [flags] rollback
//	migrate [flags] verify
//
// against the embedded engine's endpoint or any other (-dynamodb-endpoint),
// or real DynamoDB through the default credential chain (-region), and
// reports progress as a bar with rate and ETA on a terminal, JSON lines
// otherwise. It exits non-zero on any error, a verify mismatch included.
// lambdas/migrate is its ~30-line main.
//
// It is not for declaring migrations (runtime/migrate) and runs one backfill
// per process; one segment per Lambda invocation is not done yet.
package cli
