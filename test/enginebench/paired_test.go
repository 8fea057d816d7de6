package enginebench

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

// round is a paired round with the engine at e and the ceiling at c ops/s
// (1,000 ops each).
func round(e, c float64) PairedRound {
	sl := func(ops float64) Slice { return Slice{N: 1000, Wall: time.Duration(1000 / ops * float64(time.Second))} }
	return PairedRound{Engine: sl(e), Ceiling: sl(c)}
}

func TestPairedSummary(t *testing.T) {
	tests := []struct {
		name                   string
		rounds                 []PairedRound
		median, q1, q3, lo, hi float64
	}{
		{"odd", []PairedRound{round(500, 1000), round(700, 1000), round(600, 1000), round(900, 1000), round(400, 1000)},
			0.6, 0.5, 0.7, 0.4, 0.9},
		{"even: mean of the middle two", []PairedRound{round(300, 1000), round(600, 1000), round(500, 1000), round(400, 1000)},
			0.45, 0.375, 0.525, 0.3, 0.6},
		{"one round", []PairedRound{round(800, 1000)}, 0.8, 0.8, 0.8, 0.8, 0.8},
		{"ratio, not difference: both sides drift", []PairedRound{round(500, 1000), round(250, 500), round(1000, 2000)},
			0.5, 0.5, 0.5, 0.5, 0.5},
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Paired{Rounds: tt.rounds}
			q1, q3 := p.Quartiles()
			lo, hi := p.Range()
			got := []float64{p.Median(), q1, q3, lo, hi}
			want := []float64{tt.median, tt.q1, tt.q3, tt.lo, tt.hi}
			for i := range got {
				if !near(got[i], want[i]) {
					t.Fatalf("median, q1, q3, min, max = %v, want %v", got, want)
				}
			}
		})
	}
	if m := (Paired{}).Median(); !math.IsNaN(m) {
		t.Errorf("median without rounds = %v, want NaN", m)
	}
}

// TestMeasurePairedABBA checks the order of the slices, that each lands on
// its own side of the round, and that the rounds' count and ops add up.
func TestMeasurePairedABBA(t *testing.T) {
	tests := []struct {
		rounds int
		order  string
	}{
		{0, ""},
		{1, "EC"},
		{2, "EC CE"},
		{4, "EC CE EC CE"},
		{5, "EC CE EC CE EC"},
	}
	for _, tt := range tests {
		t.Run(tt.order, func(t *testing.T) {
			var calls []byte
			p, err := MeasurePaired("op", tt.rounds, func(engine bool) (Slice, error) {
				if engine {
					calls = append(calls, 'E')
					return Slice{N: 300, Wall: time.Second}, nil
				}
				calls = append(calls, 'C')
				return Slice{N: 1000, Wall: time.Second}, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			var want []byte
			for _, c := range []byte(tt.order) {
				if c != ' ' {
					want = append(want, c)
				}
			}
			if string(calls) != string(want) {
				t.Errorf("slice order %s, want %s", calls, want)
			}
			e, c := p.Ops()
			if len(p.Rounds) != tt.rounds || e != 300*tt.rounds || c != 1000*tt.rounds {
				t.Errorf("%d rounds, %d/%d ops, want %d rounds, %d/%d", len(p.Rounds), e, c, tt.rounds, 300*tt.rounds, 1000*tt.rounds)
			}
			for i, r := range p.Rounds {
				if r.EngineFirst != EngineFirst(i) || math.Abs(r.Ratio()-0.3) > 1e-9 {
					t.Errorf("round %d: engine first %v, ratio %v; want %v, 0.3", i, r.EngineFirst, r.Ratio(), EngineFirst(i))
				}
			}
		})
	}
}

// TestMeasurePairedDrift shows what the alternation is for: a machine
// slowing down steadily biases a fixed order, and ABBA cancels it.
func TestMeasurePairedDrift(t *testing.T) {
	speed := 1.0
	p, err := MeasurePaired("op", 16, func(engine bool) (Slice, error) {
		speed *= 0.98 // each slice runs 2% slower than the one before
		ops := 1000.0
		if engine {
			ops = 600
		}
		return Slice{N: 1000, Wall: time.Duration(1000 / (ops * speed) * float64(time.Second))}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if m := p.Median(); math.Abs(m-0.6) > 0.6*0.021 {
		t.Errorf("median %v under steady drift, want 0.6 within the drift of one slice", m)
	}
	lo, hi := p.Range()
	if lo >= 0.6 || hi <= 0.6 {
		t.Errorf("range %v–%v: the two orders should bias opposite ways around 0.6", lo, hi)
	}
}

func TestMeasurePairedError(t *testing.T) {
	boom := errors.New("boom")
	n := 0
	_, err := MeasurePaired("PutItem", 3, func(bool) (Slice, error) {
		if n++; n == 4 {
			return Slice{}, boom
		}
		return Slice{N: 1, Wall: time.Millisecond}, nil
	})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "PutItem, round 2") {
		t.Errorf("err = %v, want boom in PutItem, round 2", err)
	}
}

func TestSliceOps(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name   string
		n      int
		wall   time.Duration
		target time.Duration
		want   int
	}{
		{"scaled up", 512, 50 * ms, 200 * ms, 2048},
		{"scaled down", 4096, 400 * ms, 200 * ms, 2048},
		{"never below the minimum", 32, 900 * ms, 200 * ms, minSliceOps},
		{"no time measured", 100, 0, 200 * ms, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SliceOps(tt.n, tt.wall, tt.target); got != tt.want {
				t.Errorf("SliceOps(%d, %v, %v) = %d, want %d", tt.n, tt.wall, tt.target, got, tt.want)
			}
		})
	}
}
