// Package ddbtest is test support for code on DynamoDB, inside this module
// or out of it (it is not internal, so test/ and other modules' examples can
// use it): a client of the endpoint in DYNAMODB_ENDPOINT when it is set, or
// else of a fresh embedded engine (runtime/ddblocal) closed when the test
// ends; a fresh table name; and an SDK middleware that counts the requests
// sent, per operation, after the retryer, so tests can assert round trips;
// and one that sums the capacity units the endpoint reports (Capacity).
//
// runtime/internal/dbtest builds oncetable's own table on it. It is for
// tests only.
package ddbtest
