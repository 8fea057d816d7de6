package enginebench

import (
	"math"
	"slices"
)

// RunSpread is one row over several paired runs: each run's median
// per-round ratio, in run order.
type RunSpread struct {
	Medians []float64
	// Rounds are each run's rounds, in run order.
	Rounds []int
}

// spreadOf summarizes the row of each run.
func spreadOf(rows []Paired) RunSpread {
	var s RunSpread
	for _, row := range rows {
		s.Medians = append(s.Medians, row.Median())
		s.Rounds = append(s.Rounds, len(row.Rounds))
	}
	return s
}

// Runs is how many runs measured the row.
func (s RunSpread) Runs() int { return len(s.Medians) }

// Median is the median of the run medians, the row's median; NaN without
// runs.
func (s RunSpread) Median() float64 { return quantile(s.sorted(), 0.5) }

// Least is the least run median; NaN without runs.
func (s RunSpread) Least() float64 {
	if len(s.Medians) == 0 {
		return math.NaN()
	}
	return slices.Min(s.Medians)
}

// Spread is the run-to-run spread, the greatest run median less the least;
// known only with two runs or more.
func (s RunSpread) Spread() (spread float64, known bool) {
	if len(s.Medians) < 2 {
		return math.NaN(), false
	}
	return slices.Max(s.Medians) - slices.Min(s.Medians), true
}

func (s RunSpread) sorted() []float64 {
	m := slices.Clone(s.Medians)
	slices.Sort(m)
	return m
}

// Verdict is how a row's median stands against its goal, given the
// run-to-run spread.
type Verdict int

// The verdicts, from worst to best.
const (
	// NotMet: the row's median is under the goal (or there is no run).
	NotMet Verdict = iota
	// MetSpreadUnknown: the median of a single run reaches the goal; with
	// one run the run-to-run spread is unknown.
	MetSpreadUnknown
	// MetWithinSpread: the median reaches the goal, but by no more than
	// the run-to-run spread (or some run's median is under the goal), so
	// another run may well miss it.
	MetWithinSpread
	// MetWithMargin: the median exceeds the goal by more than the
	// run-to-run spread, and every run's median reaches the goal.
	MetWithMargin
)

// String is the verdict as the report words it.
func (v Verdict) String() string {
	switch v {
	case MetWithMargin:
		return "met with margin"
	case MetWithinSpread:
		return "met, but not by more than the run-to-run spread"
	case MetSpreadUnknown:
		return "met; the run-to-run spread is unknown with a single run"
	default:
		return "NOT met"
	}
}

// Judge states the row against goal, on unrounded figures: met with
// margin only when the median exceeds the goal by more than the spread
// and the least run median reaches it too.
func (s RunSpread) Judge(goal float64) Verdict {
	m := s.Median()
	if math.IsNaN(m) || m < goal {
		return NotMet
	}
	spread, known := s.Spread()
	switch {
	case !known:
		return MetSpreadUnknown
	case m-goal > spread && s.Least() >= goal:
		return MetWithMargin
	default:
		return MetWithinSpread
	}
}
