// Command deploycheck is what `make deploy` and `make bootstrap` run before
// the CDK CLI: it reads cdk.json, applies the deploy-time settings (the
// flags stand for the CLI's -c context, then ONCETABLE_<ENV>_* variables)
// and refuses at once, with one line naming the setting, an environment
// that has no account to deploy into or a production environment that
// would page nobody. With -targets it prints the aws://ACCOUNT/REGION
// environments to bootstrap, one per line: the environment's region and
// its DR region.
//
// It imports no CDK package, so it builds in a second or two.
package main
