// Command local is the local runner behind `make run`: the oncetable API on
// -api-addr, served by the same handlers as the Lambda functions, on the
// embedded DynamoDB-compatible engine (-dynamodb-addr) or on an external
// endpoint (-dynamodb-endpoint). See runtime/localrun.
//
// `local engine [options]` (`make engine`) serves the engine alone with
// DynamoDB Local's options (-port, -inMemory, -dbPath, -sharedDb,
// -delayTransientStatuses, -cors, -help); see runtime/ddblocal/standalone.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/oncetable/oncetable/runtime/config"
	"github.com/oncetable/oncetable/runtime/localrun"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/store"
	"github.com/oncetable/oncetable/runtime/tracing"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "engine" {
		os.Exit(runEngine(os.Args[2:]))
	}
	var o localrun.Options
	flag.StringVar(&o.APIAddr, "api-addr", "127.0.0.1:8080", "address of the API")
	flag.StringVar(&o.DynamoDBAddr, "dynamodb-addr", "127.0.0.1:8000", "address of the embedded DynamoDB engine")
	flag.StringVar(&o.DynamoDBEndpoint, "dynamodb-endpoint", "", "URL of an external DynamoDB endpoint to use instead of the embedded engine")
	flag.StringVar(&o.DataDir, "data-dir", "", "directory that keeps the embedded engine's data (default: in memory)")
	flag.BoolVar(&o.Durable, "durable", false, "fsync every commit of the embedded engine to -data-dir, so that acknowledged writes survive a machine crash (default: a killed runner loses nothing, a machine crash may lose the last seconds)")
	flag.StringVar(&o.Table, "table", "", "table name (default: $TABLE_NAME or oncetable)")
	flag.DurationVar(&o.IdempotencyExpiry, "idempotency-expiry", 0, "how long an Idempotency-Key blocks (default 24h)")
	flag.BoolVar(&o.PartitionThroughput.Enabled, "partition-throughput", false, "throttle each partition-key value of the embedded engine's tables and indexes as DynamoDB does")
	flag.Float64Var(&o.PartitionThroughput.ReadUnits, "partition-read-units", 3000, "read units per second of each partition-key value, with -partition-throughput")
	flag.Float64Var(&o.PartitionThroughput.WriteUnits, "partition-write-units", 1000, "write units per second of each partition-key value, with -partition-throughput")
	flag.DurationVar(&o.PartitionThroughput.Burst, "partition-burst", time.Second, "unused capacity a partition keeps, with -partition-throughput")
	regions := flag.String("regions", "", "comma-separated Regions the embedded engine serves on -dynamodb-addr, routed by each request's signature, with global tables between them; the API uses the first (default: one Region)")
	orderVars := map[string]*string{
		config.OrderIndexesEnv: flag.String("order-indexes", os.Getenv(config.OrderIndexesEnv), "order indexes of the table: v1, both (a migration orders-by-status-v2 may run) or v2 (default $ORDER_INDEXES, else v1)"),
		config.OrderShardsEnv: flag.String("order-shards", os.Getenv(config.OrderShardsEnv),
			fmt.Sprintf("shards of orders by status in v2, 1..%d (default $ORDER_SHARDS, else %d)", config.MaxOrderShards, config.DefaultOrderShards)),
	}
	fo := localrun.FailoverOptions{Out: os.Stdout}
	flag.StringVar(&fo.Mode, "failover", "", "instead of serving, fail a cell of the running multi-Region runner over: planned, freeze or takeover (a dry run without -apply)")
	flag.StringVar(&fo.Cell, "cell", "", "with -failover: the cell to move (c000..c063)")
	flag.StringVar(&fo.User, "user", "", "with -failover: move the cell of this user")
	flag.StringVar(&fo.To, "to", "", "with -failover: the Region the cell moves to")
	flag.BoolVar(&fo.Apply, "apply", false, "with -failover: make the change")
	flag.Parse()
	if *regions != "" {
		o.Regions = strings.Split(*regions, ",")
	}
	if fo.Mode != "" {
		fo.Endpoint, fo.Table, fo.Regions = "http://"+o.DynamoDBAddr, o.Table, o.Regions
		if fo.Table == "" {
			fo.Table = envOr(schema.TableNameEnv, schema.DefaultTableName)
		}
		if err := localrun.Failover(context.Background(), fo); err != nil {
			fmt.Fprintln(os.Stderr, "local:", err)
			os.Exit(1)
		}
		return
	}
	orders, err := config.LoadOrders(func(k string) string { return *orderVars[k] })
	if err != nil {
		fmt.Fprintln(os.Stderr, "local:", err)
		os.Exit(2)
	}
	o.Orders = store.OrderLayout{Stage: orders.Stage, Shards: orders.Shards}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// OTEL_TRACES_EXPORTER=console prints the spans on stderr; =otlp sends
	// them to OTEL_EXPORTER_OTLP_ENDPOINT.
	shutdownTracing, err := tracing.Setup(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "local:", err)
		os.Exit(2)
	}
	err = localrun.Run(ctx, o)
	shutdownTracing(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, "local:", explain(err))
		os.Exit(1)
	}
}

// explain turns the errors a user can fix into one line naming the flag.
func explain(err error) string {
	flags := map[string]string{localrun.ListenerAPI: "-api-addr", localrun.ListenerDynamoDB: "-dynamodb-addr"}
	var inUse *localrun.AddrInUseError
	var dirInUse *localrun.DataDirInUseError
	switch {
	case errors.As(err, &inUse):
		return fmt.Sprintf("%s (the %s address) is already in use, probably by another runner: stop it, or choose another address with %s",
			inUse.Addr, inUse.Listener, flags[inUse.Listener])
	case errors.As(err, &dirInUse):
		return fmt.Sprintf("data directory %s is in use by another runner: stop it, or choose another directory with -data-dir", dirInUse.Dir)
	}
	return err.Error()
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
