package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/oncetable/oncetable/runtime/platform"
	"github.com/oncetable/oncetable/runtime/retry"
)

// Exit statuses.
const (
	ExitOK           = 0
	ExitNotConserved = 1
	ExitError        = 2
)

// DB is what the command reads and writes through.
type DB interface {
	platform.ReadDB
	platform.ScanDB
	platform.TxDB
}

// Command is one invocation's environment.
type Command struct {
	Stdout, Stderr io.Writer
	// Client, if set, is used instead of one built from the flags (tests).
	Client DB
}

type flags struct {
	endpoint, region, table string
	shards                  int
	conserve, catchUp       bool
}

// Main runs args (without the program name) and returns the exit status.
func (c Command) Main(ctx context.Context, args []string) int {
	f, err := c.parse(args)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(c.Stderr, "platform:", err)
		}
		return ExitError
	}
	db, err := c.client(ctx, f)
	if err != nil {
		fmt.Fprintln(c.Stderr, "platform:", err)
		return ExitError
	}
	opts := func(o *platform.Options) { o.Table, o.Shards = f.table, f.shards }
	if f.catchUp {
		res, err := platform.CatchUp(ctx, db, platform.New(db, opts))
		if err != nil {
			fmt.Fprintln(c.Stderr, err)
			return ExitError
		}
		fmt.Fprintf(c.Stdout, "caught up: %d entries totalled now, %d were already (%d transactions, %d conflicts, %d entries gone)\n",
			res.Totalled, res.Already, res.Transactions, res.Conflicts, res.Missing)
	}
	if !f.conserve {
		sums, err := platform.Read(ctx, db, opts)
		if err != nil {
			fmt.Fprintln(c.Stderr, err)
			return ExitError
		}
		fmt.Fprintf(c.Stdout, "%-20s %-8s %20s\n", "account", "currency", "stored")
		for _, a := range sums.Accounts() {
			for _, cur := range slices.Sorted(maps.Keys(sums[a])) {
				fmt.Fprintf(c.Stdout, "%-20s %-8s %20d\n", a, cur, sums[a][cur])
			}
		}
		return ExitOK
	}
	sheet, err := platform.Conserve(ctx, db, opts)
	if err == nil {
		err = sheet.WriteText(c.Stdout)
	}
	if err != nil {
		fmt.Fprintln(c.Stderr, err)
		return ExitError
	}
	if !sheet.Conserved() {
		return ExitNotConserved
	}
	return ExitOK
}

func (c Command) parse(args []string) (flags, error) {
	var f flags
	fs := flag.NewFlagSet("platform", flag.ContinueOnError)
	fs.SetOutput(c.Stderr)
	fs.StringVar(&f.table, "table", os.Getenv("TABLE_NAME"), "table (default $TABLE_NAME)")
	fs.StringVar(&f.endpoint, "dynamodb-endpoint", "", "DynamoDB endpoint URL (default: AWS, from the environment's configuration)")
	fs.StringVar(&f.region, "region", envOr("AWS_REGION", "us-east-1"), "AWS region")
	fs.IntVar(&f.shards, "shards", platform.DefaultShards, "shards of each account's total (the totals function's PLATFORM_SHARDS)")
	fs.BoolVar(&f.conserve, "conserve", false, "scan the table: stored totals, legs not totalled yet, users' posted money and the net per currency")
	fs.BoolVar(&f.catchUp, "catch-up", false, "first total the entries not totalled yet (scans the table)")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	switch {
	case fs.NArg() > 0:
		return f, fmt.Errorf("unexpected arguments %q", fs.Args())
	case f.table == "":
		return f, errors.New("-table is required (or TABLE_NAME)")
	case f.shards < 1 || f.shards > platform.MaxShards:
		return f, fmt.Errorf("-shards %d: want 1 to %d", f.shards, platform.MaxShards)
	}
	return f, nil
}

// client reads with retries (runtime/retry) and sends the totals
// transactions of -catch-up again on an unknown outcome, which is safe.
func (c Command) client(ctx context.Context, f flags) (DB, error) {
	if c.Client != nil {
		return c.Client, nil
	}
	var cfg aws.Config
	if f.endpoint != "" {
		cfg = aws.Config{Region: f.region, BaseEndpoint: aws.String(f.endpoint),
			Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
				return aws.Credentials{AccessKeyID: envOr("AWS_ACCESS_KEY_ID", "local"), SecretAccessKey: envOr("AWS_SECRET_ACCESS_KEY", "local"),
					SessionToken: os.Getenv("AWS_SESSION_TOKEN")}, nil
			})}
	} else {
		var err error
		if cfg, err = config.LoadDefaultConfig(ctx, config.WithRegion(f.region)); err != nil {
			return nil, fmt.Errorf("load AWS configuration: %w", err)
		}
	}
	api := retry.NewClient(cfg)
	return client{Client: api, retrying: retry.Client{API: api}}, nil
}

type client struct {
	*dynamodb.Client
	retrying retry.Client
}

func (c client) Scan(ctx context.Context, in *dynamodb.ScanInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	return c.retrying.Scan(ctx, in, optFns...)
}

func (c client) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	return c.retrying.TransactWriteItems(ctx, in, optFns...)
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
