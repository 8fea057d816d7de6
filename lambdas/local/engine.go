package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/oncetable/oncetable/runtime/ddblocal/standalone"
)

// runEngine is `local engine [DynamoDB Local's options]`: the embedded
// engine alone, for teams that want a DynamoDB Local without Java (see
// runtime/ddblocal/standalone). It returns the exit status.
func runEngine(args []string) int {
	o, err := standalone.ParseFlags(args, os.Stderr)
	if errors.Is(err, standalone.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "local engine:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = standalone.Run(ctx, o, func(addr string) { fmt.Print(standalone.Banner(o, addr)) })
	if err != nil {
		fmt.Fprintln(os.Stderr, "local engine:", err)
		return 1
	}
	return 0
}
