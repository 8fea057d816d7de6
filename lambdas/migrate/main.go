// Command migrate moves a single-table migration through its phases:
//
//	migrate -migration orders-by-status-v2|ledger-legs [-dynamodb-endpoint URL | -region R] status | run -to PHASE | rollback | verify
//
// It reads ORDER_SHARDS (config.Migration), which must be the functions'.
// It lives under lambdas/ because one backfill segment per invocation is
// meant to run as a Lambda too (not done yet); the logic is runtime/migrate/cli.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/oncetable/oncetable/runtime/config"
	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/migrate"
	"github.com/oncetable/oncetable/runtime/migrate/cli"
	"github.com/oncetable/oncetable/runtime/migrate/legs"
	"github.com/oncetable/oncetable/runtime/migrate/orders"
	"github.com/oncetable/oncetable/runtime/schema"
)

func main() {
	cfg, err := config.LoadMigration(os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "migrate:", err)
		os.Exit(2)
	}
	byStatus, err := orders.ByStatus(cfg.Orders.Shards, keys.Default)
	if err != nil {
		fmt.Fprintln(os.Stderr, "migrate:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fi, _ := os.Stdout.Stat()
	migrations := map[string]migrate.Migration{orders.Name: byStatus, legs.Name: legs.Migration(schema.Default(), "")}
	c := cli.Command{Migrations: migrations, Stdout: os.Stdout, Stderr: os.Stderr,
		Terminal: fi != nil && fi.Mode()&os.ModeCharDevice != 0}
	code := c.Main(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}
