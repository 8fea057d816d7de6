// Package badinput holds oncetable's bad-input catalogue and the request
// fuzz target. Both drive the local runner's code path (net/http ->
// API Gateway v2 event -> runtime/httpapi) on the embedded engine and
// assert, for every rejected request, that nothing was written: the whole
// table is read before and after and must be unchanged.
//
// TestCatalogue generates docs/bad-input-catalogue.md: each bad input with
// the exact status and problem type it gets. Run it with -update to
// rewrite the file; without -update it fails when the checked-in file
// differs from what the API answers now.
//
//	go test ./test/badinput -run TestCatalogue -update
//	go test ./test/badinput -run XXX -fuzz FuzzRequest -fuzztime 1m
//
// The package has no non-test code; it is not for the payments tests
// themselves, which live next to runtime/httpapi.
package badinput
