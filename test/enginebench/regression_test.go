package enginebench

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const benchBefore = `goos: linux
BenchmarkEngine/PutItem/engine,_no_client-2   	  100000	     10000 ns/op	    100000 ops/s	      5000 p50-ns	     20000 p99-ns
BenchmarkEngine/PutItem/engine,_no_client-2   	  100000	     12000 ns/op	     90000 ops/s	      5200 p50-ns	     21000 p99-ns
BenchmarkEngine/PutItem/engine,_no_client-2   	  100000	     11000 ns/op	     95000 ops/s	      5100 p50-ns	     20000 p99-ns
BenchmarkEngine/PutItem/engine_in-process_(SDK)-2	   10000	     40000 ns/op	     25000 ops/s	     30000 p50-ns	     90000 p99-ns
BenchmarkEngine/PutItem/SDK_client_alone-2    	   10000	     35000 ns/op	     28000 ops/s	     27000 p50-ns	     80000 p99-ns
BenchmarkEngine/TransactWriteItems,_4_items,_table_of_1k/engine,_no_client-2	   10000	     80000 ns/op	     12000 ops/s	     48000 p50-ns	    200000 p99-ns
BenchmarkEngine/TransactWriteItems,_4_items,_table_of_1k/engine_in-process_(SDK)-2	   10000	    130000 ns/op	      7000 ops/s	     93000 p50-ns	    400000 p99-ns
BenchmarkEngine/TransactWriteItems,_4_items,_table_of_1k/SDK_client_alone-2	   10000	     55000 ns/op	     18000 ops/s	     31000 p50-ns	    200000 p99-ns
BenchmarkStartup/engine,_no_client-2          	  100000	     20000 ns/op	      9000 p50-ns	    120000 p99-ns
BenchmarkHandlerPutItem-2                     	  100000	     10000 ns/op	    8000 B/op	      59 allocs/op
PASS
`

const benchAfter = `BenchmarkEngine/PutItem/engine,_no_client-2   	  100000	     12000 ns/op	     80000 ops/s	      5600 p50-ns	     20000 p99-ns
BenchmarkEngine/PutItem/engine,_no_client-2   	  100000	     12000 ns/op	     82000 ops/s	      5800 p50-ns	     20000 p99-ns
BenchmarkEngine/PutItem/engine_in-process_(SDK)-2	   10000	     40000 ns/op	     24000 ops/s	     31000 p50-ns	     90000 p99-ns
BenchmarkEngine/PutItem/SDK_client_alone-2    	   10000	     35000 ns/op	     28500 ops/s	     27000 p50-ns	     80000 p99-ns
BenchmarkEngine/TransactWriteItems,_4_items,_table_of_1k/engine,_no_client-2	   10000	     40000 ns/op	     25000 ops/s	     20000 p50-ns	    100000 p99-ns
BenchmarkEngine/TransactWriteItems,_4_items,_table_of_1k/engine_in-process_(SDK)-2	   10000	     80000 ns/op	     12000 ops/s	     60000 p50-ns	    300000 p99-ns
BenchmarkEngine/TransactWriteItems,_4_items,_table_of_1k/SDK_client_alone-2	   10000	     55000 ns/op	     18500 ops/s	     31000 p50-ns	    200000 p99-ns
BenchmarkStartup/engine,_no_client-2          	  100000	     20000 ns/op	      9500 p50-ns	    120000 p99-ns
BenchmarkHandlerPutItem-2                     	  100000	      8000 ns/op	    7000 B/op	      50 allocs/op
BenchmarkHandlerTransact4-2                   	   50000	     20000 ns/op	   15000 B/op	     150 allocs/op
`

// TestWriteRegression renders a fixed before/after pair (a PutItem
// regression, a transaction speed-up, a benchmark only the version after
// has) and compares it with testdata/regression.golden.md.
func TestWriteRegression(t *testing.T) {
	before, err := ParseBench(strings.NewReader(benchBefore))
	if err != nil {
		t.Fatal(err)
	}
	after, err := ParseBench(strings.NewReader(benchAfter))
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	WriteRegression(&got, before, after, RegressionRun{Before: "abc1234", After: "def5678", Command: "make bench-engine-regression",
		Rounds: 3, Loads: []string{"round 1 at 10:00: 1.00 1.10 1.20", "end at 10:05: 0.90 1.00 1.10"}, When: "2026-12-01 10:05 UTC"})
	golden := filepath.Join("testdata", "regression.golden.md")
	if *update {
		if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("page differs from %s (rerun with -update after checking the change):\n%s", golden, got.String())
	}
}

func TestParseBenchRejectsABadValue(t *testing.T) {
	_, err := ParseBench(strings.NewReader("BenchmarkX-2  10  abc ns/op\n"))
	if err == nil || !strings.Contains(err.Error(), `"abc"`) {
		t.Fatalf("err = %v, want one naming the bad value", err)
	}
}

func TestMedian(t *testing.T) {
	s, err := ParseBench(strings.NewReader(benchBefore))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, unit string
		want       float64
		n          int
	}{
		{"BenchmarkEngine/PutItem/engine,_no_client", "ops/s", 95000, 3},
		{"BenchmarkEngine/PutItem/engine,_no_client", "p50-ns", 5100, 3},
		{"BenchmarkHandlerPutItem", "allocs/op", 59, 1},
	} {
		if got, n := s.Median(tc.name, tc.unit); got != tc.want || n != tc.n {
			t.Errorf("Median(%s, %s) = %v over %d, want %v over %d", tc.name, tc.unit, got, n, tc.want, tc.n)
		}
	}
	if _, n := s.Median("BenchmarkNone", "ns/op"); n != 0 {
		t.Errorf("a benchmark never run has %d values", n)
	}
}

// TestJudgePairsRounds: a row is NO only when most rounds were slower by
// more than the limit, unclear when its rounds disagree.
func TestJudgePairsRounds(t *testing.T) {
	slower := func(r float64) bool { return r < regressionLimit }
	for _, tc := range []struct {
		name          string
		before, after []float64
		want          string
	}{
		{"every round 20% slower", []float64{100, 90, 110, 100, 95}, []float64{80, 72, 88, 80, 76}, verdictSlower},
		{"every round 5% slower", []float64{100, 90, 110, 100, 95}, []float64{95, 85.5, 104.5, 95, 90.25}, verdictWithin},
		{"rounds disagree around the limit", []float64{100, 100, 100, 100, 100}, []float64{70, 85, 89, 98, 101}, verdictUnclear},
		{"load in one round only", []float64{100, 100, 100, 100, 100}, []float64{50, 99, 100, 101, 100}, verdictWithin},
	} {
		if got := judge(pairedRatios(tc.before, tc.after), slower, 0.75); got != tc.want {
			t.Errorf("%s: judge = %q, want %q (ratios %v)", tc.name, got, tc.want, pairedRatios(tc.before, tc.after))
		}
	}
	if r := pairedRatios([]float64{1, 2}, []float64{1}); r != nil {
		t.Errorf("pairedRatios of 2 and 1 runs = %v, want nil (unpaired)", r)
	}
}
