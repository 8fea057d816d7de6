// Package schema is the single source of truth for the oncetable single
// table: its name prefix, key attributes, secondary indexes and TTL attribute.
//
// The CDK construct (constructs/singletable), the local table bootstrap
// (runtime/schema/provision, for lambdas/local and tests) and the runtime's
// key builders all read these values, so the deployed table, the local table
// and the code can never disagree about a key or index name.
//
// The same names are also a value, [Schema] ([Default] is the constants),
// which the store and the flows take at construction, so one build can
// serve a table laid out with other names (TestFlowsOnAnotherSchema in
// runtime/payments runs every flow on lower-case pk/sk and indexes).
//
// It is not for entity layouts or access patterns: those live with the
// runtime packages that own them. It imports nothing outside the standard
// library, so both Lambda binaries and CDK code may depend on it.
package schema
