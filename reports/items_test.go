package reports

import (
	"testing"

	"github.com/t2sbench/t2sbench/runstore"
)

// TestItemAggCorrect checks that every count of itemAgg takes "correct" as
// EX does (runstore.TrialOutcomes): the verdict is correct and the item did
// not fail. A failed item stored with a correct verdict (a store merged
// from an older version) counts as wrong in EX, the breakdowns and the
// heat map alike.
func TestItemAggCorrect(t *testing.T) {
	t.Parallel()
	s := &system{labels: map[string]QuestionLabels{
		"q1": {Difficulty: "easy", ReasoningTypes: []string{"join"}},
		"q2": {Difficulty: "easy", ReasoningTypes: []string{"join"}},
		"q3": {Difficulty: "easy", ReasoningTypes: []string{"join"}},
	}}
	s.agg = newItemAgg()
	for _, it := range []runstore.Item{
		{QuestionID: "q1", Status: runstore.StatusDone, Verdict: &runstore.Verdict{Correct: true}},
		{QuestionID: "q2", Status: runstore.StatusFailed, Verdict: &runstore.Verdict{Correct: true}},
		{QuestionID: "q3", Status: runstore.StatusDone, Verdict: &runstore.Verdict{Correct: false}},
	} {
		s.agg.add(s, &it, true)
	}
	s.agg.finish()
	// One correct item of three: q1 (q2 failed, q3 is wrong).
	want := hits{k: 1, n: 3}
	for _, tc := range []struct {
		name string
		got  *hits
	}{
		{"all", &s.agg.all},
		{"by level", s.agg.byLevel["easy"]},
		{"by type", s.agg.byType["join"]},
		{"by cell", s.agg.byCell[cellKey{"easy", "join"}]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got == nil || *tc.got != want {
				t.Errorf("got %+v; want %+v", tc.got, want)
			}
		})
	}
	if got := s.done(); got != 3 {
		t.Errorf("done() = %d; want 3", got)
	}
}
