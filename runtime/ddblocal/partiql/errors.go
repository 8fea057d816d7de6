package partiql

// Error is a statement DynamoDB refuses, with DynamoDB's message. The
// engine sends it as a ValidationException.
type Error struct{ Message string }

func (e *Error) Error() string { return e.Message }

func validation(msg string) *Error { return &Error{Message: msg} }

// syntax is DynamoDB's error for a statement it cannot parse.
func syntax(detail string) *Error {
	return &Error{Message: "Statement wasn't well formed, can't be processed: " + detail}
}
