// Package wire holds the facts of DynamoDB's API model: the shapes of every
// operation's input and output, their members, which are required, their
// length, range, enum and pattern constraints, and the error codes. It is
// generated from the service models AWS's SDKs are generated from (model/,
// pinned to a botocore release, see model/NOTICE), so none of it is typed by
// hand, and it holds no behaviour: what the facts mean for a request is
// decided by the engine's validation, which reads them.
//
// The generated packages are ddb (DynamoDB, target prefix
// DynamoDB_20120810) and streams (DynamoDB Streams). Each has:
//
//   - a Go struct per structure shape, with the model's member names as
//     JSON names; attribute values are attr.Value;
//   - a string type per enum shape, its values as constants, and
//     <Enum>Values in the model's order;
//   - Code… constants and ErrorCodes, the model's error shapes;
//   - Operations, each operation's input, output and errors, and Shapes,
//     the constraint table indexed by ShapeID.
//
// Regenerate after changing model/ or the generator:
//
//	go generate ./runtime/ddblocal/wire
//
// TestGeneratedUpToDate (internal/wiregen) fails when the checked-in files
// differ from what the generator writes.
package wire

//go:generate go run ./internal/wiregen -model model/dynamodb-2012-08-10.json.gz -pkg ddb -out ddb/model_gen.go
//go:generate go run ./internal/wiregen -model model/dynamodbstreams-2012-08-10.json.gz -pkg streams -out streams/model_gen.go
