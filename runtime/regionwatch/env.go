package regionwatch

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

// FromEnvironment builds the watcher of a Lambda function from its
// configuration (config.LoadRegionWatch: TABLE_NAME and the HOME_
// variables), with a client of its Region (HOME_REGION).
func FromEnvironment(ctx context.Context) (*Watcher, error) {
	if _, err := tracing.Setup(ctx); err != nil {
		return nil, fmt.Errorf("regionwatch: %w", err)
	}
	cfg, err := config.LoadRegionWatch(os.Getenv)
	if err != nil {
		return nil, fmt.Errorf("regionwatch: %w", err)
	}
	aws, err := lambdaenv.Config()
	if err != nil {
		return nil, fmt.Errorf("regionwatch: aws config: %w", err)
	}
	aws.Region = cfg.Homes.Region
	out := obs.Sync(os.Stdout) // one lock for the log lines and the EMF lines
	return New(cfg.Homes.Region, cfg.Table, retry.NewClient(aws, tracing.DynamoDB), func(o *Options) {
		o.Cells, o.Logger, o.Metrics = cfg.Homes.Cells, obs.NewLogger(out), obs.NewMetrics(out)
	}), nil
}
