package outbox

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/aws/aws-sdk-go-v2/service/eventbridge"

	"github.com/oncetable/oncetable/runtime/lambdaenv"
)

// Environment variables of the events function.
const (
	// BusNameEnv names the event bus (name or ARN). Required.
	BusNameEnv = "EVENT_BUS_NAME"
	// SourceEnv overrides the entries' Source. Optional.
	SourceEnv = "EVENT_SOURCE"
)

// FromEnvironment builds the Publisher of the events Lambda function from
// its environment and the function's role and region (runtime/lambdaenv).
func FromEnvironment(ctx context.Context) (*Publisher, error) {
	bus := os.Getenv(BusNameEnv)
	if bus == "" {
		return nil, errors.New("outbox: " + BusNameEnv + " must be set")
	}
	cfg, err := lambdaenv.Config()
	if err != nil {
		return nil, fmt.Errorf("outbox: aws config: %w", err)
	}
	return NewPublisher(eventbridge.NewFromConfig(cfg), func(o *Options) {
		o.BusName = bus
		if s := os.Getenv(SourceEnv); s != "" {
			o.Source = s
		}
	}), nil
}
