// Package conformance is the black-box conformance suite of the embedded
// DynamoDB-compatible engine (runtime/ddblocal).
//
// Every case talks to a *dynamodb.Client from the unmodified aws-sdk-go-v2
// and names the AWS documentation statement it checks, so the same
// expectations can be run against the embedded engine and against any other
// endpoint (DynamoDB Local, real DynamoDB) to confirm them:
//
//	go test ./runtime/ddblocal/conformance/                      # embedded: in-process and over loopback TCP
//	DYNAMODB_ENDPOINT=http://127.0.0.1:8000 go test ./runtime/ddblocal/conformance/
//
// Cases that need the engine's injectable clock or fault injection skip
// against an external endpoint. The package holds only tests; it is not a
// library. docs/engine-conformance.md lists the areas covered.
package conformance
