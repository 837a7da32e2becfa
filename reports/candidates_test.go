package reports

import (
	"testing"

	"github.com/t2sbench/t2sbench/metrics"
	"github.com/t2sbench/t2sbench/runstore"
	"github.com/t2sbench/t2sbench/spec"
)

// TestCandidatesTable: the candidates table holds one row per system whose
// verdicts carry candidate marks. "search" has two questions: q1 with 10
// candidates of which 3 are correct (the first three, one result), q2 with
// 2 wrong ones of different results. By hand (Chen et al. 2021, eq. 1):
// pass@1 = (3/10 + 0)/2 = 15.0%; pass@5 = (1 - C(7,5)/C(10,5) + 0)/2 =
// (11/12)/2 = 45.8%; pass@10 = (1 + 0)/2 = 50.0%. majority@1: q1's first
// candidate is correct, q2's not: 50.0%; majority@5 and @10: the correct
// result holds 3 votes against single ones: 50.0%. "direct" stores no
// candidates and has no row.
func TestCandidatesTable(t *testing.T) {
	ten := make([]metrics.CandidateMark, 10)
	for i := range ten {
		ten[i] = metrics.CandidateMark{Correct: i < 3, Result: "R"}
		if i >= 3 {
			ten[i].Result = string(rune('a' + i))
		}
	}
	item := func(q string, correct bool, marks []metrics.CandidateMark) runstore.Item {
		return runstore.Item{QuestionID: q, Status: runstore.StatusDone, Verdict: &runstore.Verdict{QuestionID: q, Status: "ok", Correct: correct, Candidates: marks}}
	}
	a := runstore.RunTrial{Trial: spec.Trial{ID: "a", Label: "direct", Benchmark: spec.BenchmarkSpec{Name: "mini"}},
		Items: []runstore.Item{item("q1", true, nil), item("q2", false, nil)}}
	b := runstore.RunTrial{Trial: spec.Trial{ID: "b", Label: "search", Benchmark: spec.BenchmarkSpec{Name: "mini"}},
		Items: []runstore.Item{item("q1", true, ten), item("q2", false, []metrics.CandidateMark{{Result: "x"}, {Result: "y"}})}}
	r := &runstore.RunData{Dir: "runs/x", Meta: map[string]string{"name": "x"}, Trials: []runstore.RunTrial{a, b}, Totals: map[string]int{"a": 2, "b": 2}}
	rep, err := Build([]*runstore.RunData{r}, Options{Seed: 1, Resamples: 100})
	if err != nil {
		t.Fatal(err)
	}
	tb := tableByID(t, rep, "candidates")
	if len(tb.Rows) != 1 {
		t.Fatalf("candidates table %+v; want one with one row", tb)
	}
	want := []string{"search", "50.0", "2", "6.00", "15.0", "45.8", "50.0", "50.0", "50.0", "50.0"}
	for i, w := range want {
		if got := tb.Rows[0][i].Text; got != w {
			t.Errorf("column %s = %q; want %q", tb.Columns[i].Name, got, w)
		}
	}
}
