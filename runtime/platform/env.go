package platform

import (
	"context"
	"fmt"
	"os"

	"github.com/oncetable/oncetable/runtime/config"
	"github.com/oncetable/oncetable/runtime/lambdaenv"
	"github.com/oncetable/oncetable/runtime/obs"
	"github.com/oncetable/oncetable/runtime/retry"
	"github.com/oncetable/oncetable/runtime/tracing"
)

// FromEnvironment builds the Totaller of the totals Lambda function from
// its config.Totals and the function's role and region (runtime/lambdaenv),
// with its metrics on standard output (EMF). Its TransactWriteItems is
// retried by runtime/retry: sending a totals transaction again is safe,
// since an entry it already marked fails its condition and is left out.
func FromEnvironment(ctx context.Context) (*Totaller, error) {
	if _, err := tracing.Setup(ctx); err != nil {
		return nil, fmt.Errorf("platform: %w", err)
	}
	cfg, err := config.LoadTotals(os.Getenv)
	if err != nil {
		return nil, fmt.Errorf("platform: %w", err)
	}
	aws, err := lambdaenv.Config()
	if err != nil {
		return nil, fmt.Errorf("platform: aws config: %w", err)
	}
	db := retry.Client{API: retry.NewClient(aws, tracing.DynamoDB)}
	out := obs.Sync(os.Stdout) // one lock for the log lines and the EMF lines
	return New(db, func(o *Options) {
		o.Table, o.Shards = cfg.Table, cfg.Shards
		o.Logger, o.Metrics = obs.NewLogger(out), obs.NewMetrics(out)
	}), nil
}
