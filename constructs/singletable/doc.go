// Package singletable is the CDK construct for the oncetable DynamoDB single
// table: a TableV2 whose keys, global secondary indexes and TTL attribute
// come from runtime/schema, so the deployed table, the embedded engine and
// the runtime code cannot disagree about a name.
//
// Use it from any Go CDK app:
//
//	table := singletable.NewTable(stack, "Table", nil) // safe production defaults
//	table.Table.GrantReadWriteData(fn)
//
// nil props give a production table: on-demand capacity, point-in-time
// recovery over 35 days, deletion protection, RETAIN on removal and
// AWS-owned encryption. TableProps documents each field's default.
//
// It is not for backups (constructs/backup) or alarms (constructs/alarms),
// and it never decides per-environment values: the app passes them in.
package singletable
