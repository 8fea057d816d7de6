// Package regionsim is a model of oncetable's money flows on a DynamoDB
// global table between two or three Regions of the embedded engine, in
// two designs: Naive (every Region writes, as a plain multi-active MREC
// table allows) and Fenced (runtime/home: a home Region per cell, leases
// with epochs, the fence in every transaction, epoch-scoped balances).
// The interleaving tests show what the naive design gets wrong and the
// fenced one prevents; Simulate drives both designs through seeded faults
// and checks the invariants after every run.
package regionsim

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/home"
	"github.com/oncetable/oncetable/runtime/schema"
)

// Design is how the flows write.
type Design int

const (
	// Naive writes every flow in the Region the request reached, with its
	// conditions checked on the local replica only.
	Naive Design = iota
	// Fenced writes a cell's flows in its home Region only, each
	// transaction fenced on the ownership item at the writer's epoch.
	Fenced
)

// Mutants switch a part of the fenced design off, to show that the
// checks find the violation it prevents.
type Mutants struct {
	NoFence      bool // transactions carry no fence ConditionCheck
	NoDrainProof bool // planned failover claims without proving the drain
}

// Config is a cluster's shape.
type Config struct {
	Regions []string // the money table's Regions, the first creates it
	Design  Design
	Mutants Mutants
	// LeaseTTL and Margin configure the lease store (home.LeaseOptions).
	LeaseTTL, Margin time.Duration
}

// Table is the money table's name; LeaseTable the lease store's.
const (
	Table      = "money"
	LeaseTable = "leases"
	// LeaseRegion is where every Region reaches the lease store: a
	// multi-Region strong consistency (MRSC) table of the US Region set
	// (us-east-1, us-east-2, us-west-2) on the engine. A write commits
	// once a majority holds it, so it keeps working while one of the three
	// is down or cut off. The simulation never faults LeaseRegion itself,
	// and reaches the store only through it: the engine brings a replica
	// that was cut off up to date asynchronously, so its own copy may be
	// stale for a while after it rejoins.
	LeaseRegion = "us-east-2"
)

// Cluster is an engine of Regions with the money table replicated
// between them and the flows of one design over it.
type Cluster struct {
	cfg     Config
	Eng     *ddblocal.Engine
	Rep     *ddblocal.Replication
	DB      map[string]*dynamodb.Client
	Leases  *home.Leases
	clock   atomic.Int64 // Unix nanoseconds of the Regions' base clock
	skew    map[string]time.Duration
	down    map[string]bool // crashed: unreachable by anyone
	isolate map[string]bool // partitioned from every other Region and the lease store
	cached  map[string]map[string]home.Lease
	stopped map[string]string // cells a planned failover left stopped, and the Region they left
	routes  map[string]map[string]route
	ids     int // the naive design's per-attempt ledger ids
}

// Start is the simulated clock's origin.
var Start = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

// NewCluster opens the engine, creates the money table in cfg.Regions[0]
// with replicas in the others, and the lease store.
func NewCluster(ctx context.Context, cfg Config) (*Cluster, error) {
	if cfg.LeaseTTL == 0 {
		cfg.LeaseTTL = 10 * time.Second
	}
	if cfg.Margin == 0 {
		cfg.Margin = 2 * time.Second
	}
	c := &Cluster{cfg: cfg, DB: map[string]*dynamodb.Client{}, skew: map[string]time.Duration{}, down: map[string]bool{},
		isolate: map[string]bool{}, cached: map[string]map[string]home.Lease{}, stopped: map[string]string{}, routes: map[string]map[string]route{}}
	c.clock.Store(Start.UnixNano())
	c.Eng = ddblocal.New(func(o *ddblocal.Options) {
		o.Regions = append(append([]string(nil), cfg.Regions...), LeaseRegion)
		o.ManualReplication = true
		o.Clock = c.Now
	})
	c.Rep = c.Eng.Replication()
	for _, r := range cfg.Regions {
		c.DB[r] = c.Eng.Region(r).Client(simClient)
		c.cached[r] = map[string]home.Lease{}
		c.routes[r] = map[string]route{}
	}
	if err := createTable(ctx, c.DB[cfg.Regions[0]], Table, true); err != nil {
		return nil, err
	}
	for _, r := range cfg.Regions[1:] {
		if _, err := c.DB[cfg.Regions[0]].UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(Table),
			ReplicaUpdates: []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String(r)}}}}); err != nil {
			return nil, err
		}
	}
	leaseDB := c.Eng.Region(LeaseRegion).Client(simClient)
	if err := createTable(ctx, leaseDB, LeaseTable, false); err != nil {
		return nil, err
	}
	if _, err := leaseDB.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(LeaseTable),
		MultiRegionConsistency: types.MultiRegionConsistencyStrong,
		ReplicaUpdates: []types.ReplicationGroupUpdate{
			{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String("us-east-1")}},
			{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String("us-west-2")}}}}); err != nil {
		return nil, err
	}
	c.Leases = home.NewLeases(leaseDB, LeaseTable, func(o *home.LeaseOptions) {
		o.TTL, o.Margin, o.Clock = cfg.LeaseTTL, cfg.Margin, c.Now
	})
	// Replicas become ACTIVE after the engine's creation delay; writes made
	// before are replicated all the same.
	return c, nil
}

// simClient makes a simulated Region's client send each call once and
// skip the work the in-process engine does not look at: the SigV4
// signature (the engine routes by the Region's own handler, not the
// credential scope) and the response's CRC32. The simulation's faults
// decide every outcome, so the SDK's retryer, which would retry a
// throttle or a 500 behind the simulation's back, is off as well.
func simClient(o *dynamodb.Options) {
	o.Retryer = aws.NopRetryer{}
	o.Credentials = aws.AnonymousCredentials{}
	o.DisableValidateResponseChecksum = true
}

func createTable(ctx context.Context, db *dynamodb.Client, name string, stream bool) error {
	in := &dynamodb.CreateTableInput{
		TableName: aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String(schema.PartitionKey), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String(schema.SortKey), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String(schema.PartitionKey), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String(schema.SortKey), KeyType: types.KeyTypeRange}},
		BillingMode: types.BillingModePayPerRequest,
	}
	if stream {
		in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}
	}
	_, err := db.CreateTable(ctx, in)
	return err
}

// Close closes the engine.
func (c *Cluster) Close() error { return c.Eng.Close() }

// Now is the base clock of the Regions.
func (c *Cluster) Now() time.Time { return time.Unix(0, c.clock.Load()).UTC() }

// Advance moves the clock on and delivers what replication has due.
func (c *Cluster) Advance(d time.Duration) {
	c.clock.Add(int64(d))
	c.Rep.Deliver()
}

// regionNow is a Region's own clock, skewed.
func (c *Cluster) regionNow(r string) time.Time { return c.Now().Add(c.skew[r]) }

// Skew sets a Region's clock skew.
func (c *Cluster) Skew(r string, d time.Duration) {
	c.skew[r] = d
	c.Rep.SetClockSkew(r, d)
}

// Crash takes a Region down, its backlog kept or dropped.
func (c *Cluster) Crash(r string, keepBacklog bool) {
	c.down[r] = true
	c.Rep.Crash(r, keepBacklog)
}

// Restart brings a crashed Region back.
func (c *Cluster) Restart(r string) {
	delete(c.down, r)
	c.Rep.Restart(r)
}

// Isolate partitions a Region from every other Region and from the lease
// store; clients still reach it.
func (c *Cluster) Isolate(r string) {
	c.isolate[r] = true
	for _, o := range append([]string{LeaseRegion}, c.cfg.Regions...) {
		if o != r {
			c.Rep.Partition(r, o)
		}
	}
}

// Rejoin ends Isolate.
func (c *Cluster) Rejoin(r string) {
	delete(c.isolate, r)
	for _, o := range append([]string{LeaseRegion}, c.cfg.Regions...) {
		if o != r {
			c.Rep.Heal(r, o)
		}
	}
}

// Down reports whether a Region is crashed.
func (c *Cluster) Down(r string) bool { return c.down[r] }

// Regions are the money Regions.
func (c *Cluster) Regions() []string { return c.cfg.Regions }

// Failover is the cluster's home.Failover: Wait delivers replication.
func (c *Cluster) Failover() *home.Failover {
	dbs := map[string]home.DB{}
	for r, db := range c.DB {
		dbs[r] = db
	}
	return &home.Failover{Table: Table, Leases: c.Leases, Regions: dbs, Attempts: 20,
		Wait: func(context.Context) error { c.Advance(200 * time.Millisecond); return nil }}
}

// InitCell gives a cell its first home and opens accounts with balances
// in it, then waits for them to replicate.
func (c *Cluster) InitCell(ctx context.Context, cell, region string, balances map[string]int64) error {
	db := c.DB[region]
	if c.cfg.Design == Fenced {
		l, err := c.Leases.Create(ctx, cell, region)
		if err != nil {
			return err
		}
		if err := home.Claim(ctx, db, Table, l); err != nil {
			return err
		}
	}
	users := make([]string, 0, len(balances))
	for u := range balances {
		users = append(users, u)
	}
	sort.Strings(users)
	for _, u := range users {
		item := map[string]types.AttributeValue{
			schema.PartitionKey: s(home.PK(cell)), schema.SortKey: s(c.acctSK(u, 1)),
			"balance": n(balances[u]), "opening": n(balances[u]), "seq": n(0), "base_epoch": n(0), "base_seq": n(0)}
		if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(Table), Item: item}); err != nil {
			return err
		}
	}
	c.Rep.WaitQuiet()
	return nil
}

// OpenOrder creates an open order of a user for settle.
func (c *Cluster) OpenOrder(ctx context.Context, region, cell, order, user string, amount int64) error {
	_, err := c.DB[region].PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(Table), Item: map[string]types.AttributeValue{
		schema.PartitionKey: s(home.PK(cell)), schema.SortKey: s("ORDER#" + order),
		"status": s("open"), "amount": n(amount), "user": s(user)}})
	return err
}

func (c *Cluster) acctSK(user string, epoch int64) string {
	if c.cfg.Design == Naive {
		return "ACCT#" + user
	}
	return fmt.Sprintf("ACCT#%s#E%06d", user, epoch)
}

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func n(v int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}
}

func num(it map[string]types.AttributeValue, a string) int64 {
	if v, ok := it[a].(*types.AttributeValueMemberN); ok {
		x, _ := strconv.ParseInt(v.Value, 10, 64)
		return x
	}
	return 0
}

func str(it map[string]types.AttributeValue, a string) string {
	if v, ok := it[a].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}
