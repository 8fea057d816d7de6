package idempotency_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/ddbtest"
	"github.com/oncetable/oncetable/runtime/idempotency"
)

// custom are non-default names for every attribute of a record.
var custom = idempotency.Attributes{PartitionKey: "id", SortKey: "kind", TTL: "purge_at", EntityType: "type",
	Operation: "op", Fingerprint: "fp", Status: "code", Body: "result", Header: "hdrs", CreatedAt: "made",
	State: "st", LockedUntil: "busy_until", Owner: "holder"}

// clock is a settable clock for Options.Clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Set(t time.Time)     { c.mu.Lock(); c.t = t; c.mu.Unlock() }
func (c *clock) Add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// customTable is a table with non-default names on the engine, or on
// DYNAMODB_ENDPOINT when it is set, and its records under a clock.
func customTable(t *testing.T, clk *clock) (*dynamodb.Client, string, *idempotency.Table) {
	t.Helper()
	db, _ := ddbtest.Client(t, nil)
	name := ddbtest.TableName("limits")
	if err := idempotency.CreateTable(context.Background(), db, name, custom, time.Minute); err != nil {
		t.Fatal(err)
	}
	ddbtest.DeleteAfter(t, db, name)
	return db, name, idempotency.NewTable(db, name, func(o *idempotency.Options) {
		o.Attributes = custom
		if clk != nil {
			o.Clock = clk.Now
		}
	})
}

func count(t *testing.T, db *dynamodb.Client, table string) int {
	t.Helper()
	out, err := db.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	return len(out.Items)
}

// TestRetryAtExactlyUntil: InProgressError.Until is the first moment a
// retry can succeed. A duplicate one nanosecond before it is refused with
// the same Until; at exactly Until it claims the key.
func TestRetryAtExactlyUntil(t *testing.T) {
	clk := &clock{t: time.Unix(1_900_000_000, 250_000_000)}
	_, _, records := customTable(t, clk)
	ctx := context.Background()
	req := idempotency.Request{Scope: idempotency.Scope{Caller: "c", Operation: "ship"}, Key: "order-1", Fingerprint: "fp"}
	_, p, err := records.Begin(ctx, req, 30*time.Second)
	if err != nil || p == nil {
		t.Fatalf("Begin: %v, %v", p, err)
	}
	clk.Add(10 * time.Second)
	_, _, err = records.Begin(ctx, req, 30*time.Second)
	var ip *idempotency.InProgressError
	if !errors.As(err, &ip) {
		t.Fatalf("duplicate while pending: %v, want *InProgressError", err)
	}
	if ip.Until != p.Until() || ip.Until.Before(time.Unix(1_900_000_030, 250_000_000)) {
		t.Fatalf("Until = %v, pending until %v; want at least the whole window", ip.Until, p.Until())
	}
	clk.Set(ip.Until.Add(-time.Nanosecond))
	if _, _, err := records.Begin(ctx, req, 30*time.Second); !errors.As(err, &ip) {
		t.Fatalf("1ns before Until: %v, want *InProgressError", err)
	}
	clk.Set(ip.Until)
	_, p2, err := records.Begin(ctx, req, 30*time.Second)
	if err != nil || p2 == nil {
		t.Fatalf("retry at exactly Until: %v, %v; want the key", p2, err)
	}
	if _, err := p.Complete(ctx, &idempotency.Effect{Status: 200}); !errors.Is(err, idempotency.ErrLockLost) {
		t.Errorf("the first holder completing after losing the key: %v, want ErrLockLost", err)
	}
}

// TestResultTooLarge: an answer whose record would exceed 400 KB is a
// *ResultTooLargeError naming the size and the limit, in both modes, and
// nothing is left behind: no effect and no record (transactional), no
// pending record (external: the key is free at once).
func TestResultTooLarge(t *testing.T) {
	db, name, records := customTable(t, nil)
	ctx := context.Background()
	big := json.RawMessage(`"` + strings.Repeat("x", idempotency.MaxItemSize) + `"`)
	req := idempotency.Request{Scope: idempotency.Scope{Caller: "c", Operation: "label"}, Key: "order-1", Fingerprint: "fp"}

	_, err := records.Do(ctx, req, func(time.Time) (*idempotency.Effect, error) {
		eff := &idempotency.Effect{Status: 200, Body: big}
		eff.Items.Add("mark", types.TransactWriteItem{Put: &types.Put{TableName: aws.String(name), Item: map[string]types.AttributeValue{
			"id": &types.AttributeValueMemberS{Value: "o"}, "kind": &types.AttributeValueMemberS{Value: "o"}}}})
		return eff, nil
	})
	var tl *idempotency.ResultTooLargeError
	if !errors.As(err, &tl) || tl.Limit != 400*1024 || tl.Size <= tl.Limit {
		t.Fatalf("transactional: %v, want *ResultTooLargeError over 409600", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "409600 bytes") || !strings.Contains(msg, "item size limit") {
		t.Errorf("message %q names neither the limit nor the cause", msg)
	}
	var ce *idempotency.ConfigError
	if errors.As(err, &ce) {
		t.Errorf("a size problem reported as a ConfigError: %v", err)
	}
	if n := count(t, db, name); n != 0 {
		t.Fatalf("transactional: %d items written, want none", n)
	}

	_, err = records.Run(ctx, req, func(context.Context, string) (*idempotency.Effect, error) {
		return &idempotency.Effect{Status: 200, Body: big}, nil
	})
	if !errors.As(err, &tl) || tl.Size <= tl.Limit {
		t.Fatalf("external: %v, want *ResultTooLargeError", err)
	}
	if n := count(t, db, name); n != 0 {
		t.Fatalf("external: %d items left (a pending record?), want none", n)
	}
	// The key is free at once: a smaller answer runs and is stored.
	resp, err := records.Run(ctx, req, func(context.Context, string) (*idempotency.Effect, error) {
		return &idempotency.Effect{Status: 200, Body: json.RawMessage(`{"s3":"labels/order-1"}`)}, nil
	})
	if err != nil || resp.Replayed {
		t.Fatalf("after the refusal: %+v, %v", resp, err)
	}
}

// TestConfigErrorOnlyForConfiguration: a table whose key names differ from
// the options is a *ConfigError; an effect's own invalid item is not.
func TestConfigErrorOnlyForConfiguration(t *testing.T) {
	db, name, records := customTable(t, nil)
	ctx := context.Background()
	req := idempotency.Request{Scope: idempotency.Scope{Caller: "c", Operation: "x"}, Key: "k", Fingerprint: "fp"}
	_, err := records.Do(ctx, req, func(time.Time) (*idempotency.Effect, error) {
		eff := &idempotency.Effect{Status: 200}
		// An empty string set is invalid in DynamoDB: the effect's fault.
		eff.Items.Add("bad", types.TransactWriteItem{Put: &types.Put{TableName: aws.String(name), Item: map[string]types.AttributeValue{
			"id": &types.AttributeValueMemberS{Value: "o"}, "kind": &types.AttributeValueMemberS{Value: "o"},
			"tags": &types.AttributeValueMemberSS{Value: []string{}}}}})
		return eff, nil
	})
	var ce *idempotency.ConfigError
	if err == nil || errors.As(err, &ce) {
		t.Fatalf("an invalid effect item: %v, want DynamoDB's error, not a ConfigError", err)
	}
	wrong := idempotency.NewTable(db, name) // default names: PK/SK, not id/kind
	_, err = wrong.Do(ctx, req, func(time.Time) (*idempotency.Effect, error) { return &idempotency.Effect{Status: 200}, nil })
	if !errors.As(err, &ce) || !strings.Contains(ce.Option, "PartitionKey") {
		t.Fatalf("options naming other keys: %v, want a ConfigError naming PartitionKey", err)
	}
}

// TestLimitsOverAnEndpoint runs the tests above against a DynamoDB endpoint
// over HTTP (DYNAMODB_ENDPOINT): the embedded engine behind an httptest
// server, unless DYNAMODB_ENDPOINT already names one.
func TestLimitsOverAnEndpoint(t *testing.T) {
	if os.Getenv(ddbtest.EndpointEnv) != "" {
		t.Skip("the tests already run on " + os.Getenv(ddbtest.EndpointEnv))
	}
	eng := ddblocal.New()
	t.Cleanup(func() { eng.Close() })
	srv := httptest.NewServer(eng.Handler())
	t.Cleanup(srv.Close)
	t.Setenv(ddbtest.EndpointEnv, srv.URL)
	t.Run("RetryAtExactlyUntil", TestRetryAtExactlyUntil)
	t.Run("ResultTooLarge", TestResultTooLarge)
	t.Run("ConfigErrorOnlyForConfiguration", TestConfigErrorOnlyForConfiguration)
}
