package idemhttp

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"

	"github.com/oncetable/oncetable/runtime/idempotency"
)

// LambdaHandler is the aws-lambda-go handler of an API Gateway HTTP API v2
// route.
type LambdaHandler func(ctx context.Context, req events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error)

// ErrNoCaller is what [LambdaCaller] reports for an unauthenticated event.
var ErrNoCaller = errors.New("idemhttp: the request carries no authorizer identity")

// LambdaCaller is the authenticated caller of an event: the IAM principal,
// the JWT issuer and subject, or a Lambda authorizer's "sub".
func LambdaCaller(req *events.APIGatewayV2HTTPRequest) (string, error) {
	if az := req.RequestContext.Authorizer; az != nil {
		if iam := az.IAM; iam != nil && iam.UserARN != "" {
			return "iam:" + iam.UserARN, nil
		}
		if iam := az.IAM; iam != nil && iam.CallerID != "" {
			return "iam:" + iam.AccountID + ":" + iam.CallerID, nil
		}
		if jwt := az.JWT; jwt != nil && jwt.Claims["sub"] != "" {
			return "jwt:" + jwt.Claims["iss"] + "|" + jwt.Claims["sub"], nil
		}
		if sub, ok := az.Lambda["sub"].(string); ok && sub != "" {
			return "lambda:" + sub, nil
		}
	}
	return "", ErrNoCaller
}

// TransactionalLambda is [Transactional] for API Gateway HTTP API v2
// events; the caller is [LambdaCaller] of the event (401 without one).
func TransactionalLambda(records *idempotency.Table, plan PlanFunc, opts ...func(*Options)) LambdaHandler {
	o := options(records, opts)
	broken := checked(records, o)
	return func(ctx context.Context, req events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		if broken != nil {
			return event(*broken), nil
		}
		c, rawKey, present, early := eventCall(o, &req)
		if early != nil {
			return event(*early), nil
		}
		return event(transact(ctx, records, o, plan, c, rawKey, present)), nil
	}
}

// ExternalLambda is [External] for API Gateway HTTP API v2 events: next
// runs at most once per key within the in-progress window, which by
// default ends at the invocation's deadline (the function's remaining
// time), and reads the key to forward with [ForwardKey]. Its answer (status,
// body, kept headers) is stored as Options.Store says; an error from next
// is answered 500 and releases the key.
func ExternalLambda(records *idempotency.Table, next LambdaHandler, opts ...func(*Options)) LambdaHandler {
	o := options(records, opts)
	broken := checked(records, o)
	return func(ctx context.Context, req events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		if broken != nil {
			return event(*broken), nil
		}
		c, rawKey, present, early := eventCall(o, &req)
		if early != nil {
			return event(*early), nil
		}
		p, early := begin(ctx, records, o, c, rawKey, present)
		if early != nil {
			return event(*early), nil
		}
		out, err := next(context.WithValue(ctx, forwardKey{}, p.ForwardKey()), req)
		if err != nil {
			out = events.APIGatewayV2HTTPResponse{StatusCode: http.StatusInternalServerError}
		}
		rec := &recorder{header: http.Header{}, status: out.StatusCode, wrote: true}
		for k, v := range out.Headers {
			rec.header.Set(k, v)
		}
		for k, vs := range out.MultiValueHeaders {
			for _, v := range vs {
				rec.header.Add(k, v)
			}
		}
		body := []byte(out.Body)
		if out.IsBase64Encoded {
			if body, err = base64.StdEncoding.DecodeString(out.Body); err != nil {
				body = []byte(out.Body)
			}
		}
		rec.body.Write(body)
		res := event(finish(ctx, records, o, p, rec))
		if res.StatusCode == out.StatusCode {
			res.Cookies = out.Cookies // the first answer only; cookies are not replayed
		}
		return res, nil
	}
}

func eventCall(o Options, req *events.APIGatewayV2HTTPRequest) (Call, string, bool, *answer) {
	who, err := LambdaCaller(req)
	if err != nil {
		a := problem(Problem{Status: http.StatusUnauthorized, Title: "Unauthenticated", Detail: err.Error()})
		return Call{}, "", false, &a
	}
	body := []byte(req.Body)
	if req.IsBase64Encoded {
		if body, err = base64.StdEncoding.DecodeString(req.Body); err != nil {
			a := problem(Problem{Status: http.StatusBadRequest, Title: "Unreadable body", Detail: err.Error()})
			return Call{}, "", false, &a
		}
	}
	if int64(len(body)) > o.MaxBody {
		a := problem(Problem{Status: http.StatusRequestEntityTooLarge, Title: "Body too large"})
		return Call{}, "", false, &a
	}
	raw, present := "", false
	for k, v := range req.Headers {
		if strings.EqualFold(k, KeyHeader) {
			raw, present = v, true
		}
	}
	return Call{Method: req.RequestContext.HTTP.Method, Path: req.RawPath, Query: req.RawQueryString, Body: body, Caller: who, Event: req}, raw, present, nil
}

func event(a answer) events.APIGatewayV2HTTPResponse {
	// Payload format 2.0 has no multi-value headers: several values of one
	// header are joined with commas (RFC 9110 section 5.3).
	h := map[string]string{}
	for k, vs := range a.headers() {
		h[k] = strings.Join(vs, ", ")
	}
	out := events.APIGatewayV2HTTPResponse{StatusCode: a.status, Headers: h, Body: string(a.body)}
	if !utf8.Valid(a.body) {
		out.Body, out.IsBase64Encoded = base64.StdEncoding.EncodeToString(a.body), true
	}
	return out
}
