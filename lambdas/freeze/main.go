// Command freeze is the operator's kill switch of money movement (make
// freeze, make unfreeze, make frozen):
//
//	freeze freeze|unfreeze -flow all|<flow> -reason WHY [-table T] [-dynamodb-endpoint URL | -region R]
//	freeze status [...]
//
// Exit status 0: done; 2: error (nothing written). The logic is
// runtime/freeze/cli; docs/runbook.md#kill-switch is the procedure.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/oncetable/oncetable/runtime/freeze/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Command{Stdout: os.Stdout, Stderr: os.Stderr}.Main(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}
