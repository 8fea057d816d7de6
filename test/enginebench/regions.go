package enginebench

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
)

// Two Regions: what a global table costs a PutItem beside one Region, and
// how fast and at what memory its writes replicate.

// PeerEngineRegions is the in-process engine serving two Regions, whose
// tables are global tables with a replica in the second Region, written in
// the first and replicated in the background.
const PeerEngineRegions = "engine, global table in 2 Regions (SDK)"

// PeerEngineStream is the in-process engine of one Region whose tables
// have the stream that global tables need: the one-Region side of the
// two-Region row, so that its ratio is the replication's cost alone.
const PeerEngineStream = "engine, 1 Region with a NEW_AND_OLD_IMAGES stream (SDK)"

// RegionPair is the comparison of the two-Region row, A over B.
var RegionPair = [2]string{PeerEngineRegions, PeerEngineStream}

// regionNames are the Regions of the two-Region peer and figures.
var regionNames = []string{"us-east-1", "eu-west-1"}

// NewEngineRegions starts the two-Region peer. Every table it creates gets
// a NEW_AND_OLD_IMAGES stream, as global tables of eventual consistency
// need, and a replica in the second Region before it is used.
func NewEngineRegions() *Peer {
	e := ddblocal.New(func(o *ddblocal.Options) { o.Regions = regionNames })
	return &Peer{Name: PeerEngineRegions, API: globalAPI{e.Client(noRetries)}, close: func() { _ = e.Close() }}
}

// NewEngineStream starts the one-Region side of the two-Region row.
func NewEngineStream() *Peer {
	e := ddblocal.New()
	return &Peer{Name: PeerEngineStream, API: streamOnly{e.Client(noRetries)}, close: func() { _ = e.Close() }}
}

// globalAPI makes each table it creates a global table.
type globalAPI struct{ *dynamodb.Client }

func (g globalAPI) CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, opts ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error) {
	withStream := *in
	withStream.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}
	out, err := g.Client.CreateTable(ctx, &withStream, opts...)
	if err != nil {
		return nil, err
	}
	_, err = g.Client.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: in.TableName,
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String(regionNames[1])}}}}, opts...)
	return out, err
}

// RegionsRow is the two-Region row of one run: PutItem on the two-Region
// peer over the one-Region engine, paired as the other rows are, then the
// replication figures measured apart (MeasureReplication).
type RegionsRow struct {
	Paired
	Replication
}

// Replication are the figures of writing Items items with a NEW_AND_OLD_IMAGES
// stream in one Region and in a global table of two.
type Replication struct {
	Items int `json:"items"`
	// PerSecond is how many of the items the second Region applied per
	// second once they were all written (replication held back meanwhile).
	PerSecond float64 `json:"replicated_per_second"`
	// HeapPerItem is the live heap each item costs, once every Region
	// holds it: with one Region, and with two (the replica, the versions
	// in both Regions and each Region's stream record).
	HeapPerItem [2]float64 `json:"heap_per_item"`
}

// MeasureReplication writes items PutItems into a one-Region engine and
// into the first Region of a two-Region global table whose replication is
// held back, then delivers it, timing the delivery, and measures the live
// heap each item costs in both.
func MeasureReplication(items int) (Replication, error) {
	out := Replication{Items: items}
	for i, regions := range [][]string{nil, regionNames} {
		perSec, heap, err := replicate(regions, items)
		if err != nil {
			return out, err
		}
		out.HeapPerItem[i] = heap
		if regions != nil {
			out.PerSecond = perSec
		}
	}
	return out, nil
}

func replicate(regions []string, items int) (perSec, heapPerItem float64, err error) {
	ctx := context.Background()
	e := ddblocal.New(func(o *ddblocal.Options) {
		o.Regions = regions
		o.ManualReplication = true
		o.TTLSweepInterval = -1
	})
	defer e.Close()
	api := API(streamOnly{e.Client(noRetries)})
	if regions != nil {
		api = globalAPI{e.Client(noRetries)}
	}
	const table = "replication"
	if _, err := api.CreateTable(ctx, TableInput(table)); err != nil {
		return 0, 0, err
	}
	before := liveHeap()
	put := Put(ctx, api, table, "REPL#")
	for i := 0; i < items; i++ {
		if err := put(nil, i); err != nil {
			return 0, 0, err
		}
	}
	if regions != nil {
		start := time.Now()
		q := e.Replication().WaitQuiet()
		elapsed := time.Since(start)
		if !q.Identical || q.Pending != 0 {
			return 0, 0, fmt.Errorf("replication: after quiet %d pending, differences %s", q.Pending, strings.Join(q.Differences, "; "))
		}
		perSec = float64(items) / elapsed.Seconds()
	}
	return perSec, float64(liveHeap()-before) / float64(items), nil
}

// streamOnly creates tables with the global tables' stream, without a
// replica: the one-Region side of the memory figure.
type streamOnly struct{ *dynamodb.Client }

func (s streamOnly) CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, opts ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error) {
	withStream := *in
	withStream.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}
	return s.Client.CreateTable(ctx, &withStream, opts...)
}

// liveHeap is the heap in use after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// PutRegions records this process's two-Region row.
func (rs *Results) PutRegions(r RegionsRow) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.regions = &r
}

// Regions returns the two-Region row PutRegions recorded, or nil.
func (rs *Results) Regions() *RegionsRow {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.regions
}

// regionsSection renders the two-Region row of each run that measured it.
func regionsSection(runs PairedRuns) string {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	p("\n### Two Regions\n\n")
	var measured []int
	for i, r := range runs {
		if r.Regions != nil {
			measured = append(measured, i)
		}
	}
	if len(measured) == 0 {
		p("No run measured the two-Region row (`-paired-regions`; `make bench-engine` measures it in its first run).\n")
		return b.String()
	}
	p("PutItem on a global table of two Regions (%s: the table has the NEW_AND_OLD_IMAGES stream that global tables need and a replica in the second Region, which the engine writes in the background), paired against PutItem on a one-Region engine whose table has the same stream (%s), both started for this row, in alternating slices as the rows above are: the ratio is the two-Region PutItem's throughput over the one-Region one, so what replication costs a write. Replicated per second and the heap per item are measured apart, after the paired rounds, on engines of their own: the items are written with replication held back, then delivered and timed; the heap is the live heap each item costs once every Region holds it, with the stream in both cases (one Region: its row and stream record; two Regions: the replica, the versions in both Regions and both streams).\n\n", PeerEngineRegions, PeerEngineStream)
	p("| Run | 2 Regions ÷ 1 Region (PutItem) | interquartile range | rounds | load average at start | items | replicated per second | heap per item, 1 Region | heap per item, 2 Regions |\n")
	p("|---|---|---|---|---|---|---|---|---|\n")
	for _, i := range measured {
		r := runs[i].Regions
		q1, q3 := r.Quartiles()
		p("| %d | %s | %s–%s | %d | %s | %s | %s | %s B | %s B |\n", i+1, times3(r.Median()), fixed3(q1, false), fixed3(q3, false), len(r.Rounds),
			r.Load, thousands(float64(r.Items)), thousands(r.PerSecond), thousands(r.HeapPerItem[0]), thousands(r.HeapPerItem[1]))
	}
	return b.String()
}
