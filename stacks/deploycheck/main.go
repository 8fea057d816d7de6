package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/oncetable/oncetable/stacks/envconfig"
)

func main() {
	if err := run(os.Args[1:], os.Getenv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "oncetable:", err)
		os.Exit(2)
	}
}

func run(args []string, getenv func(string) string, out io.Writer) error {
	fs := flag.NewFlagSet("deploycheck", flag.ContinueOnError)
	cdkJSON := fs.String("cdk-json", "cdk.json", "the CDK app's cdk.json")
	env := fs.String("env", "", "the environment to deploy (required)")
	targets := fs.Bool("targets", false, "print the aws://ACCOUNT/REGION environments to bootstrap")
	ctx := map[string]*string{}
	for _, key := range envconfig.DeployTimeKeys() {
		ctx[key] = fs.String(key, "", "deploy-time "+key+" (as cdk's -c "+key+"=...)")
	}
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *env == "" {
		return fmt.Errorf("-env is required")
	}
	all, err := envconfig.ReadCDKJSON(*cdkJSON)
	if err != nil {
		return err
	}
	lookup := func(key string) string { return strings.TrimSpace(*ctx[key]) }
	if err := envconfig.ApplyDeployTime(all, *env, lookup, getenv); err != nil {
		return err
	}
	selected, err := envconfig.Select(all, *env)
	if err != nil {
		return err
	}
	cfg := selected[0]
	if err := cfg.ReadyToDeploy(); err != nil {
		return err
	}
	if *targets {
		fmt.Fprintln(out, strings.Join(cfg.BootstrapTargets(), "\n"))
	}
	return nil
}
