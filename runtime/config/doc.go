// Package config is the contract between the constructs that deploy
// oncetable's Lambda functions and the mains that run them: the name,
// default and limits of every environment variable, stated once.
//
// Each function has one typed configuration: [Payments] (the api, charge,
// debit and settle functions), [Events], [Totals], [RestoreValidation] and
// [Migration] (the migrate command). A construct builds the value and
// writes its Environment; a main reads it back with the matching Load,
// which checks every limit and names the variable at fault:
//
//	// constructs/paymentsapi
//	env := config.Payments{Table: tableName, Orders: orders, Auth: auth}.Environment()
//	// lambdas/charge
//	cfg, err := config.LoadPayments(os.Getenv)
//
// Load(Environment(c)) is c with its defaults filled, and test/cdk checks
// that each synthesized function's environment is exactly what its Load
// reads.
//
// It is not for the AWS SDK's own variables (AWS_REGION, credentials:
// runtime/lambdaenv), nor for deploy-time settings (stacks/envconfig). It
// imports no CDK package: constructs import it, never the reverse.
package config
