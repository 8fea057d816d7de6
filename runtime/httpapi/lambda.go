package httpapi

import (
	"context"
	"fmt"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/oncetable/oncetable/runtime/config"
	"github.com/oncetable/oncetable/runtime/cursorsecret"
	"github.com/oncetable/oncetable/runtime/lambdaenv"
)

// FromEnvironment builds the API the way every payments function needs it,
// once per execution environment: its configuration.Payments from the
// environment (config.LoadPayments), clients from the function's role and
// region in Lambda's environment (runtime/lambdaenv) and, when
// CURSOR_SECRET_ARN names one, the cursor-signing key read from Secrets
// Manager (never from the configuration).
func FromEnvironment(ctx context.Context) (*API, error) {
	p, err := config.LoadPayments(os.Getenv)
	if err != nil {
		return nil, fmt.Errorf("httpapi: %w", err)
	}
	cfg, err := FromConfig(p)
	if err != nil {
		return nil, err
	}
	awsCfg, err := lambdaenv.Config()
	if err != nil {
		return nil, fmt.Errorf("httpapi: aws config: %w", err)
	}
	if p.Homes.Enabled() {
		leaseCfg := awsCfg.Copy()
		leaseCfg.Region = p.Homes.LeaseRegion
		cfg.Homes = HomesOf(p.Homes, p.Table, DynamoDB(leaseCfg))
	}
	api := New(DynamoDB(awsCfg), cfg)
	if p.CursorSecretARN != "" {
		secret := cursorsecret.New(secretsmanager.NewFromConfig(awsCfg), p.CursorSecretARN)
		if err := secret.Load(ctx); err != nil {
			return nil, fmt.Errorf("httpapi: %w", err)
		}
		api.Store().Cursors().UseKeySource(secret)
	}
	return api, nil
}

// DynamoDB is the DynamoDB client of the payments functions. The SDK's
// retryer is off, so each call of the client is one send: runtime/retry is
// the one layer that retries (Config.Retry), with one budget and one
// backoff. With the SDK's standard retryer under it, a throttled call was
// sent up to 3 times per attempt of runtime/retry: 15 sends.
func DynamoDB(cfg aws.Config) *dynamodb.Client {
	return dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) { o.Retryer = aws.NopRetryer{} })
}
