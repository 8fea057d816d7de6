package dbtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/schema/provision"
)

// EndpointEnv names the environment variable of an external endpoint.
const EndpointEnv = "DYNAMODB_ENDPOINT"

// Env is one test's database.
type Env struct {
	Client *dynamodb.Client
	Table  string
	// Engine is the embedded engine, or nil against DYNAMODB_ENDPOINT
	// (tests that inject faults skip then).
	Engine   *ddblocal.Engine
	Requests *Counter
	Clock    *Clock
}

// Clock is a settable clock shared by the runtime and the embedded engine.
type Clock struct {
	mu     sync.Mutex
	offset time.Duration
}

// Now is the real time plus the offset.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset)
}

// Advance moves the clock forward.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.offset += d
	c.mu.Unlock()
}

// Counter counts requests sent to DynamoDB, each SDK attempt separately.
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
	for k, v := range c.ops {
		out[k] = v
	}
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

var unsafe = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// New creates a table for t and removes it (or the engine) when t ends.
func New(t testing.TB, engineOpts ...func(*ddblocal.Options)) *Env {
	t.Helper()
	return NewFor(t, schema.Default(), engineOpts...)
}

// NewFor is [New] with a table laid out by sch (its indexes, such as the
// order indexes of sch.Orders).
func NewFor(t testing.TB, sch schema.Schema, engineOpts ...func(*ddblocal.Options)) *Env {
	t.Helper()
	env := &Env{Requests: &Counter{}, Clock: &Clock{}}
	var suffix [4]byte
	rand.Read(suffix[:])
	name := unsafe.ReplaceAllString(t.Name(), "_")
	if len(name) > 200 {
		name = name[:200]
	}
	env.Table = name + "-" + hex.EncodeToString(suffix[:])
	count := func(o *dynamodb.Options) { o.APIOptions = append(o.APIOptions, env.Requests.Middleware) }
	if ep := os.Getenv(EndpointEnv); ep != "" {
		env.Client = dynamodb.New(dynamodb.Options{
			Region:       envOr("AWS_REGION", "us-east-1"),
			BaseEndpoint: aws.String(ep),
			// Works around a smithy-go request-body race that a very fast
			// local server triggers on large responses; harmless elsewhere.
			HTTPClient: ddblocal.HTTPClient(),
			Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
				return aws.Credentials{AccessKeyID: envOr("AWS_ACCESS_KEY_ID", "local"), SecretAccessKey: envOr("AWS_SECRET_ACCESS_KEY", "local"),
					SessionToken: os.Getenv("AWS_SESSION_TOKEN")}, nil
			}),
		}, count)
	} else {
		opts := append([]func(*ddblocal.Options){func(o *ddblocal.Options) { o.Clock = env.Clock.Now }}, engineOpts...)
		env.Engine = ddblocal.New(opts...)
		t.Cleanup(func() { env.Engine.Close() })
		env.Client = env.Engine.Client(count)
	}
	ctx := context.Background()
	if err := provision.EnsureTableFor(ctx, env.Client, env.Table, sch); err != nil {
		t.Fatalf("create table %s: %v", env.Table, err)
	}
	if env.Engine == nil {
		t.Cleanup(func() {
			env.Client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(env.Table)})
		})
	}
	env.Requests.Reset()
	return env
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// CreateKeyedTable creates an on-demand table keyed by the string
// attributes pk (HASH) and sk (RANGE), failing t on error.
func CreateKeyedTable(t testing.TB, db *dynamodb.Client, table, pk, sk string) {
	t.Helper()
	_, err := db.CreateTable(context.Background(), &dynamodb.CreateTableInput{TableName: aws.String(table), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String(pk), AttributeType: types.ScalarAttributeTypeS}, {AttributeName: aws.String(sk), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String(pk), KeyType: types.KeyTypeHash}, {AttributeName: aws.String(sk), KeyType: types.KeyTypeRange}}})
	if err != nil {
		t.Fatalf("create table %s: %v", table, err)
	}
}
