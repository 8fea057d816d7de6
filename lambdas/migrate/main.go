// Command migrate moves a single-table migration through its phases:
//
//	migrate -migration orders-by-status-v2 [-dynamodb-endpoint URL | -region R] status | run -to PHASE | rollback | verify
//
// It lives under lambdas/ because one backfill segment per invocation is
// meant to run as a Lambda too (not done yet); the logic is runtime/migrate/cli.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/migrate"
	"github.com/oncetable/oncetable/runtime/migrate/cli"
	"github.com/oncetable/oncetable/runtime/migrate/orders"
)

func main() {
	shards, _ := strconv.Atoi(os.Getenv("ORDER_SHARDS"))
	byStatus, err := orders.ByStatus(max(shards, 4), keys.Default)
	if err != nil {
		fmt.Fprintln(os.Stderr, "migrate:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fi, _ := os.Stdout.Stat()
	c := cli.Command{Migrations: map[string]migrate.Migration{orders.Name: byStatus}, Stdout: os.Stdout, Stderr: os.Stderr,
		Terminal: fi != nil && fi.Mode()&os.ModeCharDevice != 0}
	code := c.Main(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}
