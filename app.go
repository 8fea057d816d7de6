// Command oncetable is the CDK app: one stack per environment defined in
// cdk.json ("oncetable:environments"), named OnceTable-<env>. Select one with
// -c env=<name>; without it every environment is synthesized.
package main

import (
	"fmt"
	"os"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"

	"github.com/oncetable/oncetable/stacks"
	"github.com/oncetable/oncetable/stacks/envconfig"
)

func main() {
	defer jsii.Close()
	if err := synth(); err != nil {
		// One clear line, no stack trace: this is a configuration mistake.
		fmt.Fprintln(os.Stderr, "oncetable:", err)
		jsii.Close()
		os.Exit(1)
	}
}

func synth() error {
	app := awscdk.NewApp(nil)
	all, err := envconfig.FromContext(app.Node().TryGetContext(jsii.String(envconfig.ContextKey)))
	if err != nil {
		return err
	}
	selected := ""
	if v, ok := app.Node().TryGetContext(jsii.String(envconfig.SelectKey)).(string); ok {
		selected = v
	}
	envs, err := envconfig.Select(all, selected)
	if err != nil {
		return err
	}
	for _, cfg := range envs {
		stacks.NewOnceTableStack(app, stacks.StackName(cfg.Name), &stacks.OnceTableStackProps{
			StackProps: awscdk.StackProps{Description: jsii.String("oncetable " + cfg.Name + ": single table, backups and alarms")},
			Config:     cfg,
		})
	}
	app.Synth(nil)
	return nil
}
