package ddbtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"maps"
	"os"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"

	"github.com/oncetable/oncetable/runtime/ddblocal"
)

// EndpointEnv names the environment variable of an external endpoint.
const EndpointEnv = "DYNAMODB_ENDPOINT"

// Client is a DynamoDB client for t. With DYNAMODB_ENDPOINT set it is a
// client of that endpoint (region and credentials from AWS_REGION,
// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, by
// default us-east-1 and "local") and the engine is nil; otherwise it is a
// client of a new embedded engine made with engineOpts, closed when t ends.
// optFns apply to the client either way.
func Client(t testing.TB, engineOpts []func(*ddblocal.Options), optFns ...func(*dynamodb.Options)) (*dynamodb.Client, *ddblocal.Engine) {
	t.Helper()
	if ep := os.Getenv(EndpointEnv); ep != "" {
		return dynamodb.New(dynamodb.Options{
			Region:       envOr("AWS_REGION", "us-east-1"),
			BaseEndpoint: aws.String(ep),
			// Works around a smithy-go request-body race that a very fast
			// local server triggers on large responses; harmless elsewhere.
			HTTPClient: ddblocal.HTTPClient(),
			Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
				return aws.Credentials{AccessKeyID: envOr("AWS_ACCESS_KEY_ID", "local"), SecretAccessKey: envOr("AWS_SECRET_ACCESS_KEY", "local"),
					SessionToken: os.Getenv("AWS_SESSION_TOKEN")}, nil
			}),
		}, optFns...), nil
	}
	eng := ddblocal.New(engineOpts...)
	t.Cleanup(func() { eng.Close() })
	return eng.Client(optFns...), eng
}

// DeleteAfter deletes table when t ends, for a table on an external
// endpoint (an embedded engine's tables go with the engine).
func DeleteAfter(t testing.TB, db *dynamodb.Client, table string) {
	t.Cleanup(func() {
		db.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(table)})
	})
}

// TableName is prefix and 8 random hex digits, a name no other test uses.
func TableName(prefix string) string {
	var suffix [4]byte
	rand.Read(suffix[:])
	return prefix + "-" + hex.EncodeToString(suffix[:])
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// Counter counts requests sent to DynamoDB, each SDK attempt separately.
// The zero value is ready.
type Counter struct {
	mu  sync.Mutex
	ops map[string]int
}

// Count returns the requests of one operation ("TransactWriteItems").
func (c *Counter) Count(op string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ops[op]
}

// Total returns all requests since the last Reset.
func (c *Counter) Total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, v := range c.ops {
		n += v
	}
	return n
}

// Snapshot returns a copy of the per-operation counts.
func (c *Counter) Snapshot() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int, len(c.ops))
	maps.Copy(out, c.ops)
	return out
}

// Reset zeroes the counts.
func (c *Counter) Reset() {
	c.mu.Lock()
	c.ops = map[string]int{}
	c.mu.Unlock()
}

// Middleware registers the counter on a client's stack, after the retry
// step so every attempt counts.
func (c *Counter) Middleware(stack *middleware.Stack) error {
	return stack.Finalize.Add(middleware.FinalizeMiddlewareFunc("oncetableRequestCounter",
		func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
			op := awsmiddleware.GetOperationName(ctx)
			c.mu.Lock()
			if c.ops == nil {
				c.ops = map[string]int{}
			}
			c.ops[op]++
			c.mu.Unlock()
			return next.HandleFinalize(ctx, in)
		}), middleware.After)
}

// Option is the client option that registers c.
func (c *Counter) Option(o *dynamodb.Options) { o.APIOptions = append(o.APIOptions, c.Middleware) }
