package httpapi

import (
	"context"
	"fmt"
	"os"

	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/oncetable/oncetable/runtime/config"
	"github.com/oncetable/oncetable/runtime/cursorsecret"
	"github.com/oncetable/oncetable/runtime/lambdaenv"
	"github.com/oncetable/oncetable/runtime/retry"
	"github.com/oncetable/oncetable/runtime/tracing"
)

// FromEnvironment builds the API the way every payments function needs it,
// once per execution environment: its configuration.Payments from the
// environment (config.LoadPayments), the tracer provider of
// OTEL_TRACES_EXPORTER (runtime/tracing), clients from the function's role and
// region in Lambda's environment (runtime/lambdaenv) and, when
// CURSOR_SECRET_ARN names one, the cursor-signing key read from Secrets
// Manager (never from the configuration).
func FromEnvironment(ctx context.Context) (*API, error) {
	if _, err := tracing.Setup(ctx); err != nil {
		return nil, fmt.Errorf("httpapi: %w", err)
	}
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
	db := retry.NewClient(awsCfg, tracing.DynamoDB)
	if p.Homes.Enabled() {
		leaseCfg := awsCfg.Copy()
		leaseCfg.Region = p.Homes.LeaseRegion
		cfg.Homes = HomesOf(p.Homes, p.Table, retry.NewClient(leaseCfg, tracing.DynamoDB), db)
	}
	api := New(db, cfg)
	if p.CursorSecretARN != "" {
		secret := cursorsecret.New(secretsmanager.NewFromConfig(awsCfg), p.CursorSecretARN)
		if err := secret.Load(ctx); err != nil {
			return nil, fmt.Errorf("httpapi: %w", err)
		}
		api.Store().Cursors().UseKeySource(secret)
	}
	return api, nil
}
