// Package checks holds oncetable's own synthesis-time rules, for what
// cdk-nag cannot see: its DynamoDB rules inspect only CfnTable, never the
// AWS::DynamoDB::GlobalTable that TableV2 synthesizes, and its API Gateway
// rules inspect only REST APIs, never HTTP APIs.
//
//	awscdk.Aspects_Of(stack).Add(checks.New(&checks.Props{Production: true}), nil)
//
// Each rule reports a finding the way cdk-nag does: an error annotation
// on the offending resource, "<rule ID>: <what is wrong>", so synthesis
// fails and test/cdk's nag test lists it. The rules:
//
//	OnceTable-TablePITR                 every replica of every table has point-in-time recovery on
//	OnceTable-TableDeletionProtection   with Props.Production, every replica has deletion protection on
//	OnceTable-TableBackupPlan           a backup plan's selection in the stack names the table
//	OnceTable-HttpApiRouteAuthorization every HTTP API route has an authorizer (IAM, JWT or Lambda)
//	OnceTable-HttpApiAccessLogging      every HTTP API stage writes access logs in a format
//	OnceTable-HttpApiThrottling         every HTTP API stage has a default rate and burst limit
//
// It is not a replacement for cdk-nag, which runs beside it.
package checks
