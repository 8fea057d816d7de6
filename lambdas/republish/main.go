// Command republish publishes payment events again, rebuilt from the
// table under their original ids (make republish):
//
//	republish -from T -to T [-apply] [-env ENV | -table T -bus B ...]
//	republish -dlq [-apply] [-env ENV | -queue-url URL ...]
//
// A dry run unless -apply. Exit status 0: done; 2: error. The logic is
// runtime/republish/cli; docs/runbook.md#republishing-events is the
// procedure.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/oncetable/oncetable/runtime/republish/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Command{Stdout: os.Stdout, Stderr: os.Stderr}.Main(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}
