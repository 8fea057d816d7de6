package enginebench

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// Slice is one short timed run of a workload on one peer.
type Slice struct {
	N    int           `json:"n"`
	Wall time.Duration `json:"wall_ns"`
}

// OpsPerSec is the slice's throughput.
func (s Slice) OpsPerSec() float64 {
	if s.Wall <= 0 {
		return 0
	}
	return float64(s.N) / s.Wall.Seconds()
}

// PairedRound is one round of a paired measurement: a slice of the engine
// in-process and a slice of the SDK client alone, back to back.
type PairedRound struct {
	EngineFirst bool  `json:"engine_first"`
	Engine      Slice `json:"engine"`
	Ceiling     Slice `json:"ceiling"`
}

// Ratio is the engine's throughput over the ceiling's in this round.
func (r PairedRound) Ratio() float64 {
	return r.Engine.OpsPerSec() / math.Max(r.Ceiling.OpsPerSec(), 1e-9)
}

// Paired is the paired measurement of one row: the engine in-process and
// the SDK client alone measured in alternating slices, so that the drift
// of a shared machine falls on both alike.
type Paired struct {
	Op     string        `json:"op"`
	Rounds []PairedRound `json:"rounds"`
	// Load is the load average when the row started.
	Load string `json:"load"`
}

// Ratios are the per-round ratios, sorted.
func (p Paired) Ratios() []float64 {
	rs := make([]float64, len(p.Rounds))
	for i, r := range p.Rounds {
		rs[i] = r.Ratio()
	}
	slices.Sort(rs)
	return rs
}

// Median is the median per-round ratio (the mean of the middle two for an
// even number of rounds); NaN without rounds.
func (p Paired) Median() float64 { return quantile(p.Ratios(), 0.5) }

// Quartiles are the first and third quartiles of the per-round ratios.
func (p Paired) Quartiles() (q1, q3 float64) {
	rs := p.Ratios()
	return quantile(rs, 0.25), quantile(rs, 0.75)
}

// Range is the least and greatest per-round ratio.
func (p Paired) Range() (lo, hi float64) {
	rs := p.Ratios()
	if len(rs) == 0 {
		return math.NaN(), math.NaN()
	}
	return rs[0], rs[len(rs)-1]
}

// Ops is how many operations each peer ran over all rounds.
func (p Paired) Ops() (engine, ceiling int) {
	for _, r := range p.Rounds {
		engine += r.Engine.N
		ceiling += r.Ceiling.N
	}
	return engine, ceiling
}

// quantile interpolates linearly between the closest ranks of sorted.
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	pos := q * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(sorted)-1)
	return sorted[lo] + (pos-float64(lo))*(sorted[hi]-sorted[lo])
}

// EngineFirst reports whether the engine's slice comes first in round i:
// the order swaps every round (engine, ceiling; ceiling, engine; …), so
// that over two rounds each peer runs first and second once (ABBA).
func EngineFirst(round int) bool { return round%2 == 0 }

// MeasurePaired runs rounds rounds of one row. slice runs one timed slice
// on the engine in-process (engine true) or on the SDK client alone.
func MeasurePaired(op string, rounds int, slice func(engine bool) (Slice, error)) (Paired, error) {
	p := Paired{Op: op}
	for i := range rounds {
		r := PairedRound{EngineFirst: EngineFirst(i)}
		for _, engine := range []bool{r.EngineFirst, !r.EngineFirst} {
			s, err := slice(engine)
			if err != nil {
				return p, fmt.Errorf("%s, round %d: %w", op, i+1, err)
			}
			if engine {
				r.Engine = s
			} else {
				r.Ceiling = s
			}
		}
		p.Rounds = append(p.Rounds, r)
	}
	return p, nil
}

// SliceOps is how many operations make a slice of about target, given
// that n of them took wall; at least minSliceOps.
func SliceOps(n int, wall, target time.Duration) int {
	if wall <= 0 {
		return max(n, minSliceOps)
	}
	return max(int(float64(n)*float64(target)/float64(wall)), minSliceOps)
}

// minSliceOps keeps a slice long enough to amount to a throughput even
// when the calibration ran slow.
const minSliceOps = 16
