package attr

// ValidationError is a request the engine must reject with DynamoDB's
// ValidationException; Message carries DynamoDB's wording.
type ValidationError struct {
	Message string
}

func (e *ValidationError) Error() string { return e.Message }

// Invalidf returns a *ValidationError with a formatted message.
func Invalidf(format string, args ...any) error {
	return &ValidationError{Message: sprintf(format, args...)}
}
