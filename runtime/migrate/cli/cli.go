package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/oncetable/oncetable/runtime/migrate"
	"github.com/oncetable/oncetable/runtime/retry"
	"github.com/oncetable/oncetable/runtime/schema"
)

// Command is one invocation's environment.
type Command struct {
	// Migrations are the migrations the command knows, by name.
	Migrations map[string]migrate.Migration
	Stdout     io.Writer
	Stderr     io.Writer
	// Terminal says Stdout is a terminal (a progress bar, not JSON lines).
	Terminal bool
	// Client, if set, is used instead of one built from the flags (tests).
	Client migrate.API
}

type flags struct {
	endpoint, region, table, name, holder, to string
	segments                                  int
	budget, sample                            float64
	mirrorGrace                               time.Duration
}

// Main runs args (without the program name) and returns the exit code.
func (c Command) Main(ctx context.Context, args []string) int {
	if err := c.run(ctx, args); err != nil {
		msg := err.Error()
		if !strings.HasPrefix(msg, "migrate:") {
			msg = "migrate: " + msg
		}
		fmt.Fprintln(c.Stderr, msg)
		if hint := unreachable(err); hint != "" {
			fmt.Fprintln(c.Stderr, hint)
		}
		return 1
	}
	return 0
}

// unreachable explains an error that is the endpoint going away (a
// connection refused or reset after the retries), or returns "".
func unreachable(err error) string {
	var send *smithyhttp.RequestSendError
	if !errors.As(err, &send) {
		return ""
	}
	cause := send.Err
	var op *net.OpError
	if errors.As(err, &op) {
		cause = op
	}
	return fmt.Sprintf("migrate: the DynamoDB endpoint stopped answering (%v). Nothing is lost: the phase and each segment's position are in the table; once the endpoint is back, run the same command again (same -segments) to resume; under another -holder it waits for this run's lease to expire (30s).", cause)
}

func (c Command) parse(args []string) (flags, string, error) {
	var f flags
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	fs.SetOutput(c.Stderr)
	fs.StringVar(&f.endpoint, "dynamodb-endpoint", "", "URL of a DynamoDB-compatible endpoint (default: real DynamoDB through the default credential chain)")
	fs.StringVar(&f.region, "region", envOr("AWS_REGION", "us-east-1"), "AWS region")
	fs.StringVar(&f.table, "table", envOr(schema.TableNameEnv, schema.DefaultTableName), "table name")
	fs.StringVar(&f.name, "migration", "", "migration name (one of: "+strings.Join(c.names(), ", ")+")")
	fs.StringVar(&f.holder, "holder", "", "name of this migrator in the lease (default host:pid)")
	fs.IntVar(&f.segments, "segments", 4, "parallel Scan segments (resume with the same number)")
	fs.Float64Var(&f.budget, "budget", 100, "capacity units per second the backfill and cleanup may use")
	fs.Float64Var(&f.sample, "sample", 1, "share of items verify checks, in (0, 1]")
	fs.DurationVar(&f.mirrorGrace, "mirror-grace", 0, "how long mirror must last before backfill may start (writers of the previous deploy draining)")
	fs.Usage = func() {
		fmt.Fprintln(c.Stderr, "usage: migrate [flags] status | run -to PHASE | rollback | verify")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return f, "", err
	}
	rest := fs.Args()
	if len(rest) == 0 {
		fs.Usage()
		return f, "", errors.New("no subcommand")
	}
	sub := rest[0]
	if sub == "run" {
		rs := flag.NewFlagSet("run", flag.ContinueOnError)
		rs.SetOutput(c.Stderr)
		rs.StringVar(&f.to, "to", string(migrate.Done), "phase to run to: "+fmt.Sprint(migrate.Phases()))
		if err := rs.Parse(rest[1:]); err != nil {
			return f, "", err
		}
	} else if len(rest) > 1 {
		return f, "", fmt.Errorf("%s takes no arguments, got %q", sub, rest[1:])
	}
	return f, sub, nil
}

func (c Command) run(ctx context.Context, args []string) error {
	f, sub, err := c.parse(args)
	if err != nil {
		return err
	}
	m, ok := c.Migrations[f.name]
	if !ok {
		return fmt.Errorf("%w %q (known: %s)", migrate.ErrUnknownMigration, f.name, strings.Join(c.names(), ", "))
	}
	client, err := c.client(ctx, f)
	if err != nil {
		return err
	}
	mg, err := migrate.New(client, f.table, m, func(o *migrate.Options) {
		o.Holder, o.Segments, o.Budget, o.Sample, o.Progress = f.holder, f.segments, f.budget, f.sample, c.progress()
		o.MirrorGrace = f.mirrorGrace
	})
	if err != nil {
		return err
	}
	var st migrate.State
	switch sub {
	case "status":
		st, err = mg.Status(ctx)
	case "run":
		var to migrate.Phase
		if to, err = migrate.ParsePhase(f.to); err == nil {
			st, err = mg.Run(ctx, to)
		}
	case "rollback":
		st, err = mg.Rollback(ctx)
	case "verify":
		var rep migrate.Report
		rep, err = mg.Verify(ctx)
		c.emit(map[string]any{"event": "verify", "checked": rep.Matched, "ok": err == nil})
		if err == nil {
			st, err = mg.Status(ctx)
		}
	default:
		return fmt.Errorf("unknown subcommand %q: want status, run, rollback or verify", sub)
	}
	if err != nil {
		return err
	}
	c.emit(map[string]any{"event": "state", "migration": st.Migration, "phase": st.Phase, "epoch": st.Epoch,
		"enteredAt": st.Entered, "holder": st.Holder, "verifiedEpoch": st.VerifiedEpoch, "pending": st.Pending})
	return nil
}

func (c Command) client(ctx context.Context, f flags) (migrate.API, error) {
	if c.Client != nil {
		return c.Client, nil
	}
	if f.endpoint != "" {
		return retry.NewClient(aws.Config{Region: f.region, BaseEndpoint: aws.String(f.endpoint),
			Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
				return aws.Credentials{AccessKeyID: envOr("AWS_ACCESS_KEY_ID", "local"), SecretAccessKey: envOr("AWS_SECRET_ACCESS_KEY", "local"), SessionToken: os.Getenv("AWS_SESSION_TOKEN")}, nil
			})}), nil
	}
	cfg, err := config.LoadDefaultConfig(ctx, config.WithRegion(f.region))
	if err != nil {
		return nil, fmt.Errorf("load AWS configuration: %w", err)
	}
	// runtime/migrate sends each of its calls under runtime/retry.
	return retry.NewClient(cfg), nil
}

func (c Command) names() []string {
	out := make([]string, 0, len(c.Migrations))
	for n := range c.Migrations {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func (c Command) emit(v map[string]any) {
	if c.Terminal {
		if v["event"] != "progress" {
			fmt.Fprintln(c.Stdout)
			b, _ := json.MarshalIndent(v, "", "  ")
			fmt.Fprintln(c.Stdout, string(b))
		}
		return
	}
	b, _ := json.Marshal(v)
	fmt.Fprintln(c.Stdout, string(b))
}

// progress reports a sweep's pages: a bar on a terminal, JSON lines (at
// most one a second per job) otherwise. The ETA assumes the unfinished
// segments are as large as the finished ones.
func (c Command) progress() func(migrate.Progress) {
	last := map[string]time.Time{}
	return func(p migrate.Progress) {
		rate := float64(p.Report.Scanned) / max(p.Elapsed.Seconds(), 1e-3)
		eta := "?"
		if p.Finished > 0 {
			eta = (time.Duration(float64(p.Elapsed) * float64(p.Segments-p.Finished) / float64(p.Finished))).Round(time.Second).String()
		}
		if c.Terminal {
			bar := strings.Repeat("#", 20*p.Finished/p.Segments) + strings.Repeat("-", 20-20*p.Finished/p.Segments)
			fmt.Fprintf(c.Stdout, "\r%-16s [%s] %d/%d segments  %d scanned  %d written  %.0f items/s  ETA %s   ",
				p.Job, bar, p.Finished, p.Segments, p.Report.Scanned, p.Report.Written, rate, eta)
			return
		}
		if time.Since(last[p.Job]) < time.Second && p.Finished < p.Segments {
			return
		}
		last[p.Job] = time.Now()
		c.emit(map[string]any{"event": "progress", "job": p.Job, "segmentsDone": p.Finished, "segments": p.Segments,
			"scanned": p.Report.Scanned, "written": p.Report.Written, "skipped": p.Report.Skipped,
			"consumed": p.Report.Consumed, "throttled": p.Report.Throttled, "itemsPerSecond": rate, "eta": eta})
	}
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
