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
// recovery over 35 days, deletion protection, RETAIN_ON_UPDATE_OR_DELETE on removal (nothing left behind by a failed first create) and
// AWS-owned encryption. TableProps documents each field's default.
//
// Index keys come from runtime/schema: an overloaded index (GSI1,
// Unprocessed, Featured) gets PartitionKey and SortKey (strings), a
// multi-attribute one (OrdersByStatus: HASH status S + shard N, RANGE
// createdAt S + orderId S) gets GlobalSecondaryIndexPropsV2's PartitionKeys
// and SortKeys, each attribute with its type, in the schema's order.
//
// TableProps.Orders (OrderIndexes) is the stage of the orders-by-status
// migration: v1 (the zero value: GSI1, today's table), both (GSI1 and
// OrdersByStatus, while runtime/migrate moves the orders) or v2
// (OrdersByStatus only). CloudFormation adds or removes one GSI per stack
// update, so move one stage per deploy; docs/migrations.md ("Deploys and
// phases") says which deploy belongs to which phase. Table.Orders carries
// the stage and shard count on to the functions (paymentsapi.Props.Orders,
// which sets ORDER_INDEXES and ORDER_SHARDS) and Table.IndexNames to the
// alarms (alarms.TableAlarmsProps.IndexNames):
//
//	table := singletable.NewTable(stack, "Table", &singletable.TableProps{
//		Orders: singletable.OrderIndexes{Stage: schema.OrdersBoth, Shards: 4},
//	})
//	ops.MonitorTable("Table", table.Table, &alarms.TableAlarmsProps{IndexNames: table.IndexNames()})
//
// It is not for backups (constructs/backup) or alarms (constructs/alarms),
// and it never decides per-environment values: the app passes them in.
package singletable
