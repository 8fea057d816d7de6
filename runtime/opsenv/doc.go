// Package opsenv resolves the environment an operator's command acts on
// (make freeze, make republish): local, the engine and API of make run, or
// an environment of cdk.json, whose Region cdk.json gives and whose
// resources' names the outputs of its deployed stack (OnceTable-<env>)
// give, read with the AWS CLI.
//
//	env, err := opsenv.Resolve("prod")
//	table, err := env.Output(ctx, "TableName")
//
// It builds no client and decides nothing about what the command does.
package opsenv
