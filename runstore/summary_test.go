package runstore

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/t2sbench/t2sbench/metrics"
	"github.com/t2sbench/t2sbench/spec"
)

func TestSummarize(t *testing.T) {
	// Two trials over 10 questions: A right on 0-6, B right on 0-9.
	// Discordant b=0, c=3: exact McNemar P = min(1, 2*0.5^3) = 0.25
	// (binomial CDF by hand). Wilson 95% for 7/10: [0.3968, 0.8922]
	// (statsmodels proportion_confint(7, 10, method="wilson")), tolerance 1e-3.
	r := &RunData{Dir: "d", Meta: map[string]string{"name": "x"}, Simulated: true, Totals: map[string]int{"a": 12}}
	a := RunTrial{Trial: spec.Trial{ID: "a", Label: "A"}}
	b := RunTrial{Trial: spec.Trial{ID: "b", Label: "B"}}
	for i := 0; i < 10; i++ {
		q := string(rune('a' + i))
		a.Items = append(a.Items, Item{QuestionID: q, Status: StatusDone, Verdict: &Verdict{Correct: i < 7}, Calls: []Call{{PromptTokens: 1}}})
		b.Items = append(b.Items, Item{QuestionID: q, Status: StatusDone, Verdict: &Verdict{Correct: true}})
	}
	b.Items = append(b.Items, Item{QuestionID: "y", Status: StatusFailed, ErrorClass: "bad_request", Verdict: &Verdict{Status: "pred_error"}},
		Item{QuestionID: "z", Status: StatusError, ErrorClass: "server_error"})
	r.Trials = []RunTrial{a, b}
	s := Summarize(r)
	if s[0].EX != 0.7 || math.Abs(s[0].CILo-0.3968) > 1e-3 || math.Abs(s[0].CIHi-0.8922) > 1e-3 {
		t.Errorf("A: EX %v CI [%v, %v]; want 0.7 [0.3968, 0.8922]", s[0].EX, s[0].CILo, s[0].CIHi)
	}
	if s[0].Pending != 2 || s[0].P != -1 || s[0].CallsPerQuestion != 1 {
		t.Errorf("A: pending %d P %v calls/q %v; want 2, -1, 1", s[0].Pending, s[0].P, s[0].CallsPerQuestion)
	}
	// B's failed item y counts as wrong: EX = 10/11 (y is not paired:
	// A has no outcome for it); the errored item z is pending.
	if s[1].Baseline != "A" || s[1].B != 0 || s[1].C != 3 || math.Abs(s[1].P-0.25) > 1e-12 || s[1].Failed != 1 ||
		s[1].Attempted != 11 || s[1].EX != 10.0/11 || s[1].Pending != 1 || s[1].Errored != 1 || !s[1].Partial {
		t.Errorf("B: %+v; want baseline A, b=0, c=3, P=0.25, 1 failed, EX 10/11 of 11 attempted, 1 pending (errored), partial", s[1])
	}
	var buf bytes.Buffer
	WriteSummary(&buf, r, s)
	for _, want := range []string{"x (simulated model)", "p=0.250 b=0 c=3 exact", "server_error=1", "bad_request=1", "(partial)"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, buf.String())
		}
	}
}

// TestSummaryNoCommonQuestions is a regression test: in one shard of a run
// a trial may share no done question with the benchmark's first trial; its
// McNemar column used to read "(baseline)" as if it were the baseline. A
// trial with nothing done shows "-" instead of 0.0% with an empty CI.
func TestSummaryNoCommonQuestions(t *testing.T) {
	r := &RunData{Dir: "d", Meta: map[string]string{"name": "x"}}
	a := RunTrial{Trial: spec.Trial{ID: "a", Label: "direct"}, Items: []Item{{QuestionID: "0", Status: StatusDone, Verdict: &Verdict{Correct: true}}}}
	b := RunTrial{Trial: spec.Trial{ID: "b", Label: "cot"}, Items: []Item{{QuestionID: "1", Status: StatusDone, Verdict: &Verdict{Correct: true}}}}
	c := RunTrial{Trial: spec.Trial{ID: "c", Label: "sc"}}
	r.Trials = []RunTrial{a, b, c}
	s := Summarize(r)
	if s[1].Baseline != "direct" || s[1].P != -1 {
		t.Errorf("cot: baseline %q P %v; want direct, -1", s[1].Baseline, s[1].P)
	}
	var buf bytes.Buffer
	WriteSummary(&buf, r, s)
	lines := strings.Split(buf.String(), "\n")
	if len(lines) < 5 {
		t.Fatalf("summary too short:\n%s", buf.String())
	}
	if !strings.Contains(lines[2], "(baseline)") {
		t.Errorf("direct row %q; want (baseline)", lines[2])
	}
	if strings.Contains(lines[3], "(baseline)") || !strings.Contains(lines[3], "no attempted question in common with direct") {
		t.Errorf("cot row %q; want no common questions with direct", lines[3])
	}
	if strings.Contains(lines[4], "0.0%") || strings.Contains(lines[4], "(baseline)") {
		t.Errorf("sc row %q; want dashes for a trial with nothing done", lines[4])
	}
}

func TestExcludedNote(t *testing.T) {
	md := func(n int) map[metrics.Status]int { return map[metrics.Status]int{metrics.StatusMissingDB: n} }
	tests := []struct {
		rows []TrialSummary
		want string
	}{
		{[]TrialSummary{{Label: "a"}, {Label: "b"}}, ""},
		{[]TrialSummary{{Label: "a", Excluded: md(62)}, {Label: "b", Excluded: md(62)}}, "missing_db 62 (each trial)"},
		{[]TrialSummary{{Label: "a", Excluded: md(62)}}, "a: missing_db 62"},
		{[]TrialSummary{{Label: "a", Excluded: md(62)}, {Label: "b"}}, "a: missing_db 62"},
		{[]TrialSummary{{Label: "a", Excluded: md(1)}, {Label: "b", Excluded: md(2)}}, "a: missing_db 1; b: missing_db 2"},
	}
	for _, tt := range tests {
		if got := excludedNote(tt.rows); got != tt.want {
			t.Errorf("excludedNote(%+v) = %q; want %q", tt.rows, got, tt.want)
		}
	}
}

// TestSummaryDeterministicEX: questions whose gold is nondeterministic
// (metrics.Nondeterministic of the verdict's GoldFlags) are left out of
// the second EX, and only those: 10 questions, 2 with a nondeterministic
// gold (one right, one wrong), 1 with a flag that is not nondeterministic
// (group_pick), 6 of the other 8 right. EX = 7/10; deterministic EX = 6/8.
func TestSummaryDeterministicEX(t *testing.T) {
	r := &RunData{Dir: "d", Meta: map[string]string{"name": "x"}}
	a := RunTrial{Trial: spec.Trial{ID: "a", Label: "A"}}
	flags := map[int][]string{0: {metrics.FlagLimitTie}, 1: {"static:RAND()"}, 2: {metrics.FlagGroupPick}}
	for i := 0; i < 10; i++ {
		correct := i == 0 || (i >= 2 && i < 8)
		a.Items = append(a.Items, Item{QuestionID: string(rune('a' + i)), Status: StatusDone,
			Verdict: &Verdict{Status: "ok", Correct: correct, GoldFlags: flags[i]}})
	}
	r.Trials = []RunTrial{a}
	s := Summarize(r)
	if s[0].EX != 0.7 || s[0].Nondet != 2 || s[0].DetCorrect != 6 || s[0].DetAttempted != 8 || s[0].DetEX != 0.75 {
		t.Errorf("got EX %v nondet %d det %d/%d = %v; want 0.7, 2, 6/8 = 0.75", s[0].EX, s[0].Nondet, s[0].DetCorrect, s[0].DetAttempted, s[0].DetEX)
	}
	var buf bytes.Buffer
	WriteSummary(&buf, r, s)
	if !strings.Contains(buf.String(), "EX over deterministic golds only") || !strings.Contains(buf.String(), "75.0%  (6 / 8; 2 nondeterministic left out)") {
		t.Errorf("summary lacks the deterministic EX line:\n%s", buf.String())
	}
	// Without nondeterministic golds the line is not printed.
	a.Items[0].Verdict.GoldFlags, a.Items[1].Verdict.GoldFlags = nil, nil
	r.Trials = []RunTrial{a}
	buf.Reset()
	WriteSummary(&buf, r, Summarize(r))
	if strings.Contains(buf.String(), "deterministic golds") {
		t.Errorf("summary prints a deterministic EX with no nondeterministic gold:\n%s", buf.String())
	}
}

// TestSummaryWarnings: the comparison's warnings are printed under the
// table, not dropped. B and C answer the same questions right as A (no
// discordant question: McNemar's P is 1 and the test and the bootstrap
// interval warn); D differs from A on one question and has no warning. A
// warning shared by several trials is one line naming them.
func TestSummaryWarnings(t *testing.T) {
	r := &RunData{Dir: "d", Meta: map[string]string{"name": "x"}}
	for _, tr := range []struct {
		label string
		right int
	}{{"A", 3}, {"B", 3}, {"C", 3}, {"D", 4}} {
		rt := RunTrial{Trial: spec.Trial{ID: tr.label, Label: tr.label}}
		for i := range 6 {
			rt.Items = append(rt.Items, Item{QuestionID: string(rune('a' + i)), Status: StatusDone, Verdict: &Verdict{Correct: i < tr.right}})
		}
		r.Trials = append(r.Trials, rt)
	}
	s := Summarize(r)
	// One warning of no discordant question for B and C: the test's; the
	// interval's repeat of it is left out.
	for i, want := range []int{0, 1, 1, 0} {
		if len(s[i].Warnings) != want {
			t.Errorf("%s: got warnings %q; want %d", s[i].Label, s[i].Warnings, want)
		}
	}
	if s[1].P != 1 || s[1].B != 0 || s[1].C != 0 {
		t.Errorf("B: got P %v b=%d c=%d; want P 1 (no discordant question), b=0, c=0", s[1].P, s[1].B, s[1].C)
	}
	var buf bytes.Buffer
	WriteSummary(&buf, r, s)
	out := buf.String()
	if n := strings.Count(out, "warning: "); n != 1 || !strings.Contains(out, "warning: B, C: stats: mcnemar: no discordant questions") {
		t.Errorf("got %d warning lines; want one, \"warning: B, C: stats: mcnemar: no discordant questions ...\":\n%s", n, out)
	}
	if !strings.Contains(out, "p=1.000 b=0 c=0 exact") || !strings.Contains(out, "p=1.000 b=0 c=1 exact") {
		t.Errorf("summary lacks the tests of B and D:\n%s", out)
	}
}

// TestSummaryOnCommon: a comparison that pairs fewer questions than the
// trial or any trial of its baseline attempted says so ("on N common")
// and the note under the table explains it. direct (seeds 0 and 1)
// attempted q0-q2 under seed 0 and q0-q1 under seed 1; cot q0-q1 under
// both: the pairing keeps q0 and q1, the questions both have under every
// seed, so each cot row pairs 2 of the baseline's 3.
func TestSummaryOnCommon(t *testing.T) {
	r := &RunData{Dir: "d", Meta: map[string]string{"name": "x"}}
	add := func(entry int, name string, seed int64, questions int) {
		id := &spec.Identity{Name: name, Seed: true}
		rt := RunTrial{Trial: spec.Trial{ID: name + id.Label("mini", seed), Runner: name, Entry: entry, Seed: seed, Identity: id,
			Benchmark: spec.BenchmarkSpec{Name: "mini"}, Label: id.Label("mini", seed)}}
		for q := range questions {
			rt.Items = append(rt.Items, Item{QuestionID: "q" + string(rune('0'+q)), Status: StatusDone, Verdict: &Verdict{Correct: q%2 == 0}})
		}
		r.Trials = append(r.Trials, rt)
	}
	add(0, "direct", 0, 3)
	add(0, "direct", 1, 2)
	add(1, "cot", 0, 2)
	add(1, "cot", 1, 2)
	s := Summarize(r)
	for _, i := range []int{2, 3} {
		if s[i].Baseline != "direct" || s[i].Paired != 2 || s[i].Attempted != 2 {
			t.Errorf("%s: baseline %q paired %d attempted %d; want direct, 2, 2", s[i].Label, s[i].Baseline, s[i].Paired, s[i].Attempted)
		}
	}
	var buf bytes.Buffer
	WriteSummary(&buf, r, s)
	lines := strings.Split(buf.String(), "\n")
	for i, l := range lines[2:6] {
		want := i >= 2 // the rows of cot
		if got := strings.HasSuffix(l, " on 2 common"); got != want {
			t.Errorf("row %q: ends with \"on 2 common\" %v; want %v", l, got, want)
		}
	}
	if !strings.Contains(buf.String(), "on N common: the trial and its baseline attempted different questions") {
		t.Errorf("summary lacks the note on N common:\n%s", buf.String())
	}
}

// TestOutcomeAccSummary: OutcomeAcc.Summary of a trial's streamed items
// (the viewer's row) is Summarize's row without the comparisons (no
// baseline, P -1), on two systems of two seeds each, the second compared
// with the first.
func TestOutcomeAccSummary(t *testing.T) {
	r := &RunData{Dir: "d", Meta: map[string]string{"name": "x"}}
	for _, tr := range []struct {
		entry int
		name  string
		seed  int64
		right int
	}{{0, "direct", 0, 2}, {0, "direct", 1, 3}, {1, "cot", 0, 4}, {1, "cot", 1, 1}} {
		id := &spec.Identity{Name: tr.name, Seed: true}
		rt := RunTrial{Trial: spec.Trial{ID: id.Label("mini", tr.seed), Runner: tr.name, Entry: tr.entry, Seed: tr.seed, Identity: id,
			Benchmark: spec.BenchmarkSpec{Name: "mini"}, Label: id.Label("mini", tr.seed)}}
		for q := range 5 {
			rt.Items = append(rt.Items, Item{QuestionID: string(rune('a' + q)), Status: StatusDone, Verdict: &Verdict{Correct: q < tr.right}})
		}
		r.Trials = append(r.Trials, rt)
	}
	full := Summarize(r)
	var rows []TrialSummary
	for _, tr := range r.Trials {
		a := NewOutcomeAcc(true)
		for i := range tr.Items {
			a.Add(&tr.Items[i])
		}
		rows = append(rows, a.Summary(tr.Label, a.Outcomes(r.Totals[tr.ID])))
	}
	if full[2].Baseline != "direct" || full[2].P < 0 {
		t.Fatalf("Summarize: cot seed=0 baseline %q P %v; want direct and a p-value", full[2].Baseline, full[2].P)
	}
	for i := range full {
		t.Run(full[i].Label, func(t *testing.T) {
			want := full[i]
			want.Baseline, want.P, want.PHolm, want.B, want.C, want.Test, want.Seeds = "", -1, 0, 0, 0, "", 0
			want.Delta, want.DeltaLo, want.DeltaHi, want.Paired, want.Warnings, want.cmp, want.baseAttempted = 0, 0, 0, 0, nil, nil, 0
			if !reflect.DeepEqual(rows[i], want) {
				t.Errorf("got %+v; want %+v", rows[i], want)
			}
		})
	}
}
