package outbox

import (
	"context"
	"fmt"
	"os"

	"github.com/aws/aws-sdk-go-v2/service/eventbridge"

	"github.com/oncetable/oncetable/runtime/config"
	"github.com/oncetable/oncetable/runtime/lambdaenv"
	"github.com/oncetable/oncetable/runtime/tracing"
)

// FromEnvironment builds the Publisher of the events Lambda function from
// its config.Events and the function's role and region (runtime/lambdaenv),
// with the tracer provider of OTEL_TRACES_EXPORTER (runtime/tracing).
func FromEnvironment(ctx context.Context) (*Publisher, error) {
	if _, err := tracing.Setup(ctx); err != nil {
		return nil, fmt.Errorf("outbox: %w", err)
	}
	ev, err := config.LoadEvents(os.Getenv)
	if err != nil {
		return nil, fmt.Errorf("outbox: %w", err)
	}
	cfg, err := lambdaenv.Config()
	if err != nil {
		return nil, fmt.Errorf("outbox: aws config: %w", err)
	}
	return NewPublisher(eventbridge.NewFromConfig(cfg, tracing.EventBridge), func(o *Options) {
		o.BusName = ev.BusName
		if ev.Source != "" {
			o.Source = ev.Source
		}
	}), nil
}
