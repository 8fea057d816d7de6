// Package paymentsapi is the CDK construct for oncetable's HTTP API: an API
// Gateway HTTP API whose routes are exactly runtime/httpapi's route table,
// the Go Lambda functions that serve them (charge, debit and settle have
// their own; every other route goes to the api function), least-privilege
// DynamoDB access per function, and alarms with dashboard widgets.
//
//	api := paymentsapi.New(stack, "Payments", &paymentsapi.Props{
//		Table:   table.Table,
//		Monitor: ops, // *alarms.Operations: alarms page its topic
//	})
//	awscdk.NewCfnOutput(stack, jsii.String("ApiUrl"), &awscdk.CfnOutputProps{Value: api.URL})
//
// Every route requires IAM (SigV4) authorization by default, or a JWT
// authorizer when Props.JWT is set; no route is open. Under a JWT each
// route requires the scopes of the roles it admits (httpapi.RouteSpec.Roles,
// JWTAuth's scopes); under IAM, InvokePolicies hold one managed policy per
// role (ServiceInvoke, OperatorInvoke) with execute-api:Invoke on exactly
// that role's routes. Every function gets the AUTH_* variables and checks
// the role and a customer's ownership again. The runtime scopes
// idempotency keys by the caller identity that the authorizer puts in the
// request context. The $default stage is throttled and writes JSON access
// logs; CORS is off unless Props.CORS is set.
//
// Each function's role holds only the DynamoDB actions its routes call
// (FunctionAccess), on the table ARN and, for the api function's queries,
// the index ARNs: no wildcard actions, no managed policies on the roles.
//
// Props.Orders is the table's order index stage (singletable.OrderIndexes,
// v1 | both | v2, see docs/migrations.md). The functions that read or write
// orders (api, charge, settle) get it as ORDER_INDEXES and ORDER_SHARDS;
// api may query only the order indexes the stage has; at stage both,
// settle may also ConditionCheck the migration's META item, which its
// fenced order writes carry (api already may).
//
// It is not for the table, backups or the operations topic: see
// constructs/singletable, constructs/backup and constructs/alarms.
package paymentsapi
