// Package expr is the expression language of the embedded DynamoDB engine
// (runtime/ddblocal): condition and filter expressions, key conditions,
// update expressions and projections, with DynamoDB's validation and its
// error messages.
//
// # Compiling a request
//
// A request's expressions share one set of placeholders, so the engine hands
// them to Compile together. Compile parses each one, resolves #names and
// :values, and checks what DynamoDB checks before touching any item:
// syntax, reserved words used bare, function names and operand counts,
// operand types of literal values, overlapping update paths, undefined
// placeholders and placeholders nobody uses. Errors are
// *attr.ValidationError with DynamoDB's wording, ready for a
// ValidationException:
//
//	c, err := expr.Compile(expr.Input{
//		Condition: aws.String("attribute_not_exists(PK) OR #v < :v"),
//		Update:    aws.String("SET #v = :v, balance = balance - :amt"),
//		Names:     expr.Names{"#v": "version"},
//		Values:    expr.Values{":v": attr.Int(3), ":amt": attr.Int(10)},
//	})
//
// # Evaluating against an item
//
// The parsed expressions keep their placeholders; the evaluation methods take
// the request's Names and Values:
//
//	ok, err := c.Condition.Eval(old, c.Names, c.Values)          // ConditionCheckFailed when !ok
//	next, changed, err := c.Update.Apply(old, c.Names, c.Values) // old is not modified
//	updatedNew := expr.Project(next, changed)                    // ReturnValues UPDATED_NEW
//	view := c.Projection.Apply(next, c.Names)
//	keys, err := c.KeyCondition.Resolve(c.Names, c.Values, expr.KeySchema{...})
//
// Evaluation follows DynamoDB: a comparison with a missing attribute, or
// between values of different types, is false (and <> is true); numbers are
// exact decimals; SET's right-hand sides all read the item as it was before
// the update; DELETE of a set's last members removes the attribute.
// (*Update).Attributes lists the top-level attributes an update touches, so
// the engine can refuse updates to key attributes.
//
// # Parsing alone
//
// ParseCondition, ParseKeyCondition, ParseUpdate and ParseProjection parse
// one expression. Their errors are *Error, whose Validation method adds the
// "Invalid ConditionExpression: " style prefix for the parameter the text
// came from. Every parsed tree prints back with String, and the printed form
// parses to the same tree.
//
// It is not for application code, which builds expressions with the AWS
// SDK's feature/dynamodb/expression package and sends them to DynamoDB (or
// to this engine) over the wire.
package expr
