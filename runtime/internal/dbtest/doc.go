// Package dbtest gives integration tests a DynamoDB table: on the endpoint
// in DYNAMODB_ENDPOINT when it is set (a real or other DynamoDB-compatible
// service), otherwise on a fresh embedded engine (runtime/ddblocal). Each
// test gets its own table created from runtime/schema, an injectable clock,
// and an SDK middleware that counts the requests sent, per operation, so
// tests can assert round trips.
//
// It is for tests only.
package dbtest
