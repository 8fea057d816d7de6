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
)

func main() {
	app := awscdk.NewApp(nil)
	if _, err := stacks.AddEnvironments(app); err != nil {
		// One clear line, no stack trace: this is a configuration mistake.
		fmt.Fprintln(os.Stderr, "oncetable:", err)
		jsii.Close()
		os.Exit(1)
	}
	app.Synth(nil)
	jsii.Close()
}
