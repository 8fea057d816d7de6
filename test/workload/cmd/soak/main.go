// Command soak runs oncetable's invariant workload (test/workload) for a
// while with every fault on, prints its summary and violations, and writes
// the report (Markdown with the summary) and the plot (SVG) to -out.
// It exits 1 when any invariant was violated.
//
//	go run ./test/workload/cmd/soak -duration 10m -out docs
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/oncetable/oncetable/test/machine"
	"github.com/oncetable/oncetable/test/workload"
)

func main() {
	var cfg workload.Config
	flag.DurationVar(&cfg.Duration, "duration", 10*time.Minute, "how long the clients run")
	flag.IntVar(&cfg.Clients, "clients", 16, "concurrent clients")
	flag.IntVar(&cfg.Users, "users", 24, "users the clients create")
	flag.Uint64Var(&cfg.Seed, "seed", 1, "seed of the clients' choices and the engine's faults")
	flag.DurationVar(&cfg.Phase, "phase", 10*time.Second, "length of one fault window")
	flag.BoolVar(&cfg.NoFaults, "no-faults", false, "inject no faults")
	flag.BoolVar(&cfg.HoldExpiry, "hold-expiry", true, "jump the API's clock past the short holds' expiry at each fault window")
	out := flag.String("out", "", "directory for the report <name>.md and the plot <name>.svg (default: write nothing)")
	name := flag.String("name", "soak", "base name of the report and plot files")
	history := flag.String("history", filepath.Join(os.TempDir(), "oncetable-soak-history.jsonl"), "file that receives every attempt as a JSON line")
	flag.Parse()

	hf, err := os.Create(*history)
	if err != nil {
		fatal(err)
	}
	defer hf.Close()
	cfg.History, cfg.Progress = hf, os.Stderr
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	fmt.Fprintf(os.Stderr, "soak: %s, %d clients, seed %d; history in %s\n", cfg.Duration, cfg.Clients, cfg.Seed, *history)
	res, err := workload.Run(ctx, cfg)
	if err != nil {
		fatal(err)
	}
	var sum bytes.Buffer
	res.WriteSummary(&sum)
	fmt.Print(sum.String())
	var viol, obs bytes.Buffer
	res.WriteViolations(&viol)
	res.WriteObservations(&obs)
	fmt.Fprint(os.Stderr, obs.String(), viol.String())

	if *out != "" {
		var svg bytes.Buffer
		if err := res.WriteSVG(&svg); err != nil {
			fatal(err)
		}
		if err := os.WriteFile(filepath.Join(*out, *name+".svg"), svg.Bytes(), 0o644); err != nil {
			fatal(err)
		}
		if err := os.WriteFile(filepath.Join(*out, *name+".md"), []byte(report(res, *name, sum.String(), viol.String(), obs.String())), 0o644); err != nil {
			fatal(err)
		}
		fmt.Fprintf(os.Stderr, "soak: wrote %s and %s\n", filepath.Join(*out, *name+".md"), filepath.Join(*out, *name+".svg"))
	}
	if len(res.Violations) > 0 {
		fmt.Fprintf(os.Stderr, "soak: %d violations\n", len(res.Violations))
		os.Exit(1)
	}
}

func report(res *workload.Result, name, summary, violations, observations string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Soak: invariants under injected faults\n\n")
	b.WriteString("Use this page to see the invariants the workload checks under injected faults, and the figures of a run.\n\n")
	command := fmt.Sprintf("go run ./test/workload/cmd/soak -duration %s -clients %d -users %d -seed %d -phase %s -out docs -name %s",
		res.Config.Duration, res.Config.Clients, res.Config.Users, res.Config.Seed, res.Config.Phase, name)
	b.WriteString(machine.Measured(command, time.Now()) + "\n")
	b.WriteString(`
The workload (test/workload) runs concurrent clients against the real HTTP handlers
(net/http -> API Gateway v2 event -> runtime/httpapi, the local runner's code path) on the
embedded engine. The engine injects faults in windows that follow each other in a cycle:
calm, throttling bursts (ProvisionedThroughputExceeded / ThrottlingException, unprocessed
batch items), TransactionConflict (transactions and single writes), latency spikes (every
request +100 ms; one client attempt in ten gives up after 60 ms), responses lost after commit
(HTTP 500 or connection reset, alternately), GSI and stream propagation delay (1 s), the events
consumer's process killed mid-batch (consumer-restart), and all of them at once. Clients retry
every ambiguous outcome (timeout, 5xx, connection error, a response they drop on purpose) with
the same Idempotency-Key and body, resubmit old keys, and reuse keys with a different body.
Besides credits, debits, orders, charges and settles, they refund paid orders (in part and in
full, two or three at once on one order, of which at most one fits), cancel orders (racing a
settle of the same order), authorize holds and capture them (in part, in full, or for one more
than held; two captures, or a capture and a void, at once on one hold) or void them, let short
holds expire (the API's clock jumps past their expiry at each window), and transfer between users
(two users sending to each other at once). Hostile customers try other users' money on every route,
the new ones included. At each window's start a check point scans the table and checks what holds
at any moment (refunds within what was paid, one capture per hold within what it held, available
balances not below zero, every entry's double entry); the end checks it all again at rest. The
table's stream feeds the production outbox (runtime/streampoll driving runtime/outbox's
Publisher, through the real EventBridge SDK client, into a fake EventBridge on loopback). Outside
calm windows the fake refuses 10 % of entries and 5 % of the consumer's invocations fail after
publishing part of their batch (the mapping retries the batch); in the consumer-restart window a
quarter of the invocations (a twentieth in all-faults) kill the consumer's process after it
published some or all of the batch, before the checkpoint, and a new poller resumes from the
shard's checkpoint; the engine delays stream records in the delay windows. After the run the
checker compares the full history, and every event delivered, with the table; see the package
documentation of test/workload for the invariants and how each is checked.

`)
	b.WriteString("![throughput and p99 latency over the run, fault windows shaded](" + name + ".svg)\n\n")
	b.WriteString(summary)
	b.WriteString(`
A request "refused, then applied by an earlier attempt still in flight" is one whose client gave up
waiting on an attempt (timeout, dropped response), retried with the same key, and got a business
refusal (402) computed before the first attempt committed; the first attempt then committed. The
request was never acknowledged and was applied once, which the invariants allow: it is the price of
having no in-progress state (runtime/idempotency). A client that must not see this waits for the
Retry-After or reads the resource before treating a refusal after a timeout as final.
`)
	if observations != "" {
		b.WriteString("\n<details><summary>Observations with their history</summary>\n\n```\n" + observations + "```\n</details>\n")
	}
	if violations == "" {
		b.WriteString("\nNo invariant was violated.\n")
	} else {
		b.WriteString("\n## Violations\n\n```\n" + violations + "```\n")
	}
	return b.String()
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "soak:", err)
	os.Exit(2)
}
