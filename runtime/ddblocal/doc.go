// Package ddblocal is an embedded DynamoDB-compatible database: the default
// database of `make run` and of every oncetable test. It speaks DynamoDB's
// JSON 1.0 protocol, so the unmodified aws-sdk-go-v2 client talks to it,
// either in process (no sockets) or over HTTP.
//
// It is for proving the application against DynamoDB's semantics locally:
// conditional writes, transactions with cancellation reasons, idempotency
// tokens, sparse indexes, TTL, streams, paging and capacity accounting,
// plus the failures production sees (throttling, transaction conflicts,
// lost responses, eventually consistent indexes, stream lag). It is not a
// production database: there is one process, whose Regions (see Regions)
// replicate between themselves only.
//
// # Getting a client
//
// New returns an in-memory engine; Client returns a *dynamodb.Client wired
// to it in process:
//
//	eng := ddblocal.New()
//	defer eng.Close()
//	db := eng.Client()
//	_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{...})
//
// The engine knows no application's tables: oncetable's own is created by
// runtime/schema/provision.EnsureTable, through the same client.
//
// Options are set with functional options:
//
//	eng := ddblocal.New(func(o *ddblocal.Options) {
//		o.Clock = fakeClock.Now   // TTL and ClientRequestToken windows
//		o.Dir = "./data"          // persist in a bbolt file
//		o.TTLSweepInterval = -1   // no background sweeper; call SweepTTL
//	})
//
// To serve the engine on a TCP address, mount Handler on an http.Server;
// clients reach it with EndpointClient (or HTTPClient in their own options),
// which avoids an SDK race that a server this fast triggers on large
// responses.
//
// # Streams
//
// A table created or updated with a StreamSpecification has a stream, and
// the same Handler serves the DynamoDB Streams API (ListStreams,
// DescribeStream, GetShardIterator, GetRecords; X-Amz-Target
// DynamoDBStreams_20120810.*). StreamsClient returns a ready
// *dynamodbstreams.Client in process, StreamsEndpointClient one over HTTP:
//
//	sc := eng.StreamsClient()
//	desc, _ := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("oncetable")})
//	// desc.Table.LatestStreamArn -> DescribeStream, GetShardIterator, GetRecords
//
// Every write path (PutItem, UpdateItem, DeleteItem, BatchWriteItem,
// TransactWriteItems, PartiQL and the TTL sweeper) writes exactly one record per item
// it changes, at the point the item is committed, in commit order; a write
// that changes nothing writes none. TTL deletions carry the userIdentity
// of the DynamoDB service. Records are kept 24 hours and iterators last
// 15 minutes, by Options.Clock. Disabling a stream closes it (it stays
// readable until its records expire); enabling it again makes a new one.
// Each stream has one shard, open while the stream is enabled: DynamoDB
// splits shards as a table grows, which one process never needs. Streams
// persist in Options.Dir with the tables, and Faults.StreamDelay holds
// records back from readers, the lag a consumer sees in production.
//
// # Durability
//
// With Options.Dir every operation is one commit of one bbolt transaction
// in the data file, whatever the number of tables it writes: a
// TransactWriteItems across two tables, its ClientRequestToken and its
// stream records reach the file together or not at all. The change is
// applied in memory under the tables' locks and, should the commit fail
// (a full disk), undone before the locks are released: readers never see
// a write the file does not hold, and the client gets an
// InternalServerError. Tokens are stored for their whole 10-minute window,
// so a replay after a restart answers as the first call did.
//
// What a crash costs depends on Options.Durable (lambdas/local -durable):
//
//   - default: a commit reaches the operating system, not the disk. A
//     killed process (SIGKILL, panic, OOM) loses nothing it acknowledged;
//     a machine crash or power loss may lose the last seconds of commits
//     and may leave the file corrupt.
//   - Durable: every commit is fsynced before it is acknowledged; a
//     machine crash loses nothing acknowledged.
//
// In either mode Open never refuses a data directory because of a crash:
// after a machine crash it checks the file and sets a corrupt one aside,
// starting empty (Recovery says what it did). make crash-test kills the
// engine at random points of a mixed load and checks all of this;
// docs/reports/engine-benchmark.md measures what Durable costs.
//
// # Backups and point-in-time recovery
//
// CreateBackup, DescribeBackup, ListBackups, DeleteBackup and
// RestoreTableFromBackup keep on-demand backups (copy-on-write snapshots;
// with Options.Dir they are stored and outlive their table).
// UpdateContinuousBackups turns PITR on, with RecoveryPeriodInDays (1 to
// 35); DescribeContinuousBackups reports the real window, from when PITR
// was enabled (or the recovery period, or the history's bound) to
// Options.PITRLag (5 minutes, as DynamoDB) before now; and
// RestoreTableToPointInTime restores any time in it, to the millisecond.
// A restored table has the source's keys, indexes (or the overrides),
// billing and throughput, and none of its stream, TTL, PITR, tags or
// resource policies; DescribeTable shows its RestoreSummary. The history
// behind PITR is bounded by the recovery period and Options.PITRHistoryBytes
// (see pitr.go for its cost). Faults.TornBackups makes backups and restores
// hold only part of the table's last transaction, as DynamoDB warns they
// may.
//
// # Injecting faults
//
// SetFaults sets failures for one table (or, with "", for all). Draws come
// from a random source seeded by Faults.Seed, so a run can be repeated:
//
//	eng.SetFaults("oncetable", ddblocal.Faults{
//		Seed:             1,
//		ThrottleRate:     0.05,                 // ProvisionedThroughputExceededException
//		LoseResponseRate: 0.01,                 // committed, but the client sees a 500
//		GSIDelay:         50 * time.Millisecond, // eventually consistent GSIs
//	})
//	counts := eng.FaultCounts()
//
// Faults.Operations limits faults to some operations, for example only
// TransactWriteItems; LoseResponseMode chooses between an HTTP 500 and a
// reset connection.
//
// # Partition throughput
//
// Options.PartitionThroughput, off by default, throttles hot keys as
// DynamoDB's partitions do ("Best practices for designing and using
// partition keys effectively", "Diagnosing throttling"). Each
// partition-key value of a table, and of each global secondary index (the
// tuple of its partition attributes for a multi-attribute key), has a token
// bucket for reads and one for writes, refilled at ReadUnits (default
// 3,000) and WriteUnits (default 1,000) per second and holding Burst
// (default one second) of unused capacity:
//
//	eng := ddblocal.New(func(o *ddblocal.Options) {
//		o.PartitionThroughput = ddblocal.PartitionThroughput{Enabled: true, WriteUnits: 100}
//	})
//	counts := eng.ThrottleCounts() // by reason
//
// A request takes the capacity units the engine reports for it
// (ReturnConsumedCapacity): a read's units from its partition, a write's
// units from the table partition and, per index row written or removed,
// from the index partition; local index rows count on the table's
// partition, which they share. Units are taken, all or none, after the
// condition is checked and before anything is written, so a throttled
// request changes nothing: a write throttled on an index fails the table
// write too. The error is ProvisionedThroughputExceededException with
// ThrottlingReasons [{reason, resource}]: reason
// TableReadKeyRangeThroughputExceeded, TableWriteKeyRangeThroughputExceeded,
// IndexReadKeyRangeThroughputExceeded or
// IndexWriteKeyRangeThroughputExceeded, resource the table or index ARN. In
// TransactWriteItems and TransactGetItems the throttled item's
// CancellationReason is ThrottlingError; in BatchWriteItem and
// BatchGetItem throttled items come back unprocessed, and the batch fails
// only when every item is throttled.
// A full bucket admits any one request, which may leave it owing.
//
// This is a simplified model. DynamoDB groups many partition-key values
// into one partition, splits hot partitions (split for heat) and lets a
// table bank up to 300 seconds of unused capacity; here every value is its
// own partition, nothing splits, and the burst is short. PartiQL statements
// are limited as the operations they run (a SELECT as GetItem, not as a
// Query). Scans, which span partitions, and PartiQL SELECTs that query are
// not limited, and tables' provisioned or on-demand maximum throughput is
// not modelled.
//
// # Concurrency
//
// Every operation runs under the locks of the tables it touches (a
// transaction takes them in name order), so transactions and single-item
// writes are serializable. Items are stored encoded (attr.EncodeItem) in a
// B-tree per table and per index, keyed by an order-preserving encoding of
// their keys. A table's rows are also in a hash index: a point read or
// write (GetItem, PutItem, UpdateItem, a transaction's items) finds its row
// by hash and updates it in place, without searching the tree, unless a
// backup or a point-in-time copy still shares it. The cells that hold the
// rows are made 64 at a time: each row is one object fewer for the
// garbage collector to mark.
//
// # Legacy parameters
//
// The pre-expression parameters (Expected with ConditionalOperator,
// AttributeUpdates, KeyConditions, QueryFilter, ScanFilter and
// AttributesToGet) are compiled into the same condition, update,
// key-condition and projection trees as the expressions (expr.Legacy), so
// they evaluate exactly alike. As in DynamoDB, KeyConditions may go with
// FilterExpression and ProjectionExpression; any other mix of legacy and
// expression parameters is refused with "Can not use both expression and
// non-expression parameters in the same request".
//
// # Multi-attribute GSI keys
//
// A global secondary index's partition key and sort key may each be made of
// up to four attributes, each with its own type (Developer Guide,
// "Multi-attribute key schema"), in CreateTable and in UpdateTable's Create,
// which backfills. An item missing any of them is not in the index. A Query
// gives equality on every partition attribute and may use the sort
// attributes left to right without a gap, only the last one it uses taking
// a range or begins_with; rows come back ordered by the sort attributes in
// order, and LastEvaluatedKey carries every key attribute. Tables and local
// secondary indexes keep one partition and at most one sort attribute.
//
// # Layers of a request
//
// A request goes through three layers, each readable without the others:
//
//   - wire: the facts of DynamoDB's API model (package wire and its
//     generated packages ddb and streams: shapes, members, required
//     members, length, range, enum and pattern constraints, error codes),
//     generated from the botocore model pinned in wire/model;
//   - validation: the first pass checks the request's members against
//     those facts in DynamoDB's message form ("N validation errors
//     detected: Value … at '…' failed to satisfy constraint: …"), before any
//     table is looked up: modelcheck.go from the model alone for most
//     operations, validate_ops.go for the item operations, Query, Scan,
//     batches, transactions and table operations, whose enum sets and
//     bounds it reads from the model; the second pass (key schema,
//     expressions, items) is the operations' own;
//   - operations: ops_*.go, from a decoded, validated input to an output.
//
// # Validation, item collections and regions
//
// A bad TableName is reported alone, every other violation of the first
// pass together. The rest of what a request can be checked on without its
// table (expressions and placeholders, every batch entry and transaction
// action) is checked next, also before the lookup, so an invalid request on
// a missing table is a ValidationException. TableName may be the table's
// ARN; a batch keyed by an ARN gets its Responses and Unprocessed maps keyed
// by that ARN. Writes to a table with a
// local secondary index return ItemCollectionMetrics under
// ReturnItemCollectionMetrics=SIZE and refuse to grow an item collection
// past 10 GB (Options.ItemCollectionSizeLimit lowers it for tests) with
// ItemCollectionSizeLimitExceededException. The ARNs the engine makes name
// the region of the request's SigV4 credential scope, Options.Region when
// it has none.
//
// # Regions
//
// Options.Regions makes one engine serve several Regions, each with its
// own tables, tokens and streams; Handler routes every request to the
// Region of its SigV4 credential scope (a Region the engine does not
// serve is refused with UnrecognizedClientException), and Region returns
// one Region's engine, whose Client signs for it:
//
//	eng := ddblocal.New(func(o *ddblocal.Options) {
//		o.Regions = []string{"us-east-1", "eu-west-1"}
//	})
//	west := eng.Region("eu-west-1").Client()
//
// `local engine -regions us-east-1,eu-west-1` serves them on one port;
// with -regionPorts each Region is also served alone on a port of its own
// (Engine.RegionHandler).
//
// # Global tables
//
// Between Regions, tables replicate as DynamoDB's global tables of version
// 2019.11.21: UpdateTable's ReplicaUpdates creates a replica (the table's
// definition, TTL setting and items) in another Region, where ListTables
// and DescribeTable show it, and DescribeTable reports Replicas,
// GlobalTableVersion and MultiRegionConsistency. A write commits in its
// Region and reaches the others asynchronously, item by item, each after
// a lag; a transaction's items travel separately. Conflicts are settled by
// last writer wins on a version clients never see, the writing Region's
// clock then its name (inferred: see replication.go). Reads, conditions
// and ClientRequestTokens are local to a Region, and every replica's
// stream carries the writes applied to it, replicated ones included.
// MultiRegionConsistency STRONG makes a write reach every reachable
// replica before it commits (see replication_strong.go). With Options.Dir
// the versions and each Region's backlog of unreplicated writes are kept
// with the rows and survive a restart.
//
// Replication is the fault API of the Regions, seeded and deterministic
// with Options.ManualReplication and a fake Clock:
//
//	rep := eng.Replication()
//	rep.SetFaults(ddblocal.ReplicationFaults{Seed: 1, Lag: ddblocal.ExponentialLag(time.Second)})
//	rep.Partition("us-east-1", "eu-west-1") // and Heal
//	rep.Crash("eu-west-1", true)            // backlog kept; Restart
//	rep.SetClockSkew("us-east-1", 2*time.Second)
//	q := rep.WaitQuiet()                    // q.Identical, q.Pending
//	lat := rep.ReplicationLatency("users", "us-east-1", "eu-west-1")
//
// # Pooled items
//
// Some decoded items are reused once the operation that owns them releases
// them. Built with -tags ddblocal_poison (make test's race run is), a
// released map is poisoned instead of reused, and reading it through the
// engine panics, so a change that keeps one fails its tests loudly.
//
// # Not implemented
//
// The wording of some refusals of a multi-attribute key is the engine's own,
// where DynamoDB's is not documented: more than four partition or sort
// attributes, a partition attribute after a sort attribute, an attribute
// named twice, and a range condition before the last sort attribute used
// ("Query key condition not supported"). Index key values are not checked
// against DynamoDB's key size limits.
//
// PartiQL (ExecuteStatement, BatchExecuteStatement, ExecuteTransaction)
// is parsed by package partiql into the expression language's trees and
// runs through the same reads and writes as the other operations; it
// knows SELECT, INSERT, UPDATE, DELETE and EXISTS, not PartiQL's joins,
// aliases, aggregates or arithmetic outside SET, and a SELECT over several
// partitions (IN, OR) returns them in the order the statement names them.
// Resource-based policies (PutResourcePolicy, GetResourcePolicy,
// DeleteResourcePolicy, CreateTable's ResourcePolicy) are stored and
// versioned, never enforced: the engine has no principals.
// ExportTableToPointInTime and ImportTable (with DescribeExport,
// ListExports, DescribeImport, ListImports) read and write DynamoDB's S3
// layout and formats in Options.S3Dir, a directory per bucket; an export
// is of the table at ExportTime (from the point-in-time history) or now,
// and runs to its end within the call.
// Without Options.Regions the engine has one namespace for every region
// and account: a table's ARN names the region of the request that created
// it, but requests signed for any region see it, and a table ARN given as
// a TableName is resolved by its name alone.
package ddblocal
