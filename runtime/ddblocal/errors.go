package ddblocal

import (
	"fmt"
	"net/http"

	"github.com/oncetable/oncetable/runtime/ddblocal/wire/ddb"
	"github.com/oncetable/oncetable/runtime/ddblocal/wire/streams"
)

// Error codes the engine returns, named as DynamoDB names them: those of
// the API model come from it (wire/ddb, wire/streams); the JSON protocol's
// own (validation, serialization, unknown operation) are common to every
// AWS service and in no service's model.
const (
	CodeValidation                    = "ValidationException"
	CodeSerialization                 = "SerializationException"
	CodeUnknownOperation              = "UnknownOperationException"
	CodeResourceNotFound              = ddb.CodeResourceNotFound
	CodeResourceInUse                 = ddb.CodeResourceInUse
	CodeConditionalCheckFailed        = ddb.CodeConditionalCheckFailed
	CodeTransactionCanceled           = ddb.CodeTransactionCanceled
	CodeTransactionConflict           = ddb.CodeTransactionConflict
	CodeTransactionInProgress         = ddb.CodeTransactionInProgress
	CodeIdempotentParameterMismatch   = ddb.CodeIdempotentParameterMismatch
	CodeProvisionedThroughputExceeded = ddb.CodeProvisionedThroughputExceeded
	CodeThrottling                    = ddb.CodeThrottling
	CodeLimitExceeded                 = ddb.CodeLimitExceeded
	CodeInternalServerError           = ddb.CodeInternalServerError
	CodeExpiredIterator               = streams.CodeExpiredIterator
	CodeTrimmedDataAccess             = streams.CodeTrimmedDataAccess
)

// errorTypePrefix qualifies every error code in the wire __type field.
const errorTypePrefix = "com.amazonaws.dynamodb.v20120810#"

// APIError is an error the engine reports to the client as a DynamoDB error
// body. Handlers return it; the protocol layer encodes it.
type APIError struct {
	Code    string
	Message string
	Status  int
	// Extra carries additional top-level fields of the error body, such as
	// Item on a ConditionalCheckFailedException or CancellationReasons on a
	// TransactionCanceledException.
	Extra map[string]any
	// Cause is the error behind an InternalServerError (a failed commit to
	// the store), for errors.Is and errors.As; it is not sent.
	Cause error
}

func (e *APIError) Error() string { return e.Code + ": " + e.Message }

// Unwrap returns Cause.
func (e *APIError) Unwrap() error { return e.Cause }

func newError(code, format string, args ...any) *APIError {
	status := http.StatusBadRequest
	if code == CodeInternalServerError {
		status = http.StatusInternalServerError
	}
	msg := format
	if len(args) > 0 {
		msg = fmt.Sprintf(format, args...)
	}
	return &APIError{Code: code, Message: msg, Status: status}
}

func validationf(format string, args ...any) *APIError {
	return newError(CodeValidation, format, args...)
}

func tableNotFound() *APIError {
	return newError(CodeResourceNotFound, "Requested resource not found")
}
