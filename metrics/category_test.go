package metrics

import (
	"reflect"
	"testing"
)

// TestSummarizeByCategory checks EX per category on hand-counted
// verdicts: a question counts under each of its categories, a question
// whose gold does not run is counted but not attempted, one without a
// category is left out.
func TestSummarizeByCategory(t *testing.T) {
	vs := []Verdict{
		{QuestionID: "a", Status: StatusOK, Correct: true},
		{QuestionID: "b", Status: StatusOK, Correct: false},
		{QuestionID: "c", Status: StatusGoldError},
		{QuestionID: "d", Status: StatusOK, Correct: true},
		{QuestionID: "e", Status: StatusOK, Correct: true},
	}
	cats := map[string][]string{"a": {"physical"}, "b": {"physical", "hypothetical"}, "c": {"hypothetical"}, "d": {"hypothetical"}}
	names, by := SummarizeByCategory(vs, func(v Verdict) []string { return cats[v.QuestionID] })
	if want := []string{"hypothetical", "physical"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("categories = %v; want %v", names, want)
	}
	for _, c := range []struct {
		cat                      string
		total, runnable, correct int
		ex                       float64
	}{
		// physical: a correct, b wrong: 1 / 2.
		{"physical", 2, 2, 1, 0.5},
		// hypothetical: b wrong, c gold_error (not attempted), d correct: 1 / 2.
		{"hypothetical", 3, 2, 1, 0.5},
	} {
		t.Run(c.cat, func(t *testing.T) {
			g := by[c.cat]
			if g.Total != c.total || g.Runnable != c.runnable || g.Correct != c.correct || g.EX != c.ex {
				t.Errorf("got total %d, attempted %d, correct %d, EX %v; want %d, %d, %d, %v", g.Total, g.Runnable, g.Correct, g.EX, c.total, c.runnable, c.correct, c.ex)
			}
		})
	}
}

// TestPriceCost checks Price.Cost against a hand computation: 2,000
// prompt tokens at 2.5 USD per million and 500 completion tokens at 10
// USD per million cost 0.005 + 0.005 = 0.01 USD.
func TestPriceCost(t *testing.T) {
	got := Price{PromptPerM: 2.5, CompletionPerM: 10}.Cost(2000, 500)
	if d := got - 0.01; d > 1e-15 || d < -1e-15 {
		t.Errorf("Cost = %v; want 0.01", got)
	}
}
