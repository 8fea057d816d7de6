// Command dr-drill is `make dr-drill`: the invariant workload with faults
// on the embedded engine, a point-in-time restore to the middle of its
// traffic, the verifier on the restored table, and the RTO and RPO
// (test/workload/drdrill). With -torn the engine's torn-backup fault is on
// and the verifier must catch it.
//
//	go run ./test/workload/cmd/dr-drill [-torn] [-duration 20s] [-docs docs/recovery.md]
//
// Exit status: 0 the restore verified, 1 the verifier rejected it (the
// expected outcome of -torn), 2 the drill could not run. The verifier's
// JSON report goes to -out (default tmp/dr-drill); -docs writes the output
// into that file's marked section.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/oncetable/oncetable/test/workload/drdrill"
	"github.com/oncetable/oncetable/test/workload/migratedemo"
)

func main() {
	var cfg drdrill.Config
	flag.DurationVar(&cfg.Duration, "duration", 0, "traffic (default 20s)")
	flag.IntVar(&cfg.Clients, "clients", 0, "concurrent clients (default 8)")
	flag.Uint64Var(&cfg.Seed, "seed", 1, "seed of the clients' choices and the engine's faults")
	flag.Float64Var(&cfg.RestoreAt, "restore-at", 0, "restore point as a share of the traffic (default 0.5)")
	flag.BoolVar(&cfg.Torn, "torn", false, "turn on the torn-backup fault: the verifier must reject the restore")
	out := flag.String("out", "tmp/dr-drill", "directory of the verifier's JSON report")
	docs := flag.String("docs", "", "file whose marked section receives the output (docs/recovery.md)")
	flag.Parse()
	os.Exit(run(cfg, *out, *docs))
}

func run(cfg drdrill.Config, out, docs string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var transcript bytes.Buffer
	w := io.MultiWriter(os.Stdout, &transcript)
	cfg.Out = w
	rep, err := drdrill.Run(ctx, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "dr-drill:", strings.TrimPrefix(err.Error(), "dr-drill: "))
		return 2
	}
	rep.Soak.WriteViolations(w)
	rep.WriteResult(w)
	name := "dr-drill"
	if cfg.Torn {
		name = "dr-drill-torn"
	}
	if err := os.MkdirAll(out, 0o755); err == nil {
		path := filepath.Join(out, name+"-verify.json")
		if f, err := os.Create(path); err == nil {
			rep.Check.WriteJSON(f)
			f.Close()
			fmt.Fprintln(os.Stderr, "dr-drill: wrote", path)
		}
	}
	if docs != "" {
		body := "```text\n$ " + command(cfg) + "\n" + transcript.String() + "```\n"
		if err := migratedemo.UpdateSection(docs, name, body); err != nil {
			fmt.Fprintln(os.Stderr, "dr-drill:", err)
			return 2
		}
		fmt.Fprintln(os.Stderr, "dr-drill: wrote", docs)
	}
	switch {
	case cfg.Torn && rep.Passed():
		return 1 // the verifier rejected the torn restore, loudly, as it must
	case cfg.Torn, !rep.Passed():
		fmt.Fprintln(os.Stderr, "dr-drill: FAILED")
		return 2
	}
	return 0
}

func command(cfg drdrill.Config) string {
	s := "go run ./test/workload/cmd/dr-drill"
	if cfg.Torn {
		s += " -torn"
	}
	return s
}
