package ddblocal_test

import (
	"context"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
)

// BenchmarkHandlerPutItemRegions is BenchmarkHandlerPutItem on the fixture
// table with a NEW_AND_OLD_IMAGES stream, side by side: one Region (an
// engine without Regions), and a global table of two Regions whose writes
// are replicated after the timed loop. replicated/s is the rate at which
// the second Region applies them; heap-B/item is the live heap each
// written item costs once every Region holds it (the item's rows, stream
// records and, with two Regions, the replica and the versions in both).
func BenchmarkHandlerPutItemRegions(b *testing.B) {
	for _, regions := range []int{1, 2} {
		b.Run("regions="+strconv.Itoa(regions), func(b *testing.B) {
			ctx := context.Background()
			eng := ddblocal.New(func(o *ddblocal.Options) {
				o.TTLSweepInterval = -1
				if regions == 2 {
					o.Regions = []string{"us-east-1", "eu-west-1"}
					o.ManualReplication = true
				}
			})
			defer eng.Close()
			db := eng.Client()
			if err := ddblocal.CreateFixtureTable(ctx, db, "bench"); err != nil {
				b.Fatal(err)
			}
			if _, err := db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("bench"),
				StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}}); err != nil {
				b.Fatal(err)
			}
			if regions == 2 {
				if _, err := db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("bench"),
					ReplicaUpdates: []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String("eu-west-1")}}}}); err != nil {
					b.Fatal(err)
				}
			}
			heap := func() uint64 {
				runtime.GC()
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				return m.HeapAlloc
			}
			before := heap()
			h := eng.Handler()
			b.ReportAllocs()
			n := 0
			for i := 0; b.Loop(); i++ {
				serve(b, h, "PutItem", `{"TableName":"bench","Item":{"PK":{"S":"USER#`+strconv.Itoa(i)+`"},"SK":{"S":"PROFILE"},"name":{"S":"someone"},"balance":{"N":"100"},"GSI1PK":{"S":"E#`+strconv.Itoa(i)+`"},"GSI1SK":{"S":"USER"}}}`)
				n++
			}
			if regions == 2 {
				start := time.Now()
				q := eng.Replication().WaitQuiet()
				elapsed := time.Since(start)
				if !q.Identical || q.Pending != 0 {
					b.Fatalf("after quiet: %+v", q)
				}
				b.ReportMetric(float64(n)/elapsed.Seconds(), "replicated/s")
			}
			b.ReportMetric(float64(heap()-before)/float64(n), "heap-B/item")
		})
	}
}
