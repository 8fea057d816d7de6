package ddblocal

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"syscall"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
)

// Client returns a DynamoDB client wired to this engine in process: its
// HTTP client calls Handler directly, without sockets. It uses the
// engine's Options.Region and static credentials; optFns may change
// anything, the retryer included (a region set there names the tables it
// creates, as the region of any signed request does).
func (e *Engine) Client(optFns ...func(*dynamodb.Options)) *dynamodb.Client {
	opts := dynamodb.Options{
		Region:       e.opts.Region,
		BaseEndpoint: aws.String("http://ddblocal.invalid"),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "ddblocal", SecretAccessKey: "ddblocal", Source: "ddblocal"}, nil
		}),
		HTTPClient: &http.Client{Transport: e.RoundTripper()},
	}
	return dynamodb.New(opts, optFns...)
}

// RoundTripper returns an http.RoundTripper that serves every request with
// Handler in the calling goroutine.
func (e *Engine) RoundTripper() http.RoundTripper { return roundTripper{h: e.Handler()} }

type roundTripper struct{ h http.Handler }

// errConnectionReset is what a client sees when "apply, then lose the
// response" resets the connection; the SDK retries it as it would a real
// reset.
var errConnectionReset = &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}

func (rt roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	rec := &recorder{header: make(http.Header, 4), status: http.StatusOK}
	rt.h.ServeHTTP(rec, req)
	if req.Body != nil {
		_ = req.Body.Close()
	}
	if rec.dropped {
		return nil, errConnectionReset
	}
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	return &http.Response{
		Status:        http.StatusText(rec.status),
		StatusCode:    rec.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        rec.header,
		ContentLength: int64(len(rec.body)),
		Body:          (*recordedBody)(rec), // reads what the handler wrote
		Request:       req,
	}, nil
}

// recorder is a minimal http.ResponseWriter for in-process calls. The
// engine's JSON responses are handed over without a copy (adopt): the
// response body reads the encoder's pooled buffer, and closing the body
// gives the buffer back to the pool.
type recorder struct {
	header  http.Header
	status  int
	wrote   bool
	body    []byte
	read    int
	pooled  *[]byte // the pool's buffer body is, until the body is closed
	dropped bool
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if !r.wrote {
		r.status, r.wrote = status, true
	}
}

func (r *recorder) Write(p []byte) (int, error) {
	r.wrote = true
	r.body = append(r.body, p...)
	return len(p), nil
}

// adopt takes body, held in the pool's buffer bp, as the whole response
// body instead of copying it. It reports false, taking nothing, once
// anything was written.
func (r *recorder) adopt(status int, body []byte, bp *[]byte) bool {
	if r.wrote || r.body != nil {
		return false
	}
	r.status, r.wrote = status, true
	r.body, r.pooled = body, bp
	return true
}

func (r *recorder) drop() { r.dropped = true }

// recordedBody is a recorder as the response body, saving a reader per
// call.
type recordedBody recorder

func (b *recordedBody) Read(p []byte) (int, error) {
	if b.read >= len(b.body) {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	n := copy(p, b.body[b.read:])
	b.read += n
	return n, nil
}

// Close ends the body: later reads see its end, and an adopted buffer goes
// back to the pool.
func (b *recordedBody) Close() error {
	if bp := b.pooled; bp != nil && cap(b.body) <= maxPooled {
		*bp = b.body[:0]
		respPool.Put(bp)
	}
	b.body, b.read, b.pooled = nil, 0, nil
	return nil
}

// IsConnectionReset reports whether err is the in-process connection reset
// injected by a lost-response fault.
func IsConnectionReset(err error) bool { return errors.Is(err, syscall.ECONNRESET) }

// StreamsClient returns a DynamoDB Streams client wired to this engine in
// process, like Client.
func (e *Engine) StreamsClient(optFns ...func(*dynamodbstreams.Options)) *dynamodbstreams.Client {
	opts := dynamodbstreams.Options{
		Region:       e.opts.Region,
		BaseEndpoint: aws.String("http://ddblocal.invalid"),
		Credentials:  localCredentials,
		HTTPClient:   &http.Client{Transport: e.RoundTripper()},
	}
	return dynamodbstreams.New(opts, optFns...)
}

var localCredentials = aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
	return aws.Credentials{AccessKeyID: "ddblocal", SecretAccessKey: "ddblocal", Source: "ddblocal"}, nil
})
