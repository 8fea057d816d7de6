// Package cli is the operator's command of the kill switch (lambdas/freeze,
// make freeze / unfreeze / frozen):
//
//	freeze   -flow all|<flow> -reason WHY [-env ENV | -table T [-dynamodb-endpoint URL | -region R]]
//	unfreeze -flow all|<flow> -reason WHY [...]
//	status   [...]   the frozen scopes and the audit history
//
// -env local is the engine of make run (http://127.0.0.1:8000, table
// oncetable); -env <environment of cdk.json> is that environment's Region
// and the table named by the TableName output of its stack
// (OnceTable-<env>), read with the AWS CLI's cloudformation
// describe-stacks.
//
// Who is the caller's identity, never a flag: the IAM ARN from STS
// GetCallerIdentity, or "local:<$USER>" against a local endpoint.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/oncetable/oncetable/runtime/freeze"
	"github.com/oncetable/oncetable/runtime/httpapi"
	"github.com/oncetable/oncetable/runtime/obs"
	"github.com/oncetable/oncetable/runtime/opsenv"
	"github.com/oncetable/oncetable/runtime/retry"
	"github.com/oncetable/oncetable/runtime/schema"
)

// Exit statuses.
const (
	ExitOK    = 0
	ExitError = 2
)

// Command is one invocation's environment.
type Command struct {
	Stdout, Stderr io.Writer
	// Client and Identity, if set, replace the ones built from the flags
	// (tests).
	Client   freeze.DB
	Identity string
	// Getenv reads USER for the local identity. Default: os.Getenv.
	Getenv func(string) string
	// StackOutput reads an output of a deployed stack. Default: the AWS
	// CLI (aws cloudformation describe-stacks).
	StackOutput opsenv.StackOutput
	// CDKJSON is the path of cdk.json. Default: "cdk.json".
	CDKJSON string
}

// Scopes are what -flow accepts: all, or one money flow of the API.
func Scopes() []string {
	out := []string{freeze.All}
	for _, r := range httpapi.Routes() {
		if r.Flow != "" && !slices.Contains(out, r.Flow) {
			out = append(out, r.Flow)
		}
	}
	return out
}

type flags struct {
	action, flow, reason, env, table, endpoint, region string
}

// Main runs args (without the program name) and returns the exit status.
func (c Command) Main(ctx context.Context, args []string) int {
	f, err := parse(args, c.Stderr)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(c.Stderr, "freeze:", err)
		}
		return ExitError
	}
	if err := c.resolve(ctx, &f); err != nil {
		fmt.Fprintln(c.Stderr, "freeze:", err)
		return ExitError
	}
	db, who, err := c.clients(ctx, f)
	if err != nil {
		fmt.Fprintln(c.Stderr, "freeze:", err)
		return ExitError
	}
	sw := freeze.New(db, func(o *freeze.Options) { o.Table = f.table })
	switch f.action {
	case "freeze":
		err = sw.Freeze(ctx, f.flow, who, f.reason)
	case "unfreeze":
		err = sw.Unfreeze(ctx, f.flow, who, f.reason)
	}
	if err != nil {
		fmt.Fprintf(c.Stderr, "freeze: table %s: %v\n", f.table, err)
		return ExitError
	}
	if f.action != "status" {
		past := map[string]string{"freeze": "froze", "unfreeze": "unfroze"}[f.action]
		fmt.Fprintf(c.Stdout, "%s %s of table %s as %s: %s\nevery function sees it within %s\n", past, f.flow, f.table, who, f.reason, sw.CacheTTL())
		// The audit's log line, beside its item in the table.
		obs.NewLogger(c.Stderr).Info(f.action, slog.String("scope", f.flow), slog.String("table", f.table), slog.String("by", who), slog.String("reason", f.reason))
	}
	return c.status(ctx, sw, f.table)
}

func (c Command) status(ctx context.Context, sw *freeze.Switch, table string) int {
	states, err := sw.States(ctx)
	if err != nil {
		fmt.Fprintf(c.Stderr, "freeze: table %s: %v\n", table, err)
		return ExitError
	}
	history, err := sw.History(ctx)
	if err != nil {
		fmt.Fprintf(c.Stderr, "freeze: table %s: %v\n", table, err)
		return ExitError
	}
	if len(states) == 0 {
		fmt.Fprintln(c.Stdout, "frozen: nothing")
	}
	for _, s := range states {
		fmt.Fprintf(c.Stdout, "frozen: %s since %s by %s: %s\n", s.Scope, s.At.Format("2006-01-02T15:04:05Z"), s.By, s.Reason)
	}
	for _, a := range history[max(0, len(history)-10):] {
		fmt.Fprintf(c.Stdout, "audit: %s %s %s by %s: %s\n", a.At.Format("2006-01-02T15:04:05Z"), a.Action, a.Scope, a.By, a.Reason)
	}
	return ExitOK
}

func parse(args []string, stderr io.Writer) (flags, error) {
	var f flags
	if len(args) == 0 || !slices.Contains([]string{"freeze", "unfreeze", "status"}, args[0]) {
		return f, errors.New("usage: freeze freeze|unfreeze|status -flow " + strings.Join(Scopes(), "|") + " -reason WHY [-table T] [-dynamodb-endpoint URL | -region R]")
	}
	f.action = args[0]
	fs := flag.NewFlagSet("freeze "+f.action, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.flow, "flow", "", "all, or the money flow to stop or restore: "+strings.Join(Scopes(), ", "))
	fs.StringVar(&f.reason, "reason", "", "why (recorded in the audit item)")
	fs.StringVar(&f.env, "env", "", "local (make run), or an environment of cdk.json: sets -table, -region or -dynamodb-endpoint")
	fs.StringVar(&f.table, "table", schema.DefaultTableName, "the table")
	fs.StringVar(&f.endpoint, "dynamodb-endpoint", "", "a local engine's URL, such as http://127.0.0.1:8000 (make run)")
	fs.StringVar(&f.region, "region", "", "the AWS Region (default: the AWS configuration's)")
	if err := fs.Parse(args[1:]); err != nil {
		return f, err
	}
	if fs.NArg() > 0 {
		return f, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if f.action == "status" {
		return f, nil
	}
	if !slices.Contains(Scopes(), f.flow) {
		return f, fmt.Errorf("-flow %q is not one of %s", f.flow, strings.Join(Scopes(), ", "))
	}
	if strings.TrimSpace(f.reason) == "" {
		return f, errors.New("-reason is required: say why, for the audit")
	}
	return f, nil
}

// resolve turns -env into the table and its Region or endpoint.
func (c Command) resolve(ctx context.Context, f *flags) error {
	switch f.env {
	case "":
		return nil
	case opsenv.Local:
		f.endpoint, f.table = cmpOr(f.endpoint, opsenv.LocalDynamoDB), schema.DefaultTableName
		return nil
	}
	env, err := opsenv.Resolve(f.env, func(o *opsenv.Options) {
		o.CDKJSON = cmpOr(c.CDKJSON, o.CDKJSON)
		if c.StackOutput != nil {
			o.StackOutput = c.StackOutput
		}
	})
	if err != nil {
		return err
	}
	table, err := env.Output(ctx, "TableName")
	if err != nil {
		return err
	}
	f.table, f.region = table, env.Region
	return nil
}

// clients are the table's client and the operator's identity.
func (c Command) clients(ctx context.Context, f flags) (freeze.DB, string, error) {
	getenv := c.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	local := "local:" + cmpOr(getenv("USER"), "operator")
	switch {
	case c.Client != nil:
		return c.Client, cmpOr(c.Identity, local), nil
	case f.endpoint != "":
		db := retry.NewClient(aws.Config{Region: cmpOr(f.region, "us-east-1"), BaseEndpoint: aws.String(f.endpoint),
			Credentials: opsenv.LocalCredentials})
		return retry.Client{API: db}, local, nil
	}
	opts := []func(*config.LoadOptions) error{}
	if f.region != "" {
		opts = append(opts, config.WithRegion(f.region))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, "", fmt.Errorf("load AWS configuration: %w", err)
	}
	id, err := sts.NewFromConfig(cfg).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil {
		return nil, "", fmt.Errorf("who are you (sts get-caller-identity): %w", err)
	}
	return retry.Client{API: retry.NewClient(cfg)}, aws.ToString(id.Arn), nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
