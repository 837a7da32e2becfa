package main

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/t2sbench/t2sbench/compare"
	"github.com/t2sbench/t2sbench/internal/textable"
	"github.com/t2sbench/t2sbench/metrics"
	"github.com/t2sbench/t2sbench/stats"
)

// metricKind is how compare pairs a --metric: 0/1 outcomes (EX, pass@k,
// majority@k: McNemar's test) or real-valued scores (Soft F1, R-VES: the
// sign-flip randomization test).
type metricKind int

const (
	metricEX metricKind = iota
	metricScores
	metricCandidates
)

const compareMetricUsage = "what is compared: ex (execution accuracy); soft-f1 or r-ves (BIRD's Soft F1 and R-VES of verdict files written by eval --metrics soft-f1,r-ves --out: paired bootstrap interval and sign-flip randomization test); pass@K or majority@K (from the candidates a run stored for each question: a question counts when one of its first K candidates is correct, or when the answer they vote is; McNemar's test as for EX)"

// compareMetric is a parsed --metric.
type compareMetric struct {
	// name is the flag's value; label names it in tables ("Soft F1").
	name, label string
	kind        metricKind
	// k and majority select the candidate outcome (metricCandidates).
	k        int
	majority bool
	// rves selects R-VES among the scores.
	rves bool
}

// parseCompareMetric reads --metric.
func parseCompareMetric(s string) (compareMetric, error) {
	switch s {
	case "", "ex":
		return compareMetric{name: "ex", label: "EX", kind: metricEX}, nil
	case "soft-f1":
		return compareMetric{name: s, label: "Soft F1", kind: metricScores}, nil
	case "r-ves":
		return compareMetric{name: s, label: "R-VES", kind: metricScores, rves: true}, nil
	}
	for _, p := range []string{"pass@", "majority@"} {
		if rest, ok := strings.CutPrefix(s, p); ok {
			k, err := strconv.Atoi(rest)
			if err != nil || k < 1 {
				return compareMetric{}, fmt.Errorf("%w: compare: --metric %s: want a k of at least 1 after %q", errUsage, s, p)
			}
			m := compareMetric{name: s, label: fmt.Sprintf("pass@%d", k), kind: metricCandidates, k: k, majority: p == "majority@"}
			if m.majority {
				m.label = fmt.Sprintf("maj@%d", k)
			}
			return m, nil
		}
	}
	return compareMetric{}, fmt.Errorf("%w: compare: --metric %q: want ex, soft-f1, r-ves, pass@K or majority@K", errUsage, s)
}

// outcome is a question's 0/1 outcome under a candidate metric: one of
// the first k candidates correct (metrics.PassedAtK), or the answer the first k
// vote correct (metrics.MajorityAtK).
func (m compareMetric) outcome(marks []metrics.CandidateMark) bool {
	if m.majority {
		return metrics.MajorityAtK(marks, m.k)
	}
	return metrics.PassedAtK(marks, m.k)
}

// apply turns each system's inputs into what the metric compares: the
// scores of a verdict file (every question in EX's denominator must have
// one), or the candidate outcomes replacing EX's. It returns the systems
// compared: under a candidate metric those that stored candidates, the
// others' names in dropped. EX leaves the systems as they are.
func (m compareMetric) apply(systems []compare.System) (kept []compare.System, dropped []string, err error) {
	for i := range systems {
		s := &systems[i]
		switch m.kind {
		case metricScores:
			if s.Run {
				return nil, nil, fmt.Errorf("%w: compare --metric %s: %s is a run directory; %s is scored by eval --metrics %s --out, whose verdict files compare reads", errUsage, m.name, s.Source, m.label, m.name)
			}
			src := s.Inputs.SoftF1
			if m.rves {
				src = s.Inputs.RVES
			}
			sc := map[string]float64{}
			for _, id := range slices.Sorted(maps.Keys(s.Correct[0])) {
				v, ok := src[id]
				if !ok {
					return nil, nil, fmt.Errorf("%w: compare --metric %s: %s: question %q has no %s (write the verdicts with eval --metrics %s --out)", errUsage, m.name, s.Source, id, m.label, m.name)
				}
				sc[id] = v
			}
			s.Inputs.Scores = stats.Scores{0: sc}
		case metricCandidates:
			stored := false
			for seed, corr := range s.Correct {
				out := make(map[string]bool, len(corr))
				for id := range corr {
					marks := s.Inputs.Cands[seed][id]
					stored = stored || len(marks) > 0
					out[id] = m.outcome(marks)
				}
				s.Correct[seed] = out
			}
			if !stored {
				dropped = append(dropped, s.Name)
				continue
			}
		}
		kept = append(kept, *s)
	}
	return kept, dropped, nil
}

// mean is the system's mean of the metric over its seeds and questions:
// the scores' mean, or the share of 0/1 outcomes that are true; NaN for
// none.
func (m compareMetric) mean(s compare.System) (mean float64, n int) {
	sum := 0.0
	if m.kind == metricScores {
		for _, q := range s.Inputs.Scores {
			for _, v := range q {
				sum += v
				n++
			}
		}
	} else {
		for _, q := range s.Correct {
			for _, ok := range q {
				if ok {
					sum++
				}
				n++
			}
		}
	}
	if n == 0 {
		return math.NaN(), 0
	}
	return sum / float64(n), n
}

// writeMetricSystemsTable prints each system's mean of a metric other
// than EX over its (seed, question) pairs.
func writeMetricSystemsTable(w io.Writer, systems []compare.System, m compareMetric) {
	fmt.Fprintf(w, "%s = mean over the questions whose gold runs (every seed), in %%\n\n", m.label)
	tab := textable.New(1, textable.Column{Name: "system"}, textable.Column{Name: "seeds", Align: textable.Right, MinWidth: 5},
		textable.Column{Name: "n", Align: textable.Right, MinWidth: 6}, textable.Column{Name: m.label, Align: textable.Right, MinWidth: 8})
	for _, s := range systems {
		v, n := m.mean(s)
		cell := "-"
		if !math.IsNaN(v) {
			cell = fmt.Sprintf("%.2f", 100*v)
		}
		tab.Row(s.Name, fmt.Sprint(s.Seeds()), fmt.Sprint(n), cell)
	}
	tab.Write(w)
	fmt.Fprintln(w)
}
