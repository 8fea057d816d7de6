package stacks

import (
	"os"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"

	"github.com/oncetable/oncetable/stacks/envconfig"
)

// AddEnvironments reads the environments from app's context (cdk.json) and
// adds one OnceTable-<env> stack for each, or only for the one selected with
// -c env=<name>. The account and Slack IDs come at deploy time, from the
// context (-c account=...) or the environment (envconfig.ApplyDeployTime).
// An environment whose API throttles admit more writes than its table takes
// (CheckCapacity) is refused. Configuration mistakes come back as errors,
// never panics.
func AddEnvironments(app awscdk.App) ([]*OnceTableStack, error) {
	all, err := envconfig.FromContext(app.Node().TryGetContext(jsii.String(envconfig.ContextKey)))
	if err != nil {
		return nil, err
	}
	selected, _ := app.Node().TryGetContext(jsii.String(envconfig.SelectKey)).(string)
	lookup := func(key string) string {
		v, _ := app.Node().TryGetContext(jsii.String(key)).(string)
		return v
	}
	if err := envconfig.ApplyDeployTime(all, selected, lookup, os.Getenv); err != nil {
		return nil, err
	}
	envs, err := envconfig.Select(all, selected)
	if err != nil {
		return nil, err
	}
	for _, cfg := range envs {
		if err := CheckCapacity(cfg); err != nil {
			return nil, err
		}
	}
	var out []*OnceTableStack
	for _, cfg := range envs {
		out = append(out, NewOnceTableStack(app, StackName(cfg.Name), &OnceTableStackProps{
			StackProps: awscdk.StackProps{Description: jsii.String("oncetable " + cfg.Name + ": single table, backups, alarms and the payments API")},
			Config:     cfg,
		}))
	}
	return out, nil
}
