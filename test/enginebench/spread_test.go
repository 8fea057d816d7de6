package enginebench

import (
	"math"
	"testing"
)

func TestRunSpreadJudge(t *testing.T) {
	tests := []struct {
		name    string
		medians []float64
		goal    float64
		median  float64
		spread  float64 // NaN: unknown
		want    Verdict
	}{
		{"met with margin", []float64{0.90, 0.86, 0.88}, 0.8, 0.88, 0.04, MetWithMargin},
		{"margin equal to the spread is no margin", []float64{0.84, 0.80, 0.88}, 0.8, 0.84, 0.08, MetWithinSpread},
		{"met within the spread", []float64{0.83, 0.76, 0.82, 0.90, 0.81}, 0.8, 0.82, 0.14, MetWithinSpread},
		{"median on the goal", []float64{0.6, 0.6}, 0.6, 0.6, 0, MetWithinSpread},
		{"just under, unrounded", []float64{0.599, 0.5995, 0.5999}, 0.6, 0.5995, 0.0009, NotMet},
		{"NOT met", []float64{0.55, 0.58, 0.52}, 0.6, 0.55, 0.06, NotMet},
		{"one run: spread unknown", []float64{0.95}, 0.8, 0.95, math.NaN(), MetSpreadUnknown},
		{"one run under the goal", []float64{0.7}, 0.8, 0.7, math.NaN(), NotMet},
		{"even number of runs: mean of the middle two", []float64{0.70, 0.90, 0.80, 1.00}, 0.6, 0.85, 0.30, MetWithinSpread},
		{"no run", nil, 0.6, math.NaN(), math.NaN(), NotMet},
	}
	same := func(a, b float64) bool { return math.IsNaN(a) && math.IsNaN(b) || math.Abs(a-b) < 1e-9 }
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := RunSpread{Medians: tt.medians}
			spread, known := s.Spread()
			if !same(s.Median(), tt.median) || !same(spread, tt.spread) || known == math.IsNaN(tt.spread) {
				t.Errorf("median %v, spread %v (known %v); want %v, %v", s.Median(), spread, known, tt.median, tt.spread)
			}
			if got := s.Judge(tt.goal); got != tt.want {
				t.Errorf("Judge(%v) = %q, want %q", tt.goal, got, tt.want)
			}
		})
	}
}

// TestSpreadOfRuns takes each run's median of one row, skipping runs
// without it or without rounds.
func TestSpreadOfRuns(t *testing.T) {
	row := func(op string, engine ...float64) Paired {
		p := Paired{Op: op}
		for _, e := range engine {
			p.Rounds = append(p.Rounds, round(e, 1000))
		}
		return p
	}
	runs := PairedRuns{
		{Rows: []Paired{row(OpPut, 800, 900, 850), row(OpQuery, 700)}},
		{Rows: []Paired{row(OpPut, 900, 950, 1000, 920)}},
		{Rows: []Paired{row(OpPut), row(OpQuery, 750, 650)}},
	}
	tests := []struct {
		op      string
		medians []float64
		rounds  []int
	}{
		{OpPut, []float64{0.85, 0.935}, []int{3, 4}},
		{OpQuery, []float64{0.7, 0.7}, []int{1, 2}},
		{OpTx1k, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.op, func(t *testing.T) {
			s := runs.Spread(tt.op)
			if len(s.Medians) != len(tt.medians) || len(s.Rounds) != len(tt.rounds) {
				t.Fatalf("medians %v over %v rounds, want %v over %v", s.Medians, s.Rounds, tt.medians, tt.rounds)
			}
			for i := range s.Medians {
				if math.Abs(s.Medians[i]-tt.medians[i]) > 1e-9 || s.Rounds[i] != tt.rounds[i] {
					t.Errorf("medians %v over %v rounds, want %v over %v", s.Medians, s.Rounds, tt.medians, tt.rounds)
				}
			}
		})
	}
}
