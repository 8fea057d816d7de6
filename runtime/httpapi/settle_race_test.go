package httpapi_test

import (
	"context"
	"io"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/oncetable/oncetable/runtime/httpapi"
	"github.com/oncetable/oncetable/runtime/internal/dbtest"
)

func raceEvent(method, path, key, body string) events.APIGatewayV2HTTPRequest {
	h := map[string]string{}
	if body != "" {
		h["content-type"] = "application/json"
	}
	if key != "" {
		h["idempotency-key"] = key
	}
	return events.APIGatewayV2HTTPRequest{RawPath: path, Headers: h, Body: body, RequestContext: events.APIGatewayV2HTTPRequestContext{
		HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: method, Path: path},
		Authorizer: &events.APIGatewayV2HTTPRequestContextAuthorizerDescription{
			IAM: &events.APIGatewayV2HTTPRequestContextAuthorizerIAMDescription{UserARN: "arn:aws:iam::1:user/x"}}}}
}

type splitReadKey struct{}

// Found by the soak (docs/reports/soak.md): a settle retried while its first attempt
// is in flight reads the idempotency record (absent) and the order (paid by
// that very attempt) at different moments, because BatchGetItem is not one
// snapshot and may hand keys back as UnprocessedKeys. The retry must replay
// the stored 200, not answer 409 already-paid.
func TestSettleRetryRacingItsOwnFirstAttemptReplays(t *testing.T) {
	env := dbtest.New(t)
	var api *httpapi.API
	var fired atomic.Bool
	split := func(st *middleware.Stack) error {
		return st.Initialize.Add(middleware.InitializeMiddlewareFunc("splitRead", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			out, md, err := next.HandleInitialize(ctx, in)
			r, ok := out.Result.(*dynamodb.BatchGetItemOutput)
			if !ok || err != nil || ctx.Value(splitReadKey{}) == nil || !fired.CompareAndSwap(false, true) {
				return out, md, err
			}
			// DynamoDB may return any key unprocessed: hand the order back.
			for tbl, items := range r.Responses {
				var kept, unprocessed []map[string]types.AttributeValue
				for _, it := range items {
					if sk, _ := it["SK"].(*types.AttributeValueMemberS); sk != nil && sk.Value == "ORDER#o1" {
						unprocessed = append(unprocessed, map[string]types.AttributeValue{"PK": it["PK"], "SK": it["SK"]})
					} else {
						kept = append(kept, it)
					}
				}
				r.Responses[tbl] = kept
				if len(unprocessed) > 0 {
					consistent := true
					r.UnprocessedKeys = map[string]types.KeysAndAttributes{tbl: {Keys: unprocessed, ConsistentRead: &consistent}}
				}
			}
			// Meanwhile the first attempt, with the same key, commits.
			if first, _ := api.Handle(context.Background(), raceEvent("POST", "/orders/o1/settle", "k-settle", "")); first.StatusCode != 200 {
				t.Errorf("first attempt: got %d %s, want 200", first.StatusCode, first.Body)
			}
			return out, md, err
		}), middleware.Before)
	}
	db := dynamodb.New(env.Client.Options(), func(o *dynamodb.Options) { o.APIOptions = append(o.APIOptions, split) })
	api = httpapi.New(db, httpapi.Config{Table: env.Table, Log: io.Discard, Auth: httpapi.Auth{IAMOperators: []string{"arn:aws:iam::1:user/x"}}})
	for _, r := range []events.APIGatewayV2HTTPRequest{
		raceEvent("POST", "/users", "", `{"userId":"u1","name":"U","email":"u@example.com"}`),
		raceEvent("POST", "/users/u1/credits", "c1", `{"amount":5000,"currency":"EUR"}`),
		raceEvent("POST", "/users/u1/orders", "o1", `{"orderId":"o1","currency":"EUR","items":[{"productId":"p","quantity":1,"unitPrice":1000}]}`),
		raceEvent("POST", "/orders/o1/payments", "p1", `{"amount":1000,"currency":"EUR"}`),
	} {
		if resp, _ := api.Handle(context.Background(), r); resp.StatusCode != 201 {
			t.Fatalf("setup %s: got %d %s", r.RawPath, resp.StatusCode, resp.Body)
		}
	}
	retry, _ := api.Handle(context.WithValue(context.Background(), splitReadKey{}, true), raceEvent("POST", "/orders/o1/settle", "k-settle", ""))
	if !fired.Load() {
		t.Fatal("the split read never happened")
	}
	if retry.StatusCode != 200 || retry.Headers["Idempotent-Replayed"] != "true" {
		t.Errorf("retry with the key that paid the order: got %d %s; want 200 with Idempotent-Replayed: true", retry.StatusCode, retry.Body)
	}
	bal, _ := api.Handle(context.Background(), raceEvent("GET", "/users/u1/balance", "", ""))
	if want := `"balance":4000,"currency":"EUR","available":4000,"held":0}`; !strings.Contains(bal.Body, want) {
		t.Errorf("balance after one settle: got %s, want %s", bal.Body, want)
	}
}
