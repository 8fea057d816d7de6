package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/oncetable/oncetable/runtime/retry"
	"github.com/oncetable/oncetable/runtime/verify"
)

// Exit statuses.
const (
	ExitOK        = 0
	ExitViolation = 1
	ExitError     = 2
)

// Command is one invocation's environment.
type Command struct {
	Stdout, Stderr io.Writer
	// Client, if set, is used instead of one built from the flags (tests).
	Client verify.DB
}

type flags struct {
	endpoint, region, table, format, spillDir string
	segments, maxViolations, pageSize         int
	maxRCU                                    float64
	consistent                                bool
	progress, recordExpiry                    time.Duration
}

// Main runs args (without the program name) and returns the exit status.
func (c Command) Main(ctx context.Context, args []string) int {
	f, err := c.parse(args)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(c.Stderr, "verify:", err)
		}
		return ExitError
	}
	db, err := c.client(ctx, f)
	if err != nil {
		fmt.Fprintln(c.Stderr, "verify:", err)
		return ExitError
	}
	rep, err := verify.Table(ctx, db, func(o *verify.Options) {
		o.Table, o.Segments, o.MaxRCU, o.PageSize = f.table, f.segments, f.maxRCU, int32(f.pageSize)
		o.ConsistentRead, o.MaxViolations, o.SpillDir, o.ProgressEvery = f.consistent, f.maxViolations, f.spillDir, f.progress
		o.RecordExpiry = f.recordExpiry
		o.Progress = func(p verify.Progress) {
			fmt.Fprintf(c.Stderr, "verify: %s: %d items of about %d, %d pages, %d/%d segments done, %.1f RCU, %s\n",
				f.table, p.Items, p.EstimatedItems, p.Pages, p.SegmentsDone, p.Segments, p.ConsumedRCU, p.Elapsed.Round(time.Second))
		}
	})
	if err != nil {
		fmt.Fprintln(c.Stderr, err)
		return ExitError
	}
	if f.format == "json" {
		err = rep.WriteJSON(c.Stdout)
	} else {
		err = rep.WriteText(c.Stdout)
	}
	if err != nil {
		fmt.Fprintln(c.Stderr, "verify:", err)
		return ExitError
	}
	if !rep.OK {
		return ExitViolation
	}
	return ExitOK
}

func (c Command) parse(args []string) (flags, error) {
	var f flags
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	fs.SetOutput(c.Stderr)
	fs.StringVar(&f.table, "table", os.Getenv("TABLE_NAME"), "table to check (default $TABLE_NAME)")
	fs.StringVar(&f.endpoint, "dynamodb-endpoint", "", "DynamoDB endpoint URL (default: AWS, from the environment's configuration)")
	fs.StringVar(&f.region, "region", envOr("AWS_REGION", "us-east-1"), "AWS region")
	fs.IntVar(&f.segments, "segments", 4, "parallel Scan segments")
	fs.Float64Var(&f.maxRCU, "max-rcu", 200, "read capacity units per second, at most, on average (negative: no cap)")
	fs.IntVar(&f.pageSize, "page-size", 0, "items per Scan page (0: 1 MB pages)")
	fs.BoolVar(&f.consistent, "consistent", false, "strongly consistent reads (twice the read units)")
	fs.StringVar(&f.format, "format", "text", "report format: text or json")
	fs.IntVar(&f.maxViolations, "max-violations", 1000, "violations listed (all are counted)")
	fs.StringVar(&f.spillDir, "spill-dir", "", "directory of the join's spill files (default: the system's temporary directory)")
	fs.DurationVar(&f.progress, "progress", 5*time.Second, "progress interval, on standard error")
	fs.DurationVar(&f.recordExpiry, "record-expiry", 24*time.Hour, "the idempotency records' expiry (IDEMPOTENCY_EXPIRY): younger effects must have their record (negative: not checked)")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	switch {
	case fs.NArg() > 0:
		return f, fmt.Errorf("unexpected arguments %q", fs.Args())
	case f.table == "":
		return f, errors.New("-table is required (or TABLE_NAME)")
	case f.format != "text" && f.format != "json":
		return f, fmt.Errorf("-format %q: want text or json", f.format)
	case f.segments < 1 || f.segments > 1_000_000:
		return f, fmt.Errorf("-segments %d: want 1 to 1000000", f.segments)
	case f.maxRCU == 0:
		return f, errors.New("-max-rcu 0 would never read: give a positive rate, or a negative one for no cap")
	case f.pageSize < 0:
		return f, fmt.Errorf("-page-size %d: want 0 or more", f.pageSize)
	}
	return f, nil
}

func (c Command) client(ctx context.Context, f flags) (verify.DB, error) {
	if c.Client != nil {
		return c.Client, nil
	}
	if f.endpoint != "" {
		return retry.Client{API: retry.NewClient(aws.Config{Region: f.region, BaseEndpoint: aws.String(f.endpoint),
			Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
				return aws.Credentials{AccessKeyID: envOr("AWS_ACCESS_KEY_ID", "local"), SecretAccessKey: envOr("AWS_SECRET_ACCESS_KEY", "local"),
					SessionToken: os.Getenv("AWS_SESSION_TOKEN")}, nil
			})})}, nil
	}
	cfg, err := config.LoadDefaultConfig(ctx, config.WithRegion(f.region))
	if err != nil {
		return nil, fmt.Errorf("load AWS configuration: %w", err)
	}
	return retry.Client{API: retry.NewClient(cfg)}, nil
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
