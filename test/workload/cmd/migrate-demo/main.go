// Command migrate-demo is `make migrate-demo`: the invariant soak over HTTP
// on the embedded engine, partition throughput and every fault on, with the
// orders-by-status-v2 migration run through every phase in the middle
// (test/workload/migratedemo). It prints what it does, then a `verified`
// line and a `lost:` line, and exits 1 on any violation. With -docs it
// writes its output into the marked section of that file.
//
//	go run ./test/workload/cmd/migrate-demo -docs docs/migrations.md
//
// With -scale it runs the scale figure instead (make bench-migrate).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"

	"github.com/oncetable/oncetable/test/workload/migratedemo"
)

func main() {
	var cfg migratedemo.Config
	flag.DurationVar(&cfg.Duration, "duration", 0, "shortest soak (default 60s); it lasts until the migration is done")
	flag.DurationVar(&cfg.Before, "before", 0, "soak in v1 before deploy 1 (default 10s)")
	flag.IntVar(&cfg.Clients, "clients", 0, "concurrent clients (default 12)")
	flag.Uint64Var(&cfg.Seed, "seed", 1, "seed of the clients' choices and the engine's faults")
	flag.IntVar(&cfg.Shards, "shards", 0, "ORDER_SHARDS (default 4)")
	flag.Float64Var(&cfg.WriteUnits, "partition-write-units", 0, "write units per second of each partition-key value (default 80)")
	flag.Float64Var(&cfg.ReadUnits, "partition-read-units", 0, "read units per second of each partition-key value (default 240)")
	flag.BoolVar(&cfg.NoFaults, "no-faults", false, "inject no faults")
	docs := flag.String("docs", "", "file whose marked section receives the output (docs/migrations.md)")
	scale := flag.Bool("scale", false, "run the scale figure (v1 against v2 at a fixed offered rate) instead of the demo")
	var sc migratedemo.ScaleConfig
	flag.Float64Var(&sc.Rate, "rate", 0, "with -scale: offered orders per second (default 125)")
	flag.DurationVar(&sc.Duration, "scale-duration", 0, "with -scale: how long each stage is driven (default 10s)")
	flag.Float64Var(&sc.WriteUnits, "scale-write-units", 0, "with -scale: write units per second of each partition-key value (default 50)")
	flag.IntVar(&sc.Shards, "scale-shards", 0, "with -scale: shards in v2 (default 8)")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	command := "go run ./test/workload/cmd/migrate-demo " + strings.Join(os.Args[1:], " ")
	if *scale {
		os.Exit(runScale(ctx, sc, *docs, command))
	}
	cfg.Out = os.Stdout
	rep, err := migratedemo.Run(ctx, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "migrate-demo:", err)
		os.Exit(2)
	}
	rep.Soak.WriteViolations(os.Stderr)
	rep.WriteEnd(os.Stdout)
	if *docs != "" {
		if err := migratedemo.UpdateSection(*docs, "migrate-demo", rep.Markdown(command)); err != nil {
			fmt.Fprintln(os.Stderr, "migrate-demo:", err)
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "migrate-demo: wrote", *docs)
	}
	if rep.Failed() {
		os.Exit(1)
	}
}

func runScale(ctx context.Context, sc migratedemo.ScaleConfig, docs, command string) int {
	sc.Out = os.Stdout
	rows, err := migratedemo.Scale(ctx, sc)
	if err != nil {
		fmt.Fprintln(os.Stderr, "migrate-demo -scale:", err)
		return 2
	}
	md := migratedemo.ScaleMarkdown(rows, command)
	fmt.Print(md)
	if docs != "" {
		if err := migratedemo.UpdateSection(docs, "bench-migrate", md); err != nil {
			fmt.Fprintln(os.Stderr, "migrate-demo:", err)
			return 2
		}
	}
	return 0
}
