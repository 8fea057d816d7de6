// Package cli is the operator's command that republishes payment events
// rebuilt from the table (lambdas/republish, make republish):
//
//	republish -from T -to T [-apply] [-env ENV | -table T -bus B [-dynamodb-endpoint URL] [-eventbridge-endpoint URL] [-region R]]
//	republish -dlq [-queue-url URL] [-margin D] [-apply] [...]
//
// It is a dry run unless -apply is given: it prints the events it would
// publish, one line each, and sends nothing. -from/-to (RFC 3339) give one
// window of commit times; -dlq takes the windows of the stream batches in
// the events function's failure queue, widened by -margin, and with
// -apply deletes those messages once their events are published.
//
// -env local is make run's engine and its EventBridge stand-in (the
// runner's /_local/eventbridge); -env <environment of cdk.json> reads the
// table, the bus and the failure queue from its stack's outputs
// (TableName, EventBusName, EventsFailureQueueUrl) and uses the caller's
// AWS identity.
package cli

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/oncetable/oncetable/runtime/opsenv"
	"github.com/oncetable/oncetable/runtime/outbox"
	"github.com/oncetable/oncetable/runtime/republish"
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
	// DB, Bus and Queue, if set, replace the clients built from the flags
	// (tests).
	DB    republish.DB
	Bus   outbox.PutEventsAPI
	Queue republish.Queue
	// Env options (cdk.json's path, the stack's outputs); tests set them.
	Env []func(*opsenv.Options)
}

type flags struct {
	env, table, bus, ddbEndpoint, ebEndpoint, region, queueURL string
	from, to                                                   string
	dlq, apply                                                 bool
	margin                                                     time.Duration
	maxMessages, segments                                      int
}

// UsageError reports flags that do not make a command.
type UsageError struct{ Reason string }

func (e *UsageError) Error() string { return "republish: " + e.Reason }

// Main runs args (without the program name) and returns the exit status.
func (c Command) Main(ctx context.Context, args []string) int {
	if err := c.run(ctx, args); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(c.Stderr, "republish:", err)
		}
		return ExitError
	}
	return ExitOK
}

func (c Command) run(ctx context.Context, args []string) error {
	f, err := parse(args, c.Stderr)
	if err != nil {
		return err
	}
	if err := c.resolve(ctx, &f); err != nil {
		return err
	}
	if err := c.clients(ctx, f); err != nil {
		return err
	}
	windows, failures, err := c.windows(ctx, f)
	if err != nil {
		return err
	}
	if len(windows) == 0 {
		fmt.Fprintf(c.Stdout, "the failure queue holds no message: nothing to republish\n")
		return nil
	}
	evs, err := republish.Rebuild(ctx, c.DB, windows, func(o *republish.Options) {
		o.Table, o.Segments = f.table, f.segments
	})
	if err != nil {
		return err
	}
	for _, w := range windows {
		fmt.Fprintf(c.Stdout, "window %s\n", w)
	}
	for _, ev := range evs {
		fmt.Fprintf(c.Stdout, "event %s %s user %s %d %s\n", ev.CommittedAt.Format(time.RFC3339Nano), ev.ID, ev.UserID, ev.Amount, ev.Currency)
	}
	if !f.apply {
		fmt.Fprintf(c.Stdout, "dry run: would publish %d events of table %s to bus %s (-apply to publish)\n", len(evs), f.table, f.bus)
		return nil
	}
	pub := outbox.NewPublisher(c.Bus, func(o *outbox.Options) { o.BusName = f.bus })
	n, err := pub.Publish(ctx, evs)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.Stdout, "published %d events of table %s to bus %s under their original ids\n", n, f.table, f.bus)
	if f.dlq {
		if err := republish.DeleteFailures(ctx, c.Queue, f.queueURL, failures); err != nil {
			return err
		}
		fmt.Fprintf(c.Stdout, "deleted %d messages of %s\n", len(failures), f.queueURL)
	}
	return nil
}

// windows are -from/-to's, or the failure queue's.
func (c Command) windows(ctx context.Context, f flags) ([]republish.Window, []republish.Failure, error) {
	if !f.dlq {
		from, errFrom := time.Parse(time.RFC3339Nano, f.from)
		to, errTo := time.Parse(time.RFC3339Nano, f.to)
		if err := errors.Join(errFrom, errTo); err != nil {
			return nil, nil, &UsageError{Reason: fmt.Sprintf("-from and -to are RFC 3339 times: %v", err)}
		}
		return []republish.Window{{From: from, To: to}}, nil, nil
	}
	// Hidden long enough for the scan and the publishing that follow; a
	// dry run leaves them to reappear.
	visibility := 15 * time.Minute
	failures, err := republish.ReadFailures(ctx, c.Queue, f.queueURL, f.maxMessages, visibility)
	if err != nil {
		return nil, nil, err
	}
	var windows []republish.Window
	for _, fl := range failures {
		fmt.Fprintf(c.Stdout, "message %s: shard %s, %d records, sequence %s to %s\n", fl.MessageID, fl.Shard, fl.BatchSize, fl.StartSequence, fl.EndSequence)
		windows = append(windows, fl.Window(f.margin))
	}
	return windows, failures, nil
}

func parse(args []string, stderr io.Writer) (flags, error) {
	var f flags
	fs := flag.NewFlagSet("republish", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.env, "env", "", "local (make run), or an environment of cdk.json: sets -table, -bus, -queue-url and the Region or endpoints")
	fs.StringVar(&f.table, "table", schema.DefaultTableName, "the table")
	fs.StringVar(&f.bus, "bus", "default", "the event bus, by name or ARN")
	fs.StringVar(&f.ddbEndpoint, "dynamodb-endpoint", "", "a local engine's URL (make run: "+opsenv.LocalDynamoDB+")")
	fs.StringVar(&f.ebEndpoint, "eventbridge-endpoint", "", "an EventBridge endpoint (make run: "+opsenv.LocalEventBridge+")")
	fs.StringVar(&f.region, "region", "", "the AWS Region (default: the AWS configuration's)")
	fs.StringVar(&f.from, "from", "", "the first commit time to republish, RFC 3339")
	fs.StringVar(&f.to, "to", "", "the commit time to stop before, RFC 3339")
	fs.BoolVar(&f.dlq, "dlq", false, "republish the stream batches of the events function's failure queue instead of -from/-to")
	fs.StringVar(&f.queueURL, "queue-url", "", "the failure queue's URL (-env sets it)")
	fs.DurationVar(&f.margin, "margin", time.Minute, "how far each failed batch's window is widened on both sides (-dlq)")
	fs.IntVar(&f.maxMessages, "max-messages", 1000, "at most this many failure messages in one run (-dlq)")
	fs.IntVar(&f.segments, "segments", 4, "parallel Scan segments")
	fs.BoolVar(&f.apply, "apply", false, "publish (without it: a dry run that prints what it would publish)")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	switch {
	case fs.NArg() > 0:
		return f, &UsageError{Reason: fmt.Sprintf("unexpected arguments %q", fs.Args())}
	case f.dlq && (f.from != "" || f.to != ""):
		return f, &UsageError{Reason: "give -dlq or -from/-to, not both"}
	case !f.dlq && (f.from == "" || f.to == ""):
		return f, &UsageError{Reason: "give -from and -to (RFC 3339), or -dlq"}
	case f.maxMessages < 1 || f.segments < 1 || f.margin < 0:
		return f, &UsageError{Reason: "-max-messages and -segments are at least 1, -margin not negative"}
	}
	return f, nil
}

// resolve turns -env into the table, bus, queue and Region or endpoints.
func (c Command) resolve(ctx context.Context, f *flags) error {
	if f.env == "" {
		return nil
	}
	env, err := opsenv.Resolve(f.env, c.Env...)
	if err != nil {
		return err
	}
	if env.IsLocal() {
		f.ddbEndpoint, f.table = cmp.Or(f.ddbEndpoint, opsenv.LocalDynamoDB), schema.DefaultTableName
		f.ebEndpoint = cmp.Or(f.ebEndpoint, opsenv.LocalEventBridge)
		if f.dlq && f.queueURL == "" {
			return &UsageError{Reason: "make run has no failure queue (its stream poller logs what it gives up): use -from/-to"}
		}
		return nil
	}
	f.region = env.Region
	if f.table, err = env.Output(ctx, "TableName"); err != nil {
		return err
	}
	if f.bus, err = env.Output(ctx, "EventBusName"); err != nil {
		return err
	}
	if f.dlq && f.queueURL == "" {
		f.queueURL, err = env.Output(ctx, "EventsFailureQueueUrl")
	}
	return err
}

// clients builds what the command was not given.
func (c *Command) clients(ctx context.Context, f flags) error {
	var cfg aws.Config
	if f.ddbEndpoint == "" || (f.ebEndpoint == "" && f.apply) || f.dlq {
		opts := []func(*config.LoadOptions) error{}
		if f.region != "" {
			opts = append(opts, config.WithRegion(f.region))
		}
		var err error
		if cfg, err = config.LoadDefaultConfig(ctx, opts...); err != nil {
			return fmt.Errorf("load AWS configuration: %w", err)
		}
	}
	local := aws.Config{Region: cmp.Or(f.region, "us-east-1"), Credentials: opsenv.LocalCredentials}
	if c.DB == nil {
		if f.ddbEndpoint != "" {
			c.DB = retry.NewClient(local, func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(f.ddbEndpoint) })
		} else {
			c.DB = retry.NewClient(cfg)
		}
	}
	if c.Bus == nil {
		if f.ebEndpoint != "" {
			c.Bus = eventbridge.NewFromConfig(local, func(o *eventbridge.Options) { o.BaseEndpoint = aws.String(f.ebEndpoint) })
		} else {
			c.Bus = eventbridge.NewFromConfig(cfg)
		}
	}
	if c.Queue == nil && f.dlq {
		c.Queue = sqs.NewFromConfig(cfg)
	}
	return nil
}
