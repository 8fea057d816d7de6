package expr

import (
	"fmt"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
)

// Error is an invalid expression found by a Parse function. Message is
// DynamoDB's wording without the "Invalid <Kind>: " prefix, which depends on
// the request parameter the expression came from; Bare marks messages that
// DynamoDB returns without that prefix.
type Error struct {
	Message string
	Bare    bool
}

func (e *Error) Error() string { return e.Message }

// Validation turns e into the engine's ValidationException for an expression
// given in the request parameter kind, such as "ConditionExpression".
func (e *Error) Validation(kind string) *attr.ValidationError {
	if e.Bare {
		return &attr.ValidationError{Message: e.Message}
	}
	return &attr.ValidationError{Message: "Invalid " + kind + ": " + e.Message}
}

func errorf(format string, args ...any) *Error {
	return &Error{Message: fmt.Sprintf(format, args...)}
}

func bareErrorf(format string, args ...any) *Error {
	return &Error{Message: fmt.Sprintf(format, args...), Bare: true}
}

// invalid returns a ValidationException the engine passes on unchanged, for
// problems found while evaluating against an item.
func invalid(msg string) error { return &attr.ValidationError{Message: msg} }

// Messages DynamoDB returns while applying an update to an item.
const (
	msgMissingOperand = "The provided expression refers to an attribute that does not exist in the item"
	msgWrongDataType  = "An operand in the update expression has an incorrect data type"
	msgInvalidPath    = "The document path provided in the update expression is invalid for update"
)
