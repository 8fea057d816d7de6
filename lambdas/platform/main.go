// Command platform is the operators' report of the platform accounts: the
// stored totals, and with -conserve the balance sheet showing that users'
// posted money and the platform accounts sum to zero per currency:
//
//	platform -table NAME [-dynamodb-endpoint URL | -region R] [-shards 16] [-conserve] [-catch-up]
//
// Exit status 0: read (and conserved); 1: not conserved; 2: error. The
// logic is runtime/platform/cli; docs/ledger.md says how to read it.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/oncetable/oncetable/runtime/platform/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Command{Stdout: os.Stdout, Stderr: os.Stderr}.Main(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}
