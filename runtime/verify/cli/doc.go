// Package cli is the verify command (lambdas/verify): it checks a table
// with runtime/verify and prints the report as text or JSON.
//
//	verify -table NAME [-dynamodb-endpoint URL | -region R] [-segments 4] [-max-rcu 200]
//	       [-page-size N] [-consistent] [-format text|json] [-max-violations 1000] [-spill-dir DIR] [-record-expiry 24h]
//
// Its exit status is 0 when every invariant holds, 1 when one is broken,
// and 2 when the table could not be read or the flags are wrong. Progress
// goes to standard error every -progress interval.
package cli
