package httpapi

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/oncetable/oncetable/runtime/lambdaenv"
	"github.com/oncetable/oncetable/runtime/schema"
)

// FromEnvironment builds the API the way every Lambda function needs it,
// once per execution environment: the configuration from TABLE_NAME,
// IDEMPOTENCY_EXPIRY and CURSOR_SECRET, and a DynamoDB client from the
// function's role and region in Lambda's environment (runtime/lambdaenv).
func FromEnvironment(ctx context.Context) (*API, error) {
	cfg, err := ConfigFromEnv()
	if err != nil {
		return nil, err
	}
	if cfg.Table == "" {
		return nil, errors.New("httpapi: " + schema.TableNameEnv + " must be set")
	}
	awsCfg, err := lambdaenv.Config()
	if err != nil {
		return nil, fmt.Errorf("httpapi: aws config: %w", err)
	}
	return New(dynamodb.NewFromConfig(awsCfg), cfg), nil
}
