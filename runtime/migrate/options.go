package migrate

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/oncetable/oncetable/runtime/retry"
	"github.com/oncetable/oncetable/runtime/schema"
)

// API is the part of the DynamoDB client the toolkit uses.
type API interface {
	GetItem(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	PutItem(context.Context, *dynamodb.PutItemInput, ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	UpdateItem(context.Context, *dynamodb.UpdateItemInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	DeleteItem(context.Context, *dynamodb.DeleteItemInput, ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error)
	Scan(context.Context, *dynamodb.ScanInput, ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error)
	TransactWriteItems(context.Context, *dynamodb.TransactWriteItemsInput, ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error)
}

// Options tune a [Migrator]. Each zero field takes the default noted.
type Options struct {
	// Schema names the key attributes; default schema.Default().
	Schema schema.Schema
	// VersionAttribute holds an item's shape version; default "schemaVersion".
	VersionAttribute string
	// Holder names this migrator in the lease; default host:pid.
	Holder string
	// LeaseTTL is how long the lease lasts unrenewed; default 30s.
	LeaseTTL time.Duration
	// Segments is the parallel Scan's TotalSegments; default 4.
	Segments int
	// Budget is the capacity units per second the sweeps may consume
	// (reads and writes together, as ReturnConsumedCapacity reports them);
	// default 100.
	Budget float64
	// PageSize is the Scan Limit; default 100.
	PageSize int32
	// Retry bounds the retries of throttled and failed calls; default
	// 8 attempts, 20ms doubling to 2s.
	Retry retry.Policy
	// MirrorGrace is how long the mirror phase must last before backfill,
	// to let writers deployed without the fence drain; default 0.
	MirrorGrace time.Duration
	// Sample is the share of items verify checks, in (0, 1]; default 1.
	Sample float64
	// Clock returns the time; default time.Now.
	Clock func() time.Time
	// Progress, if set, is called after each Scan page of a sweep.
	Progress func(Progress)
}

// Progress is a sweep's running total, reported after each page.
type Progress struct {
	Job      string
	Segment  int
	Report   Report
	Elapsed  time.Duration
	Segments int
	Finished int // segments done
}

// DefaultVersionAttribute is Options.VersionAttribute's default.
const DefaultVersionAttribute = "schemaVersion"

func (o Options) withDefaults() Options {
	o.Schema = o.Schema.WithDefaults()
	if o.VersionAttribute == "" {
		o.VersionAttribute = DefaultVersionAttribute
	}
	if o.Holder == "" {
		host, _ := os.Hostname()
		o.Holder = fmt.Sprintf("%s:%d", host, os.Getpid())
	}
	if o.LeaseTTL <= 0 {
		o.LeaseTTL = 30 * time.Second
	}
	if o.Segments <= 0 {
		o.Segments = 4
	}
	if o.Budget <= 0 {
		o.Budget = 100
	}
	if o.PageSize <= 0 {
		o.PageSize = 100
	}
	if o.Retry.MaxAttempts == 0 {
		o.Retry = retry.Policy{MaxAttempts: 8, Base: 20 * time.Millisecond, Cap: 2 * time.Second, OnRetry: o.Retry.OnRetry}
	}
	if o.Sample <= 0 || o.Sample > 1 {
		o.Sample = 1
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	return o
}
