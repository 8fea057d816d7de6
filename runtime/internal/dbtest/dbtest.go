package dbtest

import (
	"context"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/ddbtest"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/schema/provision"
)

// EndpointEnv names the environment variable of an external endpoint.
const EndpointEnv = ddbtest.EndpointEnv

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
type Counter = ddbtest.Counter

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
	name := unsafe.ReplaceAllString(t.Name(), "_")
	if len(name) > 200 {
		name = name[:200]
	}
	env.Table = ddbtest.TableName(name)
	opts := append([]func(*ddblocal.Options){func(o *ddblocal.Options) { o.Clock = env.Clock.Now }}, engineOpts...)
	env.Client, env.Engine = ddbtest.Client(t, opts, env.Requests.Option)
	if err := provision.EnsureTableFor(context.Background(), env.Client, env.Table, sch); err != nil {
		t.Fatalf("create table %s: %v", env.Table, err)
	}
	if env.Engine == nil {
		ddbtest.DeleteAfter(t, env.Client, env.Table)
	}
	env.Requests.Reset()
	return env
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
