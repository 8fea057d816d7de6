package httpapi_test

import (
	"context"
	"fmt"
	"io"

	"github.com/aws/aws-lambda-go/events"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/httpapi"
	"github.com/oncetable/oncetable/runtime/schema/provision"
)

func ExampleAPI_Handle() {
	eng := ddblocal.New()
	defer eng.Close()
	ctx := context.Background()
	if err := provision.EnsureTable(ctx, eng.Client(), "example"); err != nil {
		panic(err)
	}
	api := httpapi.New(eng.Client(), httpapi.Config{Table: "example", Log: io.Discard})

	req := events.APIGatewayV2HTTPRequest{
		RawPath: "/users",
		Headers: map[string]string{"content-type": "application/json"},
		Body:    `{"userId":"alice","name":"Alice","email":"alice@example.com"}`,
		RequestContext: events.APIGatewayV2HTTPRequestContext{
			HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: "POST"},
			// What API Gateway's JWT authorizer passes on for a back-office token.
			Authorizer: &events.APIGatewayV2HTTPRequestContextAuthorizerDescription{JWT: &events.APIGatewayV2HTTPRequestContextAuthorizerJWTDescription{
				Claims: map[string]string{"iss": "https://idp.example.com", "sub": "ops-1", "scope": "payments/operator"}}},
		},
	}
	resp, _ := api.Handle(ctx, req)
	fmt.Println(resp.StatusCode)

	resp, _ = api.Handle(ctx, req)
	fmt.Println(resp.StatusCode, resp.Headers["Content-Type"])
	// Output:
	// 201
	// 409 application/problem+json
}
