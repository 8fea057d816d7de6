package ddblocal

import (
	"bytes"
	"net/http"
)

// noOutput is returned by operations whose API model has no output
// members (TagResource, UntagResource): DynamoDB answers them with an
// empty body, not "{}".
type noOutput struct{}

// checkBodyIsObject refuses a body whose JSON value is not an object
// (null, a list, a string, a number), which DynamoDB's JSON protocol
// cannot read as an operation's input. An empty body stands for "{}".
func checkBodyIsObject(body []byte) *APIError {
	b := bytes.TrimLeft(body, " \t\r\n")
	if len(b) == 0 || b[0] == '{' {
		return nil
	}
	return newError(CodeSerialization, "Start of structure or map found where not expected")
}

// writeTooLarge answers a request body over maxRequestBytes as DynamoDB's
// endpoint does: 413 with no body.
func writeTooLarge(w http.ResponseWriter) {
	h := w.Header()
	h["Content-Length"] = []string{"0"}
	h["Connection"] = []string{"close"}
	w.WriteHeader(http.StatusRequestEntityTooLarge)
}

// writeHealth answers GET / as DynamoDB's regional endpoint does:
// 200 and "healthy: dynamodb.<region>.amazonaws.com " (with its trailing
// space), which load balancers and container wait strategies match.
func (e *Engine) writeHealth(w http.ResponseWriter, r *http.Request) {
	body := []byte("healthy: dynamodb." + e.region(e.withRequestRegion(r.Context(), r)) + ".amazonaws.com ")
	setBodyHeaders(w.Header(), body)
	w.Header().Del("Content-Type")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// corsMaxAge is how long, in seconds, a browser may cache a preflight
// answer; DynamoDB's endpoint answers 172800 (two days).
const corsMaxAge = "172800"

// allowOrigin applies CORS to a request that carries Origin, as DynamoDB's
// endpoint does for browser clients: every answer allows any origin, and a
// preflight (OPTIONS) is answered here, allowing the method and headers it
// asks for, with an empty body. It reports whether it answered.
func allowOrigin(w http.ResponseWriter, r *http.Request) bool {
	h := w.Header()
	h["Access-Control-Allow-Origin"] = []string{"*"}
	if r.Method != http.MethodOptions {
		return false
	}
	if v := r.Header.Get("Access-Control-Request-Headers"); v != "" {
		h["Access-Control-Allow-Headers"] = []string{v}
	}
	if v := r.Header.Get("Access-Control-Request-Method"); v != "" {
		h["Access-Control-Allow-Methods"] = []string{v}
	}
	h["Access-Control-Max-Age"] = []string{corsMaxAge}
	h["Content-Length"] = []string{"0"}
	w.WriteHeader(http.StatusOK)
	return true
}
