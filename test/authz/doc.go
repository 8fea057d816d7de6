// Package authz is the catalogue of cross-user and wrong-role calls: for
// every route of runtime/httpapi's table, the wrong customer on another
// user's data, a customer or a service on a route its role lacks, and a
// token with no recognised scope, each with the refusal it must get.
//
// The package's tests send every attempt through the API Gateway v2
// handler (a JWT authorizer's event) and through the local runner
// (X-Local-Caller and X-Local-Scopes), and check the refusal and that the
// whole table is unchanged after it; test/badinput lists the same attempts
// in docs/bad-input-catalogue.md. The attempts are derived from the route
// table, so a new route is covered the day it is declared, and a route
// without an [Example] fails the tests.
//
// It is not for load: the soak's hostile callers live in test/workload.
package authz
