// Package standalone serves the embedded DynamoDB-compatible engine
// (runtime/ddblocal) on its own, as a drop-in for DynamoDB Local without
// Java: it takes DynamoDB Local's command-line options (-port, -inMemory,
// -dbPath, -sharedDb, -delayTransientStatuses, -cors, -help) with their
// meaning in the Developer Guide ("DynamoDB local usage notes"):
//
//   - without -sharedDb each access key ID and region (of the request's
//     SigV4 credential) has a database of its own, as DynamoDB Local's
//     myaccesskeyid_region.db files; with -sharedDb every request uses one
//     database (shared-local-instance);
//   - -dbPath is the directory the databases are kept in (default: the
//     current directory), each in a subdirectory named as DynamoDB Local
//     names its file without ".db"; -inMemory keeps nothing on disk, and
//     cannot go with -dbPath;
//   - -delayTransientStatuses keeps tables CREATING, UPDATING and DELETING
//     (and new indexes CREATING) for a while, as DynamoDB does, instead of
//     ACTIVE at once;
//   - -cors is the comma-separated list of origins allowed by CORS
//     (default "*").
//
// The command is `local engine` (lambdas/local), or `make engine`.
package standalone
