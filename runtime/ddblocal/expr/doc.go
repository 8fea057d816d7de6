// Package expr is the expression language of the embedded DynamoDB engine
// (runtime/ddblocal): condition and filter expressions, key conditions,
// update expressions and projections, with DynamoDB's validation and its
// error messages.
//
// # Compiling a request
//
// A request's expressions share one set of placeholders, so the engine hands
// them to Compile together. Compile parses each one, resolves #names and
// :values, and checks what DynamoDB checks before it reads any item: syntax,
// reserved words used as bare names, function names and operand counts,
// operand types of :values, overlapping or conflicting update and projection
// paths, the limits (4 KB per expression, 300 operators, 100 IN operands,
// 32 path levels), undefined placeholders and placeholders no expression
// uses. Every error is an *attr.ValidationError carrying DynamoDB's
// wording, ready to be sent as a ValidationException:
//
//	c, err := expr.Compile(expr.Input{
//		Condition: aws.String("attribute_exists(PK) AND #bal >= :amt"),
//		Update:    aws.String("SET #bal = #bal - :amt ADD version :one"),
//		Names:     expr.Names{"#bal": "balance"},
//		Values:    expr.Values{":amt": attr.Int(30), ":one": attr.Int(1)},
//	})
//
// With Update "SET status = :s" instead, err would read
// "Invalid UpdateExpression: Attribute name is a reserved keyword; reserved
// keyword: status", since STATUS is one of DynamoDB's reserved words.
//
// A nil string in Input means the request parameter is absent; an empty map
// (what encoding/json makes of {}) is DynamoDB's "must not be empty" error.
//
// # Evaluating against an item
//
// A Compiled keeps the request's placeholders and evaluates against items:
//
//	ok, err := c.Check(current)          // ConditionExpression; false => ConditionalCheckFailed
//	ok, err = c.Match(item)              // FilterExpression
//	next, err := c.Apply(current)        // UpdateExpression; current is not modified, nil = no item
//	old := expr.ProjectPaths(current, c.UpdatedPaths()) // ReturnValues UPDATED_OLD
//	view := c.Project(item)              // ProjectionExpression
//	q, err := c.KeyCondition.Resolve(c.Names, c.Values, expr.KeySchema{
//		PartitionKey: "PK", PartitionType: attr.S, SortKey: "SK", SortType: attr.S})
//	// q.PartitionValue, and q.Sort.Match(sk) for each item of the partition
//
// A GSI's multi-attribute key lists its attributes in KeySchema.Partition
// and KeySchema.Sort; q.PartitionValues then holds every partition value
// and q.SortEqual the sort values fixed by equality before q.Sort's.
//
// Evaluation follows what DynamoDB does rather than what one might guess:
//
//   - a comparison with a missing attribute, or between different types, is
//     false, except <>, which is then true (even for two missing attributes);
//   - numbers compare and add as exact decimals (38 digits), sets compare
//     regardless of order, B orders by unsigned bytes;
//   - contains finds substrings of S and B, members of sets and elements of
//     lists; size counts characters, bytes, members or elements;
//   - every SET right-hand side reads the item as it was before the update,
//     and list positions in SET and REMOVE are those of the original list;
//     elements SET past a list's end are appended in index order;
//   - REMOVE of a missing attribute or list position does nothing, but a path
//     through a missing or mistyped parent is "The document path provided in
//     the update expression is invalid for update";
//   - ADD creates numbers and sets that are absent; DELETE of a set's last
//     members removes the attribute, since DynamoDB has no empty sets.
//
// (*Update).Attributes lists the top-level attributes an update touches, so
// the engine can refuse updates of key attributes.
//
// # Parsing alone
//
// ParseCondition, ParseKeyCondition, ParseUpdate and ParseProjection parse
// one expression into a tree (Cond, Operand, Path, Update, Projection).
// Their errors are *Error, whose Validation method adds the "Invalid
// ConditionExpression: " style prefix of the parameter the text came from.
// Every tree prints back with String, and the printed text parses to the
// same tree; fuzz tests hold the parsers to that.
//
// # What it is not for
//
// Application code does not use this package: it builds expressions with the
// AWS SDK's feature/dynamodb/expression package and sends them over the wire
// to DynamoDB or to this engine. Nor does expr know about tables: key
// attributes, index types and item size limits are the engine's business.
package expr
