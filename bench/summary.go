package bench

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/t2sbench/t2sbench/metrics"
)

// TrialSummary is the end-of-run line of one trial.
type TrialSummary struct {
	Label string
	// Done, Failed and Pending count the trial's items; Pending needs the
	// item total recorded by Run (else it is 0).
	Done, Failed, Pending int
	Correct               int
	// EX is Correct/Done; CI its 95% Wilson interval.
	EX     float64
	CILo   float64
	CIHi   float64
	Calls  int
	Tokens int
	// CallsPerQuestion is the mean number of model requests per done item.
	CallsPerQuestion float64
	// Baseline is the label of the trial compared against (the first trial
	// on the same benchmark); P the McNemar p-value on the questions both
	// have done, with B and C its discordant counts. Baseline is "" for
	// the first trial of a benchmark; P is -1 when there is no comparison
	// (the trial is the baseline, or the two have no done question in
	// common, e.g. one shard of a run).
	Baseline string
	P        float64
	B, C     int
	Test     string
}

// Summarize computes per-trial EX with a 95% Wilson interval and a
// McNemar test (metrics.McNemar, McNemarAuto: exact below 25 discordant
// questions, else chi-square with continuity correction) of each trial
// against the first trial of the same benchmark.
func Summarize(r *RunData) []TrialSummary {
	out := make([]TrialSummary, 0, len(r.Trials))
	first := map[string]int{}
	outcomes := make([]map[string]bool, len(r.Trials))
	for i, t := range r.Trials {
		s := TrialSummary{Label: t.Label, P: -1}
		m := map[string]bool{}
		for _, it := range t.Items {
			switch it.Status {
			case StatusDone:
				s.Done++
				if it.Verdict != nil && it.Verdict.Correct {
					s.Correct++
				}
				if it.Verdict != nil {
					m[it.QuestionID] = it.Verdict.Correct
				}
			case StatusError:
				s.Failed++
			}
			for _, c := range it.Calls {
				s.Calls++
				s.Tokens += c.PromptTokens + c.CompletionTokens
			}
		}
		if n, ok := r.Totals[t.ID]; ok && n > s.Done+s.Failed {
			s.Pending = n - s.Done - s.Failed
		}
		if s.Done > 0 {
			s.EX = float64(s.Correct) / float64(s.Done)
			s.CallsPerQuestion = float64(s.Calls) / float64(s.Done)
			if iv, err := metrics.Wilson(s.Correct, s.Done, 0.95); err == nil {
				s.CILo, s.CIHi = iv.Lo, iv.Hi
			}
		}
		outcomes[i] = m
		bk := t.Benchmark.Name + "\x00" + t.Benchmark.Split
		if j, ok := first[bk]; !ok {
			first[bk] = i
		} else {
			s.Baseline = r.Trials[j].Label
			if p, err := metrics.Pair(outcomes[j], m, true); err == nil {
				if res, err := metrics.McNemar(p.A, p.B, metrics.McNemarAuto); err == nil {
					s.P, s.B, s.C, s.Test = res.P, res.B, res.C, res.Test
				}
			}
		}
		out = append(out, s)
	}
	return out
}

// WriteSummary prints the summary as an aligned plain-text table. A run of
// the sim backend is titled "simulated model".
func WriteSummary(w io.Writer, r *RunData, rows []TrialSummary) {
	title := r.Meta["name"]
	if title == "" {
		title = r.Dir
	}
	if r.Simulated {
		title += " (simulated model)"
	}
	fmt.Fprintf(w, "%s\n", title)
	width := len("trial")
	for _, s := range rows {
		if len(s.Label) > width {
			width = len(s.Label)
		}
	}
	fmt.Fprintf(w, "%-*s  %6s  %6s  %6s  %7s  %-15s  %9s  %s\n", width, "trial", "done", "failed", "pending", "EX", "95% CI (Wilson)", "calls/q", "McNemar vs baseline")
	for _, s := range rows {
		mc := "(baseline)"
		switch {
		case s.P >= 0:
			mc = fmt.Sprintf("p=%.3g b=%d c=%d %s", s.P, s.B, s.C, s.Test)
		case s.Done == 0:
			mc = "-"
		case s.Baseline != "":
			mc = "- (no done question in common with " + s.Baseline + ")"
		}
		if s.Done == 0 {
			fmt.Fprintf(w, "%-*s  %6d  %6d  %7d  %7s  %-15s  %9s  %s\n", width, s.Label, s.Done, s.Failed, s.Pending, "-", "-", "-", mc)
			continue
		}
		fmt.Fprintf(w, "%-*s  %6d  %6d  %7d  %6.1f%%  [%5.1f, %5.1f]%%  %9.2f  %s\n", width, s.Label, s.Done, s.Failed, s.Pending,
			100*s.EX, 100*s.CILo, 100*s.CIHi, s.CallsPerQuestion, mc)
	}
	var classes []string
	counts := map[string]int{}
	for _, t := range r.Trials {
		for _, it := range t.Items {
			if it.Status == StatusError {
				counts[it.ErrorClass]++
			}
		}
	}
	for c := range counts {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	if len(classes) > 0 {
		parts := make([]string, len(classes))
		for i, c := range classes {
			parts[i] = fmt.Sprintf("%s=%d", c, counts[c])
		}
		fmt.Fprintf(w, "failed items by class: %s (rerun the same command to retry them)\n", strings.Join(parts, ", "))
	}
}
