package ddblocal

import (
	"strconv"
	"testing"
	"time"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
)

func TestPartitionBucket(t *testing.T) {
	type step struct {
		after time.Duration // clock advance before the take
		units float64
		write bool
		part  string
		ok    bool
	}
	cases := []struct {
		name  string
		limit PartitionThroughput
		steps []step
	}{
		{"burst then throttle", PartitionThroughput{Enabled: true, WriteUnits: 10}, []step{
			{units: 6, write: true, ok: true}, {units: 4, write: true, ok: true}, {units: 1, write: true, ok: false}}},
		{"refills at the rate", PartitionThroughput{Enabled: true, WriteUnits: 10}, []step{
			{units: 10, write: true, ok: true}, {after: 100 * time.Millisecond, units: 2, write: true, ok: false},
			{after: 100 * time.Millisecond, units: 2, write: true, ok: true}}},
		{"refill is capped by the burst", PartitionThroughput{Enabled: true, WriteUnits: 10, Burst: 2 * time.Second}, []step{
			{units: 20, write: true, ok: true}, {after: time.Hour, units: 20, write: true, ok: true},
			{units: 1, write: true, ok: false}}},
		{"reads and writes are separate", PartitionThroughput{Enabled: true, ReadUnits: 1, WriteUnits: 1}, []step{
			{units: 1, write: true, ok: true}, {units: 1, ok: true}, {units: 1, write: true, ok: false}, {units: 0.5, ok: false}}},
		{"partitions are separate", PartitionThroughput{Enabled: true, WriteUnits: 1}, []step{
			{units: 1, write: true, part: "a", ok: true}, {units: 1, write: true, part: "b", ok: true},
			{units: 1, write: true, part: "a", ok: false}}},
		{"a full bucket admits a larger request, then owes", PartitionThroughput{Enabled: true, WriteUnits: 2}, []step{
			{units: 5, write: true, ok: true}, {after: time.Second, units: 1, write: true, ok: false},
			{after: 1500 * time.Millisecond, units: 1, write: true, ok: true}}},
		{"defaults are DynamoDB's", PartitionThroughput{Enabled: true}, []step{
			{units: 1000, write: true, ok: true}, {units: 1, write: true, ok: false},
			{units: 3000, ok: true}, {units: 0.5, ok: false}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
			l := newPartitionLimiter(c.limit, func() time.Time { return now })
			for i, s := range c.steps {
				now = now.Add(s.after)
				k := partKey{table: "t", part: s.part, write: s.write}
				got := l.take([]charge{{key: k, units: s.units}}) < 0
				if got != s.ok {
					t.Fatalf("step %d (%+v): admitted %v, want %v", i, s, got, s.ok)
				}
			}
		})
	}
}

func TestPartitionTakeIsAllOrNothing(t *testing.T) {
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	l := newPartitionLimiter(PartitionThroughput{Enabled: true, WriteUnits: 2}, func() time.Time { return now })
	table := partKey{table: "t", part: "p", write: true}
	index := partKey{table: "t", index: "gsi", part: "q", write: true}
	if i := l.take([]charge{{key: index, units: 2}}); i >= 0 {
		t.Fatalf("first index write throttled")
	}
	if i := l.take([]charge{{key: table, units: 1}, {key: index, units: 1}}); i != 1 {
		t.Fatalf("take = %d, want the index charge (1) throttled", i)
	}
	if i := l.take([]charge{{key: table, units: 2}}); i >= 0 {
		t.Errorf("the table bucket was charged by a throttled request")
	}
	if got := l.snapshot()[ReasonIndexWriteKeyRange]; got != 1 {
		t.Errorf("count of %s = %d, want 1", ReasonIndexWriteKeyRange, got)
	}
}

func TestPartitionLimiterOff(t *testing.T) {
	if l := newPartitionLimiter(PartitionThroughput{WriteUnits: 5}, time.Now); l != nil {
		t.Errorf("a limiter without Enabled was built")
	}
	if got := New().ThrottleCounts(); len(got) != 0 {
		t.Errorf("ThrottleCounts of an engine without limits = %v", got)
	}
}

func TestPartitionPrune(t *testing.T) {
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	l := newPartitionLimiter(PartitionThroughput{Enabled: true, WriteUnits: 1}, func() time.Time { return now })
	for i := range 5000 {
		l.take([]charge{{key: partKey{part: string(rune(i)), write: true}, units: 1}})
		if i == 4000 {
			now = now.Add(2 * time.Second)
		}
	}
	if n := len(l.buckets); n >= 5000 {
		t.Errorf("%d buckets kept, want the refilled ones dropped", n)
	}
}

// A request of several charges (a table row and its index rows) that
// crosses the pruning threshold keeps every bucket it takes from.
func TestPartitionPruneDuringTake(t *testing.T) {
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	l := newPartitionLimiter(PartitionThroughput{Enabled: true, WriteUnits: 1e12}, func() time.Time { return now })
	for i := range 10000 {
		p := strconv.Itoa(i)
		cs := []charge{{key: partKey{part: p, write: true}, units: 1}, {key: partKey{index: "gsi", part: p, write: true}, units: 1}}
		if l.take(cs) >= 0 {
			t.Fatalf("take %d throttled", i)
		}
	}
}

func TestDescribePartition(t *testing.T) {
	cases := []struct {
		vals []attr.Value
		want string
	}{
		{[]attr.Value{{T: attr.S, S: "PAYMENT#UNPROCESSED"}}, "PAYMENT#UNPROCESSED"},
		{[]attr.Value{{T: attr.S, S: "a\x00b"}}, "a\x00b"},
		{[]attr.Value{{T: attr.S, S: "created"}, {T: attr.N, S: "3"}}, "created | 3"},
		{[]attr.Value{{T: attr.N, S: "0"}, {T: attr.N, S: "-12.5"}, {T: attr.N, S: "1200"}}, "0 | -12.5 | 1200"},
		{[]attr.Value{{T: attr.N, S: "0.001"}, {T: attr.S, S: "x"}}, "0.001 | x"},
	}
	for _, c := range cases {
		var part []byte
		for _, v := range c.vals {
			part = appendKey(part, v)
		}
		if got := describePartition(string(part)); got != c.want {
			t.Errorf("describePartition(%v) = %q, want %q", c.vals, got, c.want)
		}
	}
}
