package ddblocal

import (
	"context"
	"net/http"
	"strings"
)

// A request's region is the one its SigV4 signature is scoped to
// (Authorization: AWS4-HMAC-SHA256 Credential=AKID/date/region/service/
// aws4_request; AWS General Reference, "Elements of an AWS API request
// signature"). The ARNs the engine makes for it (TableArn, and the index
// and stream ARNs built on it) name that region, as they would in
// DynamoDB. Unsigned requests, and requests in process without a region,
// use Options.Region.

type regionKey struct{}

// withRequestRegion returns ctx carrying the region of r's signature when
// it has one other than the engine's default; ctx unchanged otherwise.
func (e *Engine) withRequestRegion(ctx context.Context, r *http.Request) context.Context {
	region := signedRegion(r.Header.Get("Authorization"))
	if region == "" || region == e.opts.Region {
		return ctx
	}
	return context.WithValue(ctx, regionKey{}, region)
}

// signedRegion extracts the region of a SigV4 credential scope, or "".
func signedRegion(auth string) string {
	_, scope, ok := strings.Cut(auth, "Credential=")
	if !ok {
		return ""
	}
	scope, _, _ = strings.Cut(scope, ",")
	// AKID/date/region/service/aws4_request, cut without a slice: this
	// runs on every signed request.
	_, rest, ok1 := strings.Cut(strings.TrimSpace(scope), "/") // the key id
	_, rest, ok2 := strings.Cut(rest, "/")                     // the date
	region, rest, ok3 := strings.Cut(rest, "/")
	_, term, ok4 := strings.Cut(rest, "/") // the service
	if !ok1 || !ok2 || !ok3 || !ok4 || term != "aws4_request" || !validRegion(region) {
		return ""
	}
	return region
}

// validRegion accepts region names as AWS spells them (us-east-1,
// cn-north-1, us-gov-west-1): lower-case letters, digits and dashes.
func validRegion(s string) bool {
	if s == "" || len(s) > 32 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// region is the region of the request ctx belongs to.
func (e *Engine) region(ctx context.Context) string {
	if r, ok := ctx.Value(regionKey{}).(string); ok {
		return r
	}
	return e.opts.Region
}
