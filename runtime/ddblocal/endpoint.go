package ddblocal

import (
	"context"
	"io"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
)

// EndpointClient returns a DynamoDB client for an engine served over HTTP
// at endpoint (such as "http://127.0.0.1:8000"), with region us-east-1,
// static credentials and HTTPClient. optFns may change anything.
func EndpointClient(endpoint string, optFns ...func(*dynamodb.Options)) *dynamodb.Client {
	opts := dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(endpoint),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "ddblocal", SecretAccessKey: "ddblocal", Source: "ddblocal"}, nil
		}),
		HTTPClient: HTTPClient(),
	}
	return dynamodb.New(opts, optFns...)
}

// HTTPClient returns an HTTP client for talking to the engine over TCP.
//
// A server as fast as this one exposes a race in the SDK: smithy-go closes
// the request body as soon as the response headers arrive, and its closed
// body's WriteTo returns io.EOF, which net/http (still checking the body for
// extra bytes) takes as a write error and closes the connection under the
// response being read — "use of closed network connection" on large
// responses. Hiding WriteTo from the transport makes the late read a plain
// EOF. Real DynamoDB answers too slowly to trigger it.
func HTTPClient() *http.Client {
	base := http.DefaultTransport.(*http.Transport).Clone()
	// Tests and benchmarks run many goroutines against one local engine.
	base.MaxIdleConnsPerHost = 64
	return &http.Client{Transport: bodyShield{base}}
}

type bodyShield struct{ next http.RoundTripper }

func (s bodyShield) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return s.next.RoundTrip(req)
	}
	r := req.Clone(req.Context())
	r.Body = readCloserOnly{req.Body}
	return s.next.RoundTrip(r)
}

// readCloserOnly exposes only Read and Close of a body.
type readCloserOnly struct{ io.ReadCloser }

// StreamsEndpointClient returns a DynamoDB Streams client for an engine
// served over HTTP at endpoint, like EndpointClient.
func StreamsEndpointClient(endpoint string, optFns ...func(*dynamodbstreams.Options)) *dynamodbstreams.Client {
	opts := dynamodbstreams.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(endpoint),
		Credentials:  localCredentials,
		HTTPClient:   HTTPClient(),
	}
	return dynamodbstreams.New(opts, optFns...)
}
