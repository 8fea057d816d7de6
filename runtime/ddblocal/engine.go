package ddblocal

import (
	"context"
	"fmt"
	"log"
	"maps"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Options configures an Engine. The zero value is a usable in-memory engine.
type Options struct {
	// Clock returns the current time. It decides when TTL items expire,
	// how long a ClientRequestToken is remembered, and when stream records
	// (kept 24 hours) and shard iterators (15 minutes) expire.
	// Default: time.Now.
	Clock func() time.Time

	// Dir, when not empty, keeps tables in a bbolt file (ddblocal.db) in
	// this directory so that data survives a restart. Default: "" (memory).
	Dir string

	// TTLSweepInterval is how often the background sweeper deletes expired
	// items. Zero means the default of one second; a negative value turns
	// the sweeper off (SweepTTL still works). The sweeper's goroutine starts
	// when a table first enables TTL.
	TTLSweepInterval time.Duration

	// OnSweepError receives the error of a background TTL sweep that could
	// not save its deletions (the items stay, and the next sweep tries
	// again). Default: the standard logger prints it.
	OnSweepError func(error)

	// Durable makes every commit reach the disk (fsync) before it is
	// acknowledged, so that acknowledged writes survive a machine crash
	// or power loss. Default: false, commits reach the operating system
	// only, which a killed process never loses (see doc.go, Durability).
	Durable bool

	// PITRHistoryBytes bounds the point-in-time recovery history each
	// table keeps (the rows its writes replaced, within its recovery
	// period): when a table's history grows past it, the oldest commits
	// are dropped and EarliestRestorableDateTime moves forward to the
	// newest of them. Default: 256 MiB per table.
	PITRHistoryBytes int64

	// PITRLag is how far LatestRestorableDateTime stays behind the
	// current time: DynamoDB says typically 5 minutes, the default. A
	// negative value means none (restore up to the current time), for
	// drills that restore right after their traffic.
	PITRLag time.Duration

	// Faults applies to every table that has no faults of its own.
	// Default: none.
	Faults Faults

	// Region appears in table ARNs. Default: "us-east-1", or the first
	// of Regions.
	Region string

	// Regions, when set, makes the engine serve each of these Regions as
	// DynamoDB's Regions are served: separately, with tables of their own,
	// replicated between Regions only as global tables. Handler routes
	// each request to the Region of its SigV4 credential scope, and
	// Engine.Region returns a Region's engine (whose Client signs for it).
	// The engine Open returns is Region's; Close closes them all. With
	// Dir, each Region keeps its data in Dir/<Region>. Default: none (one
	// Region, Region, which every request reaches whatever it is signed
	// for).
	Regions []string

	// ManualReplication, with Regions, starts no background replication:
	// replicated writes are applied only by Replication.Deliver and
	// Replication.WaitQuiet, so that a test with a fake Clock decides every
	// interleaving. Default: false (a goroutine applies each replicated
	// write when its lag has passed).
	ManualReplication bool

	// AccountID appears in table ARNs. Default: "000000000000".
	AccountID string

	// ItemCollectionSizeLimit is the largest item collection (the items
	// of one partition key value with their local secondary index rows) a
	// table with a local secondary index may hold, in bytes. Default: 10 GB,
	// as in DynamoDB; tests set less to reach the limit.
	ItemCollectionSizeLimit int64

	// IdempotencyWindow is how long a ClientRequestToken is remembered.
	// Default: 10 minutes, as in DynamoDB.
	IdempotencyWindow time.Duration

	// S3Dir stands for S3 in ExportTableToPointInTime and ImportTable: the
	// bucket b is the directory S3Dir/b, an object key a path below it.
	// Default: "" (exports fail with S3NoSuchBucket, imports find nothing).
	S3Dir string

	// TransientStatusDelay, when positive, keeps new tables CREATING,
	// updated tables UPDATING and deleted tables DELETING for this long,
	// as DynamoDB does, instead of ACTIVE (or gone) at once; a CREATING
	// table is not found by data operations. Default: 0 (no delay).
	TransientStatusDelay time.Duration

	// PartitionThroughput limits the reads and writes each partition-key
	// value of a table or global secondary index serves per second, and
	// throttles the excess with ThrottlingReasons as DynamoDB does.
	// Default: off (unlimited).
	PartitionThroughput PartitionThroughput
}

// Engine is an embedded DynamoDB-compatible database. It is safe for
// concurrent use.
type Engine struct {
	opts Options

	mu     sync.RWMutex // guards tables
	tables map[string]*table
	// byName is a copy of tables, replaced under mu whenever tables
	// changes, so that each request finds its table without taking mu.
	byName atomic.Pointer[map[string]*table]

	tokens *tokenCache
	faults *faultInjector
	parts  *partitionLimiter // nil unless PartitionThroughput is enabled
	db     *bolt.DB
	// commitFault, when set (by tests), fails every commit to the store
	// after its writes, as a full disk would.
	commitFault func() error
	// tokensSwept is when commit last deleted expired stored tokens; only
	// bbolt's single writer uses it.
	tokensSwept time.Time
	// commitSeq numbers the commits, for the point-in-time history.
	commitSeq atomic.Uint64
	// backupMu guards backups, by ARN.
	backupMu sync.Mutex
	backups  map[string]*backup
	// machineCrash is set by Open when the data directory was left open
	// by an earlier boot.
	machineCrash bool
	// recovery is what Open did to recover from a crash (see Recovery).
	recovery string
	// lifeMu orders starting the sweeper with Close; both are rare.
	lifeMu sync.Mutex
	sweep  *sweeper // nil until a table enables TTL
	closed bool
	reqSeq uint64

	// streamMu guards streams: every stream by ARN, the enabled ones and
	// the disabled ones whose records have not expired yet.
	streamMu  sync.Mutex
	streams   map[string]*stream
	streamSeq atomic.Uint64 // the last stream sequence number given out

	transient transientState // tables deleted while DELETING lasts
	jobs      jobs           // exports and imports (s3dir.go)

	// global is the engine's Regions, nil unless Options.Regions is set.
	global *regionSet
	// regionDown is set while the Region is crashed (Replication.Crash).
	regionDown atomic.Bool
}

// sweeper is the running TTL sweeper goroutine.
type sweeper struct {
	stop chan struct{}
	done sync.WaitGroup
}

// New returns an engine. It panics only if Options.Dir is set and the data
// file cannot be opened; use Open to get that error instead.
func New(opts ...func(*Options)) *Engine {
	e, err := Open(opts...)
	if err != nil {
		panic(err)
	}
	return e
}

// Open is New that reports a failure to open or load the data directory.
func Open(opts ...func(*Options)) (*Engine, error) {
	var o Options
	for _, f := range opts {
		f(&o)
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.TTLSweepInterval == 0 {
		o.TTLSweepInterval = time.Second
	}
	if o.Region == "" && len(o.Regions) == 0 {
		o.Region = "us-east-1"
	}
	if o.AccountID == "" {
		o.AccountID = "000000000000"
	}
	if o.PITRHistoryBytes == 0 {
		o.PITRHistoryBytes = 256 << 20
	}
	if o.PITRLag == 0 {
		o.PITRLag = 5 * time.Minute
	} else if o.PITRLag < 0 {
		o.PITRLag = 0
	}
	if o.IdempotencyWindow == 0 {
		o.IdempotencyWindow = 10 * time.Minute
	}
	if len(o.Regions) > 0 {
		return openRegions(o)
	}
	return openEngine(o)
}

// openEngine opens the engine of one Region with defaulted options.
func openEngine(o Options) (*Engine, error) {
	e := &Engine{
		opts:    o,
		tables:  map[string]*table{},
		streams: map[string]*stream{},
		tokens:  newTokenCache(),
		faults:  newFaultInjector(o.Faults),
		parts:   newPartitionLimiter(o.PartitionThroughput, o.Clock),
	}
	if o.Dir != "" {
		if err := e.openStore(o.Dir); err != nil {
			return nil, fmt.Errorf("ddblocal: open %s: %w", o.Dir, err)
		}
		e.publishTables()
		// Stored tables with TTL need the sweeper from the start.
		for _, t := range e.tables {
			if t.ttlEnabled {
				e.startSweeper()
				break
			}
		}
	}
	return e, nil
}

// startSweeper starts the TTL sweeper unless it runs, is turned off or the
// engine is closed. It starts with the first table that enables TTL, so
// engines that never use TTL start no goroutine.
func (e *Engine) startSweeper() {
	if e.opts.TTLSweepInterval <= 0 {
		return
	}
	e.lifeMu.Lock()
	defer e.lifeMu.Unlock()
	if e.sweep != nil || e.closed {
		return
	}
	s := &sweeper{stop: make(chan struct{})}
	s.done.Add(1)
	e.sweep = s
	go e.sweepLoop(s, e.opts.TTLSweepInterval)
}

// sweeperRunning reports whether the TTL sweeper was started.
func (e *Engine) sweeperRunning() bool {
	e.lifeMu.Lock()
	defer e.lifeMu.Unlock()
	return e.sweep != nil
}

// Close stops the TTL sweeper and closes the data file, of every Region
// with Options.Regions. The engine must not be used afterwards. Later
// calls wait for the first and return nil.
func (e *Engine) Close() error {
	if e.global != nil {
		return e.global.closeAll()
	}
	return e.closeOne()
}

// closeOne closes the engine of one Region.
func (e *Engine) closeOne() error {
	e.lifeMu.Lock()
	defer e.lifeMu.Unlock()
	if e.closed {
		return nil
	}
	e.closed = true
	if s := e.sweep; s != nil {
		close(s.stop)
		s.done.Wait()
	}
	if e.db != nil {
		return e.closeDB()
	}
	return nil
}

func (e *Engine) now() time.Time { return e.opts.Clock() }

func (e *Engine) sweepLoop(s *sweeper, every time.Duration) {
	defer s.done.Done()
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-tick.C:
			if _, err := e.SweepTTL(context.Background()); err != nil {
				if e.opts.OnSweepError != nil {
					e.opts.OnSweepError(err)
				} else {
					log.Printf("ddblocal: TTL sweep: %v", err)
				}
			}
		}
	}
}

// publishTables makes the current tables visible to table; the caller
// holds mu for writing (or owns the engine).
func (e *Engine) publishTables() {
	m := maps.Clone(e.tables)
	e.byName.Store(&m)
}

// table returns the named table or ResourceNotFoundException.
func (e *Engine) table(name string) (*table, error) {
	var t *table
	if m := e.byName.Load(); m != nil {
		t = (*m)[name]
	}
	if t == nil || (e.opts.TransientStatusDelay > 0 && e.creating(t)) {
		return nil, tableNotFound()
	}
	return t, nil
}

// tableNames returns the sorted names of all tables.
func (e *Engine) tableNames() []string {
	e.mu.RLock()
	names := make([]string, 0, len(e.tables))
	for n := range e.tables {
		names = append(names, n)
	}
	e.mu.RUnlock()
	sort.Strings(names)
	return names
}
