// Command verify checks the money invariants of a table (a restored one,
// before the application is pointed at it) and prints each violation with
// its keys:
//
//	verify -table NAME [-dynamodb-endpoint URL | -region R] [-format text|json] [-segments 4] [-max-rcu 200]
//
// Exit status 0: every invariant holds; 1: violations; 2: error. The logic
// is runtime/verify/cli; docs/recovery.md is the runbook.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/oncetable/oncetable/runtime/verify/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Command{Stdout: os.Stdout, Stderr: os.Stderr}.Main(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}
