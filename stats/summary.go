package stats

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Group is the accuracy of the questions sharing one label value.
type Group struct {
	Label      string
	N, Correct int
	Acc        float64
	// CI is the Wilson score interval at DefaultLevel.
	CI Interval
}

// AccuracyTable is accuracy broken down by a label (difficulty, reasoning
// type, database, ...), the shape of ReAct-SQL's Table 6.
type AccuracyTable struct {
	Groups  []Group
	Overall Group
}

// NoLabel is the group of questions that have no label.
const NoLabel = "(none)"

// AccuracyBy computes accuracy overall and per label value. correct maps
// question id -> outcome; labels maps question id -> label (questions
// without one form the NoLabel group; labels of ids not in correct are
// ignored). Groups named in order come first, in that order (e.g. "simple",
// "moderate", "challenging"); the others follow sorted by label. The
// overall group is labelled "overall".
func AccuracyBy(correct map[string]bool, labels map[string]string, order []string) (AccuracyTable, error) {
	if len(correct) == 0 {
		return AccuracyTable{}, fmt.Errorf("stats: accuracy: no outcomes")
	}
	byLabel := map[string]*Group{}
	all := Group{Label: "overall"}
	for id, ok := range correct {
		l, has := labels[id]
		if !has || l == "" {
			l = NoLabel
		}
		g := byLabel[l]
		if g == nil {
			g = &Group{Label: l}
			byLabel[l] = g
		}
		g.N++
		all.N++
		if ok {
			g.Correct++
			all.Correct++
		}
	}
	rank := map[string]int{}
	for i, l := range order {
		if _, dup := rank[l]; !dup {
			rank[l] = i
		}
	}
	var t AccuracyTable
	for _, g := range byLabel {
		t.Groups = append(t.Groups, *g)
	}
	slices.SortFunc(t.Groups, func(x, y Group) int {
		rx, okx := rank[x.Label]
		ry, oky := rank[y.Label]
		switch {
		case okx && oky:
			return cmp.Compare(rx, ry)
		case okx:
			return -1
		case oky:
			return 1
		}
		return cmp.Compare(x.Label, y.Label)
	})
	t.Overall = all
	for i := range t.Groups {
		if err := fillGroup(&t.Groups[i]); err != nil {
			return AccuracyTable{}, err
		}
	}
	if err := fillGroup(&t.Overall); err != nil {
		return AccuracyTable{}, err
	}
	return t, nil
}

func fillGroup(g *Group) error {
	g.Acc = float64(g.Correct) / float64(g.N)
	ci, err := Wilson(g.Correct, g.N, DefaultLevel)
	g.CI = ci
	return err
}

// LatencyStats summarises per-question latencies, the shape of ReAct-SQL's
// Table 7 (min, median, mean, max, coefficient of variation, count over a
// threshold). Values are in the unit of the input (seconds in the paper).
type LatencyStats struct {
	Count                  int
	Min, Median, Mean, Max float64
	// Std is the sample standard deviation (n-1 denominator) and CV is
	// Std/Mean.
	Std, CV float64
	// Over counts values strictly greater than Threshold.
	Threshold float64
	Over      int
}

// Latency computes LatencyStats of xs. The median of an even count is the
// mean of the two middle values. CV is 0 for a single value or a zero mean.
// A negative or NaN value is an error naming its index.
func Latency(xs []float64, threshold float64) (LatencyStats, error) {
	if len(xs) == 0 {
		return LatencyStats{}, fmt.Errorf("stats: latency: no values")
	}
	s := LatencyStats{Count: len(xs), Threshold: threshold}
	sum := 0.0
	for i, x := range xs {
		if math.IsNaN(x) || x < 0 || math.IsInf(x, 0) {
			return LatencyStats{}, fmt.Errorf("stats: latency: value %d is %v, want a finite value >= 0", i, x)
		}
		sum += x
		if x > threshold {
			s.Over++
		}
	}
	sorted := slices.Clone(xs)
	slices.Sort(sorted)
	n := len(sorted)
	s.Min, s.Max = sorted[0], sorted[n-1]
	if n%2 == 1 {
		s.Median = sorted[n/2]
	} else {
		s.Median = (sorted[n/2-1] + sorted[n/2]) / 2
	}
	s.Mean = sum / float64(n)
	if n > 1 {
		ss := 0.0
		for _, x := range xs {
			d := x - s.Mean
			ss += d * d
		}
		s.Std = math.Sqrt(ss / float64(n-1))
		if s.Mean > 0 {
			s.CV = s.Std / s.Mean
		}
	}
	return s, nil
}
