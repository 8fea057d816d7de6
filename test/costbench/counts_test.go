package costbench_test

import (
	"testing"
)

// TestRequestCounts pins the figures the report is about: the DynamoDB
// requests of a first call and of a replay, for oncetable and the baseline.
func TestRequestCounts(t *testing.T) {
	want := map[string][2]int{ // flow/impl -> first, replay
		"charge/oncetable": {1, 1}, "charge/baseline": {3, 2},
		"debit/oncetable": {1, 1}, "debit/baseline": {3, 2},
		"settle/oncetable": {2, 1}, "settle/baseline": {4, 2},
		// Without the check of the records' pre-upgrade place: the same
		// requests (the check is one more item of the same transaction, one
		// more key of settle's BatchGetItem).
		"charge/" + ownPartition: {1, 1}, "debit/" + ownPartition: {1, 1}, "settle/" + ownPartition: {2, 1},
		// The library's external mode: PutItem, the effect, UpdateItem; a
		// replay is the failed PutItem with the record returned (ALL_OLD).
		"charge/external": {3, 1}, "debit/external": {3, 1}, "settle/external": {4, 1},
	}
	for _, f := range flows {
		for _, impl := range impls {
			t.Run(f.name+"/"+impl, func(t *testing.T) {
				w := newWorld(t)
				c := f.make(t, w, w.user(t, 1_000_000))
				first, _, replayed, err := w.run(c, impl)
				if err != nil || replayed {
					t.Fatalf("first call: replayed %v, err %v", replayed, err)
				}
				again, _, replayed, err := w.run(c, impl)
				if err != nil || !replayed {
					t.Fatalf("replay: replayed %v, err %v", replayed, err)
				}
				got := [2]int{first.Requests, again.Requests}
				if got != want[f.name+"/"+impl] {
					t.Errorf("requests (first, replay) = %v (%v then %v), want %v", got, first.Ops, again.Ops, want[f.name+"/"+impl])
				}
			})
		}
	}
}
