// Package cli is the platform command (lambdas/platform), the operators'
// report of the platform accounts:
//
//	platform -table NAME [-dynamodb-endpoint URL | -region R] [-shards 16] [-conserve] [-catch-up]
//
// Without flags it prints each platform account's stored total by
// currency (its shards summed, one BatchGetItem). -conserve scans the
// table and prints the balance sheet: stored totals, platform legs not
// totalled yet and every user's posted money, whose sum per currency is
// zero when money is conserved. -catch-up first totals the entries the
// stream's totaller never saw (runtime/platform.CatchUp).
//
// Its exit status is 0, 1 when -conserve finds a currency whose net is not
// zero, and 2 when the table could not be read or the flags are wrong.
package cli
