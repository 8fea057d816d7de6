package ddblocal

import (
	"context"
	"slices"
	"testing"
)

// TestFaultDrawsAreReproducible checks that one seed gives one sequence of
// injected faults, so a failing soak run can be replayed.
func TestFaultDrawsAreReproducible(t *testing.T) {
	draws := func(seed uint64) []bool {
		fi := newFaultInjector(Faults{})
		e := &Engine{faults: fi, tables: map[string]*table{}}
		e.SetFaults("t", Faults{Seed: seed, ThrottleRate: 0.3})
		var out []bool
		for range 200 {
			out = append(out, fi.before(context.Background(), faultWrite, "PutItem", []string{"t"}) != nil)
		}
		return out
	}
	tests := []struct {
		name      string
		a, b      uint64
		wantEqual bool
	}{
		{"same seed", 42, 42, true},
		{"different seeds", 42, 43, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b := draws(tc.a), draws(tc.b)
			if slices.Equal(a, b) != tc.wantEqual {
				t.Fatalf("sequences equal = %v, want %v", slices.Equal(a, b), tc.wantEqual)
			}
			n := 0
			for _, x := range a {
				if x {
					n++
				}
			}
			if n < 30 || n > 90 {
				t.Fatalf("%d of 200 throttled at rate 0.3", n)
			}
		})
	}
}

func TestFaultsApplyPerTable(t *testing.T) {
	fi := newFaultInjector(Faults{ThrottleRate: 1})
	e := &Engine{faults: fi, tables: map[string]*table{}}
	e.SetFaults("calm", Faults{})
	tests := []struct {
		table     string
		throttled bool
	}{
		{"calm", false},
		{"other", true},
	}
	for _, tc := range tests {
		t.Run(tc.table, func(t *testing.T) {
			err := fi.before(context.Background(), faultRead, "GetItem", []string{tc.table})
			if (err != nil) != tc.throttled {
				t.Fatalf("throttled = %v, want %v", err != nil, tc.throttled)
			}
		})
	}
	if got := e.TableFaultCounts("other").Throttled; got != 1 {
		t.Fatalf("counted %d throttles on other, want 1", got)
	}
}
