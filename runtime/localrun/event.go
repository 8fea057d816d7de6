package localrun

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"

	"github.com/oncetable/oncetable/runtime/httpapi"
)

// CallerHeader names the local caller identity.
const CallerHeader = "X-Local-Caller"

// DefaultCaller is the identity of requests without CallerHeader.
const DefaultCaller = "local"

// LocalAccountID is the account in local ARNs.
const LocalAccountID = "000000000000"

// ScopesHeader carries a local caller's JWT scopes, space-separated as in a
// token's "scope" claim. Without it the caller is an IAM principal of
// LocalAccountID, which [OperatorAuth] makes an operator.
const ScopesHeader = "X-Local-Scopes"

// LocalIssuer is the "iss" claim of the JWTs Event makes for ScopesHeader.
const LocalIssuer = "https://local.oncetable.invalid"

// LocalOperators matches every local IAM principal.
const LocalOperators = "arn:aws:iam::" + LocalAccountID + ":user/*"

// OperatorAuth is a with the local IAM principals (requests without
// ScopesHeader) as operators: the runner's default, so that a curl without
// headers may call every route.
func OperatorAuth(a httpapi.Auth) httpapi.Auth {
	a.IAMOperators = append(slices.Clone(a.IAMOperators), LocalOperators)
	return a
}

// ErrBadScopes is returned for an X-Local-Scopes that is longer than 1024
// bytes or not printable ASCII.
var ErrBadScopes = errors.New("localrun: " + ScopesHeader + " must be at most 1024 printable ASCII characters (scopes separated by spaces)")

// Scopes returns the ScopesHeader of r and whether it was sent at all; an
// empty header is a token without scopes.
func Scopes(r *http.Request) (string, bool, error) {
	vals, ok := r.Header[http.CanonicalHeaderKey(ScopesHeader)]
	if !ok {
		return "", false, nil
	}
	s := strings.Join(vals, " ")
	if len(s) > 1024 {
		return "", true, ErrBadScopes
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return "", true, ErrBadScopes
		}
	}
	return s, true, nil
}

// ErrBadCaller is returned for an X-Local-Caller that is not 1..128
// printable ASCII characters.
var ErrBadCaller = errors.New("localrun: " + CallerHeader + " must be 1..128 printable ASCII characters")

// Caller returns the local identity of r.
func Caller(r *http.Request) (string, error) {
	c := r.Header.Get(CallerHeader)
	if c == "" {
		return DefaultCaller, nil
	}
	if len(c) > 128 {
		return "", ErrBadCaller
	}
	for i := 0; i < len(c); i++ {
		if c[i] <= 0x20 || c[i] > 0x7e {
			return "", ErrBadCaller
		}
	}
	return c, nil
}

// Event converts r, whose body has been read into body, into the API
// Gateway HTTP API v2 event Lambda would receive: behind a JWT authorizer
// with the claims sub=caller and scope=ScopesHeader when r has that header,
// else behind the IAM authorizer as the local principal caller.
func Event(r *http.Request, body []byte, caller string, now time.Time) events.APIGatewayV2HTTPRequest {
	headers := map[string]string{}
	var cookies []string
	for name, vals := range r.Header {
		lname := strings.ToLower(name)
		if lname == "cookie" {
			for _, v := range vals {
				for _, c := range strings.Split(v, ";") {
					if c = strings.TrimSpace(c); c != "" {
						cookies = append(cookies, c)
					}
				}
			}
			continue
		}
		headers[lname] = strings.Join(vals, ",")
	}
	if r.Host != "" {
		headers["host"] = r.Host
	}
	var query map[string]string
	if q := r.URL.Query(); len(q) > 0 {
		query = map[string]string{}
		for k, v := range q {
			query[k] = strings.Join(v, ",")
		}
	}
	ip, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		ip = r.RemoteAddr
	}
	ev := events.APIGatewayV2HTTPRequest{
		Version:               "2.0",
		RouteKey:              "$default",
		RawPath:               r.URL.EscapedPath(),
		RawQueryString:        r.URL.RawQuery,
		Cookies:               cookies,
		Headers:               headers,
		QueryStringParameters: query,
		RequestContext: events.APIGatewayV2HTTPRequestContext{
			RouteKey:     "$default",
			AccountID:    LocalAccountID,
			Stage:        "$default",
			RequestID:    requestID(),
			APIID:        "local",
			DomainName:   r.Host,
			DomainPrefix: strings.SplitN(r.Host, ".", 2)[0],
			Time:         now.UTC().Format("02/Jan/2006:15:04:05 -0700"),
			TimeEpoch:    now.UnixMilli(),
			HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{
				Method:    r.Method,
				Path:      r.URL.Path,
				Protocol:  r.Proto,
				SourceIP:  ip,
				UserAgent: r.UserAgent(),
			},
			Authorizer: authorizer(r, caller),
		},
	}
	if utf8.Valid(body) {
		ev.Body = string(body)
	} else {
		ev.Body, ev.IsBase64Encoded = base64.StdEncoding.EncodeToString(body), true
	}
	return ev
}

// authorizer is what API Gateway's JWT or IAM authorizer would pass on.
// Scopes that fail [Scopes] never reach here (Handler refuses them).
func authorizer(r *http.Request, caller string) *events.APIGatewayV2HTTPRequestContextAuthorizerDescription {
	if scopes, ok, err := Scopes(r); ok && err == nil {
		return &events.APIGatewayV2HTTPRequestContextAuthorizerDescription{JWT: &events.APIGatewayV2HTTPRequestContextAuthorizerJWTDescription{
			Claims: map[string]string{"iss": LocalIssuer, "sub": caller, "scope": scopes},
			Scopes: strings.Fields(scopes),
		}}
	}
	return &events.APIGatewayV2HTTPRequestContextAuthorizerDescription{
		IAM: &events.APIGatewayV2HTTPRequestContextAuthorizerIAMDescription{
			AccountID: LocalAccountID,
			CallerID:  caller,
			UserID:    caller,
			UserARN:   "arn:aws:iam::" + LocalAccountID + ":user/" + caller,
		},
	}
}

func requestID() string {
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// WriteResponse writes a Lambda response to w.
func WriteResponse(w http.ResponseWriter, resp events.APIGatewayV2HTTPResponse) {
	h := w.Header()
	for k, v := range resp.Headers {
		h.Set(k, v)
	}
	for k, vs := range resp.MultiValueHeaders {
		for _, v := range vs {
			h.Add(k, v)
		}
	}
	for _, c := range resp.Cookies {
		h.Add("Set-Cookie", c)
	}
	body := []byte(resp.Body)
	if resp.IsBase64Encoded {
		if b, err := base64.StdEncoding.DecodeString(resp.Body); err == nil {
			body = b
		}
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	status := resp.StatusCode
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	w.Write(body)
}

// Handler serves h over net/http. A declared Content-Length above the
// API's limit is answered 413 before the body is read, so a client that
// sent Expect: 100-continue gets no "100 Continue" and sends nothing;
// other bodies are read up to one byte past the limit, so the handler
// itself rejects oversized ones.
func Handler(h httpapi.HandlerFunc, now func() time.Time) http.Handler {
	if now == nil {
		now = time.Now
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		caller, err := Caller(r)
		if err != nil {
			writeProblem(w, http.StatusBadRequest, "bad-request", "Bad request", ErrBadCaller.Error())
			return
		}
		if _, _, err := Scopes(r); err != nil {
			writeProblem(w, http.StatusBadRequest, "bad-request", "Bad request", err.Error())
			return
		}
		if r.ContentLength > httpapi.MaxBodyBytes {
			// net/http closes the connection after this answer instead of
			// reading the rest of the body.
			p := httpapi.ProblemOf(httpapi.ErrBodyTooLarge)
			writeProblem(w, p.Status, strings.TrimPrefix(p.Type, httpapi.ProblemTypeBase), p.Title,
				fmt.Sprintf("Content-Length %d, at most %d bytes", r.ContentLength, httpapi.MaxBodyBytes))
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, httpapi.MaxBodyBytes+1))
		if err != nil {
			writeProblem(w, http.StatusBadRequest, "bad-request", "Bad request", "cannot read the request body: "+err.Error())
			return
		}
		resp, err := h(r.Context(), Event(r, body, caller, now()))
		if err != nil {
			writeProblem(w, http.StatusBadGateway, "internal", "Internal error", err.Error())
			return
		}
		WriteResponse(w, resp)
	})
}

func writeProblem(w http.ResponseWriter, status int, slug, title, detail string) {
	body, _ := json.Marshal(httpapi.Problem{Type: httpapi.ProblemTypeBase + slug, Title: title, Status: status, Detail: detail})
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}
