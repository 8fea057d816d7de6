// Package ddblocal is an embedded DynamoDB-compatible database: the default
// database of `make run` and of every oncetable test. It speaks DynamoDB's
// JSON 1.0 protocol, so the unmodified aws-sdk-go-v2 client talks to it,
// either in process (no sockets) or over HTTP.
//
// It is for proving the application against DynamoDB's semantics locally:
// conditional writes, transactions with cancellation reasons, idempotency
// tokens, sparse indexes, TTL, paging and capacity accounting, plus the
// failures production sees (throttling, transaction conflicts, lost
// responses, eventually consistent indexes). It is not a production
// database: there is one process, no replication and no streams.
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
// # Concurrency
//
// Every operation runs under the locks of the tables it touches (a
// transaction takes them in name order), so transactions and single-item
// writes are serializable. Items are stored encoded (attr.EncodeItem) in a
// B-tree per table and per index, keyed by an order-preserving encoding of
// their keys; a transaction costs the same on a table of any size.
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
// # Not implemented
//
// Streams, PartiQL, backups and
// restores, global tables, imports and exports are absent (continuous
// backup settings are only recorded); ReturnItemCollectionMetrics is
// accepted and ignored, and the 10 GB item collection limit is not
// enforced.
package ddblocal
