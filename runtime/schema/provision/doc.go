// Package provision creates the oncetable table, as runtime/schema
// describes it, through any DynamoDB client: real DynamoDB or the embedded
// engine (runtime/ddblocal).
//
//	db := ddblocal.New().Client()
//	err := provision.EnsureTable(ctx, db, schema.DefaultTableName)
//
// It lives apart from runtime/schema so that the schema stays free of the
// AWS SDK (CDK code imports it), and apart from runtime/ddblocal so that
// the engine knows nothing of oncetable's table.
//
// It is not for deployed stacks: CloudFormation creates the table there
// (constructs/singletable), from the same runtime/schema values.
package provision
