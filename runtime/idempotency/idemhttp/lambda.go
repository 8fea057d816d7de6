package idemhttp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/aws/aws-lambda-go/events"

	"github.com/oncetable/oncetable/runtime/idempotency"
)

// rawJSON keeps a handler's JSON body as it was written.
type rawJSON = json.RawMessage

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
	o := options(opts)
	return func(ctx context.Context, req events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		c, rawKey, present, early := eventCall(o, &req)
		if early != nil {
			return event(*early), nil
		}
		return event(transact(ctx, records, o, plan, c, rawKey, present)), nil
	}
}

// ExternalLambda is [External] for API Gateway HTTP API v2 events: next
// runs at most once per key within the in-progress window, reads the key
// to forward with [ForwardKey], and its answer is stored unless it is a
// 5xx, which releases the key.
func ExternalLambda(records *idempotency.Table, next LambdaHandler, opts ...func(*Options)) LambdaHandler {
	o := options(opts)
	return func(ctx context.Context, req events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		c, rawKey, present, early := eventCall(o, &req)
		if early != nil {
			return event(*early), nil
		}
		ireq, bad := prepare(o, c, rawKey, present)
		if bad != nil {
			return event(*bad), nil
		}
		resp, p, err := records.Begin(ctx, ireq, o.Window)
		if err != nil {
			return event(failure(o, err)), nil
		}
		if p == nil {
			return event(fromResponse(resp)), nil
		}
		out, err := next(context.WithValue(ctx, forwardKey{}, p.ForwardKey()), req)
		if err != nil {
			out = events.APIGatewayV2HTTPResponse{StatusCode: http.StatusInternalServerError}
		}
		rec := &recorder{header: http.Header{}, status: out.StatusCode, wrote: true}
		rec.body.WriteString(out.Body)
		return event(finish(ctx, o, p, rec)), nil
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
	return Call{Method: req.RequestContext.HTTP.Method, Path: req.RawPath, Body: body, Caller: who}, raw, present, nil
}

func event(a answer) events.APIGatewayV2HTTPResponse {
	h := map[string]string{"Content-Type": "application/json"}
	if a.problem {
		h["Content-Type"] = "application/problem+json"
	}
	if a.replayed {
		h[ReplayedHeader] = "true"
	}
	if a.retryAfter > 0 {
		h["Retry-After"] = retryAfterSeconds(a.retryAfter)
	}
	return events.APIGatewayV2HTTPResponse{StatusCode: a.status, Headers: h, Body: string(a.body)}
}
