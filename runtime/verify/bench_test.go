package verify_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/schema/provision"
	"github.com/oncetable/oncetable/runtime/store"
	"github.com/oncetable/oncetable/runtime/verify"
	"github.com/oncetable/oncetable/test/population"
)

// BenchmarkVerify checks a production-like population (test/population:
// 500 users, 2,500 orders through their life cycles by the real flows) and
// reports the read units the Scan pages consumed per million items
// (ReturnConsumedCapacity, eventually consistent), items per second and the
// heap the check grew by. Run: go test -run '^$' -bench Verify ./runtime/verify
func BenchmarkVerify(b *testing.B) {
	eng := ddblocal.New()
	defer eng.Close()
	db := eng.Client()
	ctx := context.Background()
	if err := provision.EnsureTable(ctx, db, "bench"); err != nil {
		b.Fatal(err)
	}
	st := store.New(db, func(o *store.Options) { o.Table = "bench" })
	if err := population.Generate(population.Config{Users: 500, Orders: 2500}).Load(ctx, st, population.LoadOptions{}); err != nil {
		b.Fatal(err)
	}
	for _, consistent := range []bool{false, true} {
		name := "eventually-consistent"
		if consistent {
			name = "strongly-consistent"
		}
		b.Run(name, func(b *testing.B) {
			var rep *verify.Report
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			for b.Loop() {
				var err error
				rep, err = verify.Table(ctx, db, func(o *verify.Options) { o.Table, o.MaxRCU, o.ConsistentRead = "bench", -1, consistent })
				if err != nil || !rep.OK {
					b.Fatalf("err %v, report %+v", err, rep)
				}
			}
			runtime.ReadMemStats(&after)
			b.ReportMetric(rep.RCUPerMillionItems(), "RCU/Mitem")
			b.ReportMetric(float64(rep.Items), "items")
			b.ReportMetric(float64(rep.Items)*float64(b.N)/b.Elapsed().Seconds(), "items/s")
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(rep.Items), "B-alloc/item")
		})
	}
}
