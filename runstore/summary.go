package runstore

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/t2sbench/t2sbench/internal/textable"
	"github.com/t2sbench/t2sbench/metrics"
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/spec"
	"github.com/t2sbench/t2sbench/stats"
)

// Outcomes are one trial's per-question outcomes on EX's one denominator
// (metrics.GoldRuns): every question whose gold runs and whose item is
// finished, done or failed. A failed item (StatusFailed) counts as wrong.
// Questions whose gold does not run are counted in Tally.Excluded and are
// in none of the maps.
type Outcomes struct {
	// Correct maps question id to its outcome; failed items are false.
	Correct map[string]bool
	// Failed holds the question ids of failed items (a subset of Correct's
	// keys).
	Failed map[string]bool
	// DBs maps question id to its verdict's database id.
	DBs map[string]string
	// Candidates maps question id to its verdict's candidate marks
	// (metrics.Verdict.Candidates), for the questions in Correct whose
	// verdict carries some; nil when none does.
	Candidates map[string][]metrics.CandidateMark
	// Tally counts the same questions (and the excluded ones by reason).
	Tally metrics.Tally
	// Errored counts items left by an infrastructure error; Pending counts
	// every item without a finished record (Errored included), out of the
	// total the run recorded (0 when unknown).
	Errored, Pending int
}

// Partial reports whether some items are still pending, so that EX is
// over a part of the trial only.
func (o Outcomes) Partial() bool { return o.Pending > 0 }

// TrialOutcomes computes the outcomes of a trial whose run had total items
// (0: unknown, then only errored items are pending).
func TrialOutcomes(t *RunTrial, total int) Outcomes {
	a := NewOutcomeAcc(true)
	for i := range t.Items {
		a.Add(&t.Items[i])
	}
	return a.Outcomes(total)
}

// OutcomeAcc accumulates a trial's Outcomes one item at a time, in any
// order, for a reader that streams the items (RunData.EachItem) instead of
// holding them: Outcomes then equals TrialOutcomes over the same items. It
// keeps Correct, the outcomes comparisons pair; with full false Failed,
// DBs and Candidates stay empty.
type OutcomeAcc struct {
	o        Outcomes
	full     bool
	finished int
	done     int
}

// NewOutcomeAcc returns an empty accumulator. With full false the
// outcomes keep Correct, the tally and the counts only: Failed, DBs and
// Candidates stay empty.
func NewOutcomeAcc(full bool) *OutcomeAcc {
	a := &OutcomeAcc{full: full, o: Outcomes{Correct: map[string]bool{}}}
	if full {
		a.o.Failed, a.o.DBs = map[string]bool{}, map[string]string{}
	}
	return a
}

// Add counts one item of the trial and reports whether it is in EX's
// denominator (a key of Outcomes.Correct: done or failed, gold runs).
func (a *OutcomeAcc) Add(it *Item) bool {
	o := &a.o
	switch it.Status {
	case StatusDone:
		a.done++
		a.finished++
	case StatusFailed:
		a.finished++
	case StatusError:
		o.Errored++
		return false
	default:
		return false
	}
	failed := it.Status == StatusFailed
	st, correct, db := metrics.Status(""), false, ""
	var flags []string
	if it.Verdict != nil {
		st, correct, db, flags = metrics.Status(it.Verdict.Status), it.Verdict.Correct && !failed, it.Verdict.DBID, it.Verdict.GoldFlags
	}
	o.Tally.AddFlagged(st, correct, failed, flags)
	if !metrics.GoldRuns(st) {
		return false
	}
	o.Correct[it.QuestionID] = correct
	if !a.full {
		return true
	}
	if failed {
		o.Failed[it.QuestionID] = true
	}
	if db != "" {
		o.DBs[it.QuestionID] = db
	}
	if it.Verdict != nil && len(it.Verdict.Candidates) > 0 {
		if o.Candidates == nil {
			o.Candidates = map[string][]metrics.CandidateMark{}
		}
		o.Candidates[it.QuestionID] = it.Verdict.Candidates
	}
	return true
}

// Outcomes returns the outcomes of the items added, of a trial whose run
// had total items (0: unknown).
func (a *OutcomeAcc) Outcomes(total int) Outcomes {
	o := a.o
	o.Pending = o.Errored
	if total > a.finished {
		o.Pending = total - a.finished
	}
	return o
}

// TrialSummary is the end-of-run line of one trial.
type TrialSummary struct {
	Label string `json:"label"`
	// Done counts items scored normally, Failed items whose runner failed
	// permanently (counted wrong), Pending items not yet run or left by an
	// infrastructure error (Errored of them), out of the item total
	// recorded by Run.
	Done    int `json:"done"`
	Failed  int `json:"failed"`
	Pending int `json:"pending"`
	Errored int `json:"errored"`
	// Attempted counts the done and failed items whose gold runs, EX's
	// one denominator; Excluded those whose gold does not run, by status.
	Attempted int                    `json:"attempted"`
	Correct   int                    `json:"correct"`
	Excluded  map[metrics.Status]int `json:"excluded,omitempty"`
	// Nondet counts the attempted questions whose gold is
	// nondeterministic (their golds ran beside each prediction); DetEX is
	// EX over the others, DetCorrect of DetAttempted.
	Nondet       int     `json:"nondeterministic,omitempty"`
	DetCorrect   int     `json:"det_correct,omitempty"`
	DetAttempted int     `json:"det_attempted,omitempty"`
	DetEX        float64 `json:"det_ex,omitempty"`
	// EX is Correct/Attempted; CI its 95% Wilson interval. Partial is
	// true when items are pending: EX is then over the attempted part.
	EX      float64 `json:"ex"`
	CILo    float64 `json:"ci_lo"`
	CIHi    float64 `json:"ci_hi"`
	Partial bool    `json:"partial"`
	Calls   int     `json:"calls"`
	Tokens  int     `json:"tokens"`
	// CallsPerQuestion is the mean number of model requests per finished
	// (done or failed) item.
	CallsPerQuestion float64 `json:"calls_per_question"`
	// Baseline is the label of the system the trial's system is compared
	// with: its family's baseline (PlanFamilies: the first system of the
	// benchmark, or a sweep's point at the runner's paper default). The
	// comparison pools the seeds of both systems on the questions both
	// have attempted under every seed (stats.CompareFamily with the default
	// bootstrap seed): Delta is the EX difference, DeltaLo and DeltaHi its
	// 95% bootstrap interval, P the test's p-value (Test: McNemar's with
	// one seed, the sign-flip test with several) and PHolm P adjusted
	// within the family, B and C the discordant (seed, question) pairs,
	// Seeds the seeds pooled. Baseline is "" for a baseline and for a
	// system compared with nothing; P is -1 when there is no comparison
	// (the trial's system is a baseline, or the two have no attempted
	// question in common, e.g. one shard of a run, or were run under
	// different seeds: SeedsDiffer).
	Baseline    string  `json:"baseline,omitempty"`
	P           float64 `json:"p"`
	PHolm       float64 `json:"p_holm"`
	B           int     `json:"b"`
	C           int     `json:"c"`
	Test        string  `json:"test,omitempty"`
	Seeds       int     `json:"seeds,omitempty"`
	Delta       float64 `json:"delta"`
	DeltaLo     float64 `json:"delta_ci_lo"`
	DeltaHi     float64 `json:"delta_ci_hi"`
	SeedsDiffer bool    `json:"seeds_differ,omitempty"`
	// Paired is the number of questions the comparison pairs: those the
	// trial's system and its baseline both attempted (under every seed).
	// Fewer than either's Attempted means their EX is over different
	// questions.
	Paired int `json:"paired,omitempty"`
	// Warnings are the comparison's non-fatal problems (e.g. no
	// discordant question), printed under the summary table.
	Warnings []string `json:"warnings,omitempty"`
	// cmp is the comparison the fields above copy, which WriteSummary
	// prints; nil when there is none. baseAttempted is the most questions
	// a trial of the baseline attempted.
	cmp           *stats.Comparison
	baseAttempted int
}

// Summarize computes per-trial EX over the attempted questions (see
// TrialOutcomes) with a 95% Wilson interval, and the comparison of each
// trial's system with its baseline (compareTrials).
func Summarize(r *RunData) []TrialSummary {
	out, outcomes := summarizeTrials(r)
	compareTrials(r.Trials, outcomes, out)
	return out
}

// summarizeTrials returns the rows of Summarize before the comparisons,
// with the trials' outcome maps.
func summarizeTrials(r *RunData) ([]TrialSummary, []map[string]bool) {
	out := make([]TrialSummary, 0, len(r.Trials))
	outcomes := make([]map[string]bool, len(r.Trials))
	for i := range r.Trials {
		t := &r.Trials[i]
		a := NewOutcomeAcc(true)
		calls, tokens := 0, 0
		for j := range t.Items {
			a.Add(&t.Items[j])
			for _, c := range t.Items[j].Calls {
				calls++
				tokens += c.PromptTokens + c.CompletionTokens
			}
		}
		o := a.Outcomes(r.Totals[t.ID])
		out = append(out, trialSummary(t.Label, a, o, calls, tokens))
		outcomes[i] = o.Correct
	}
	return out, outcomes
}

// compareTrials sets in rows the comparison of every trial's system
// (Systems: its seeds are replicates) with its family's baseline:
// PlanFamilies with the runners' paper defaults, then stats.CompareFamily
// on the questions both systems have attempted under every seed, with the
// default bootstrap (stats.DefaultSeed, stats.DefaultResamples, 95%).
// outcomes are the trials' outcome maps.
func compareTrials(trials []RunTrial, outcomes []map[string]bool, rows []TrialSummary) {
	systems := Systems(trials)
	refs := make([]SystemRef, len(systems))
	arms := make([]stats.Arm, len(systems))
	for i, sys := range systems {
		refs[i] = sys.Ref(trials)
		arms[i] = stats.Arm{Key: sys.Label, Outcomes: sys.Replicates(outcomes)}
	}
	cmp, err := stats.CompareFamilies(PlanFamilies(refs, "", runners.PaperDefaults()), arms, stats.FamilyOptions{Intersect: true})
	if err != nil {
		return
	}
	for si, sc := range cmp {
		baseAttempted := 0
		for _, ti := range systems[sc.Base].Trials {
			baseAttempted = max(baseAttempted, rows[ti].Attempted)
		}
		for _, ti := range systems[si].Trials {
			s := &rows[ti]
			s.Baseline = systems[sc.Base].Label
			if sc.Err != nil {
				s.SeedsDiffer = errors.Is(sc.Err, stats.ErrSeedsDiffer)
				continue
			}
			c := sc.Comparison
			s.P, s.PHolm, s.B, s.C, s.Test, s.Seeds, s.Warnings = c.P, c.PAdj, c.B, c.C, c.Test, c.Seeds, c.Warnings
			s.Delta, s.DeltaLo, s.DeltaHi, s.Paired = c.Delta, c.CI.Lo, c.CI.Hi, c.N
			s.cmp, s.baseAttempted = c, baseAttempted
		}
	}
}

// trialSummary is the summary row of a trial from its accumulated
// outcomes and the totals of its items' calls.
func trialSummary(label string, a *OutcomeAcc, o Outcomes, calls, tokens int) TrialSummary {
	s := TrialSummary{Label: label, P: -1, Pending: o.Pending, Errored: o.Errored, Done: a.done, Calls: calls, Tokens: tokens,
		Attempted: o.Tally.Attempted, Correct: o.Tally.Correct, Excluded: o.Tally.Excluded, Partial: o.Partial()}
	// Failed counts every failed item, also one whose gold does not
	// run (Tally.Failed counts only attempted ones).
	s.Failed = a.finished - a.done
	if a.finished > 0 {
		s.CallsPerQuestion = float64(s.Calls) / float64(a.finished)
	}
	s.EX = o.Tally.EX()
	if s.Attempted > 0 {
		if iv, err := stats.Wilson(s.Correct, s.Attempted, 0.95); err == nil {
			s.CILo, s.CIHi = iv.Lo, iv.Hi
		}
	} else {
		s.EX = 0
	}
	if o.Tally.Nondet > 0 {
		s.Nondet = o.Tally.Nondet
		s.DetEX, s.DetCorrect, s.DetAttempted = o.Tally.DeterministicEX()
		if s.DetAttempted == 0 {
			s.DetEX = 0
		}
	}
	return s
}

// TitleNote returns what a title of runs says after their names, with a
// leading space: "(simulated model)" when one of them ran on the sim
// backend, followed by the profiles they ran through (SpecProfile, each
// once, in the runs' order), as in "(simulated model, quick profile:
// n_rollout 4 (was 32), limit 12)"; "" when neither. The run summary, the
// report's title and captions and the viewer's title end in it.
func TitleNote(runs ...*RunData) string {
	var notes []string
	simulated := false
	for _, r := range runs {
		simulated = simulated || r.Simulated
		if p := spec.SpecProfile(r.Meta[MetaSpec]); p != "" && !slices.Contains(notes, p) {
			notes = append(notes, p)
		}
	}
	if simulated {
		notes = append([]string{"simulated model"}, notes...)
	}
	if len(notes) == 0 {
		return ""
	}
	return " (" + strings.Join(notes, ", ") + ")"
}

// WriteSummary prints the summary as an aligned plain-text table, titled
// by the run's name and TitleNote. EX is correct / attempted
// (questions whose gold runs, failed items counted wrong); a trial with
// pending items has its EX marked "(partial)".
func WriteSummary(w io.Writer, r *RunData, rows []TrialSummary) {
	title := r.Meta["name"]
	if title == "" {
		title = r.Dir
	}
	fmt.Fprintf(w, "%s%s\n", title, TitleNote(r))
	tab := textable.New(2, textable.Column{Name: "trial"},
		textable.Column{Name: "done", Align: textable.Right, MinWidth: 6}, textable.Column{Name: "failed", Align: textable.Right, MinWidth: 6},
		textable.Column{Name: "pending", Align: textable.Right, MinWidth: 7}, textable.Column{Name: "attempted", Align: textable.Right, MinWidth: 9},
		textable.Column{Name: "EX", Align: textable.Right, MinWidth: 7}, textable.Column{Name: "95% CI (Wilson)", MinWidth: 15},
		textable.Column{Name: "calls/q", Align: textable.Right, MinWidth: 9}, textable.Column{Name: "vs baseline: test, EX difference (95% CI), Holm p"})
	partial, unpaired := false, false
	bases := map[string]bool{}
	for _, s := range rows {
		if s.Baseline != "" {
			bases[s.Baseline] = true
		}
	}
	for _, s := range rows {
		mc := "(baseline)"
		switch {
		case s.cmp != nil:
			mc = s.cmp.FormatLine(1)
			if len(bases) > 1 {
				mc = "vs " + s.Baseline + ": " + mc
			}
			if s.Paired < s.Attempted || s.Paired < s.baseAttempted {
				unpaired = true
				mc += fmt.Sprintf(" on %d common", s.Paired)
			}
		case s.Attempted == 0:
			mc = "-"
		case s.SeedsDiffer:
			mc = "- (not run under the seeds of " + s.Baseline + ")"
		case s.Baseline != "":
			mc = "- (no attempted question in common with " + s.Baseline + ")"
		}
		counts := []string{s.Label, fmt.Sprint(s.Done), fmt.Sprint(s.Failed), fmt.Sprint(s.Pending), fmt.Sprint(s.Attempted)}
		if s.Attempted == 0 {
			tab.Row(append(counts, "-", "-", "-", mc)...)
			continue
		}
		if s.Partial {
			partial = true
			mc += "  (partial)"
		}
		tab.Row(append(counts, fmt.Sprintf("%.1f%%", 100*s.EX), fmt.Sprintf("[%5.1f, %5.1f]%%", 100*s.CILo, 100*s.CIHi),
			fmt.Sprintf("%.2f", s.CallsPerQuestion), mc)...)
	}
	tab.Write(w)
	fmt.Fprintln(w, "EX = correct / attempted: questions whose gold runs, failed items counted wrong.")
	if txt := excludedNote(rows); txt != "" {
		fmt.Fprintf(w, "not attempted, gold does not run: %s\n", txt)
	}
	if partial {
		fmt.Fprintln(w, "(partial): the trial has pending items; its EX is over the items finished so far.")
	}
	if unpaired {
		fmt.Fprintln(w, "on N common: the trial and its baseline attempted different questions; the comparison pairs the N both attempted, each EX is over its own.")
	}
	writeWarnings(w, rows)
	writeDeterministic(w, rows, tab.Widths()[0])
	failed, errored := r.FailedByClass, r.ErroredByClass
	if failed == nil && errored == nil {
		r.countClasses()
		failed, errored = r.FailedByClass, r.ErroredByClass
	}
	if len(failed) > 0 {
		fmt.Fprintf(w, "failed items by class: %s (counted wrong; never retried)\n", classCounts(failed))
	}
	if len(errored) > 0 {
		fmt.Fprintf(w, "pending after an infrastructure error, by class: %s (a rerun retries those its --limit and --shard select)\n", classCounts(errored))
	}
	for _, l := range r.Integrity.Lines() {
		fmt.Fprintf(w, "damaged store entries: %s\n", l)
	}
	for _, l := range r.BadCounts {
		fmt.Fprintf(w, "warning: %s\n", l)
	}
	writeFailures(w, r)
}

// writeWarnings prints the comparisons' warnings, one line per distinct
// warning naming the trials that have it: "warning: a, b: TEXT".
func writeWarnings(w io.Writer, rows []TrialSummary) {
	var texts []string
	who := map[string][]string{}
	for _, s := range rows {
		for _, warn := range s.Warnings {
			if _, ok := who[warn]; !ok {
				texts = append(texts, warn)
			}
			who[warn] = append(who[warn], s.Label)
		}
	}
	for _, t := range texts {
		fmt.Fprintf(w, "warning: %s: %s\n", strings.Join(who[t], ", "), t)
	}
}

// excludedNote lists the questions whose gold does not run: once when
// every trial has the same ("missing_db 62 (each trial)"), else per trial.
func excludedNote(rows []TrialSummary) string {
	var parts []string
	same := true
	first := ""
	for i, s := range rows {
		txt := metrics.ExcludedText(s.Excluded)
		if i == 0 {
			first = txt
		} else if txt != first {
			same = false
		}
		if txt != "" {
			parts = append(parts, s.Label+": "+txt)
		}
	}
	switch {
	case len(parts) == 0:
		return ""
	case same && len(rows) > 1:
		return first + " (each trial)"
	}
	return strings.Join(parts, "; ")
}

func classCounts(counts map[string]int) string {
	classes := make([]string, 0, len(counts))
	for c := range counts {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	parts := make([]string, len(classes))
	for i, c := range classes {
		parts[i] = fmt.Sprintf("%s=%d", c, counts[c])
	}
	return strings.Join(parts, ", ")
}

// writeDeterministic prints, when some trial has attempted questions whose
// gold is nondeterministic, EX over the deterministic golds only beside
// the EX of the table.
func writeDeterministic(w io.Writer, rows []TrialSummary, width int) {
	has := false
	for _, s := range rows {
		has = has || s.Nondet > 0
	}
	if !has {
		return
	}
	fmt.Fprintln(w, "EX over deterministic golds only (nondeterministic golds: RAND()/NOW(), ties at a LIMIT, ...; they ran beside each prediction, as the official scorers run them):")
	tab := textable.New(2, textable.Column{MinWidth: width}, textable.Column{Align: textable.Right, MinWidth: 7}, textable.Column{})
	tab.Indent, tab.NoHeader = 2, true
	for _, s := range rows {
		switch {
		case s.Nondet == 0:
			tab.Row(s.Label, fmt.Sprintf("%.1f%%", 100*s.EX), "(no nondeterministic gold)")
		case s.DetAttempted == 0:
			tab.Row(s.Label, "-", fmt.Sprintf("(0 of %d attempted questions have a deterministic gold)", s.Attempted))
		default:
			tab.Row(s.Label, fmt.Sprintf("%.1f%%", 100*s.DetEX), fmt.Sprintf("(%d / %d; %d nondeterministic left out)", s.DetCorrect, s.DetAttempted, s.Nondet))
		}
	}
	tab.Write(w)
}
