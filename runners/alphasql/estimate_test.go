package alphasql

import (
	"math"
	"testing"

	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/mcts"
)

// TestEstimateCalls checks the parts of the estimate that follow from
// the parameters: the keyword request, the revision rounds' geometric
// sum, and that removing actions shrinks the search.
func TestEstimateCalls(t *testing.T) {
	full := mustEstimate(t, nil)[runners.RoleReason]
	noKW := mustEstimate(t, runners.Params{"value_retrieval": false})[runners.RoleReason]
	if math.Abs(full-noKW-1) > 1e-9 {
		t.Errorf("with - without value retrieval = %g; want 1 (the keyword request)", full-noKW)
	}
	// One revision round allowed: no extra rounds, so the difference to
	// the default is E[A6 children] * sum_{j=1}^{9} 0.2^j (with no known
	// accuracy every A6 request makes one child).
	one := mustEstimate(t, runners.Params{"n_revision": 1})[runners.RoleReason]
	est, err := mcts.EstimateSearch(mcts.SearchModel{Table: Transitions, Terminal: A7, Free: map[mcts.Action]bool{A7: true},
		Distinct: func(a mcts.Action, k int) float64 {
			if a == A1 {
				return float64(k)
			}
			return 1
		}}, DefaultRollouts, DefaultExpansion, DefaultC, estimateRuns)
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for j, p := 1, 1.0; j < DefaultRevision; j++ {
		p *= EstimateInvalidRate
		sum += p
	}
	if want := est.Children[A6] * sum; math.Abs(full-one-want) > 1e-9 {
		t.Errorf("revision rounds = %g; want %g", full-one, want)
	}
	if fewer := mustEstimate(t, runners.Params{"disable_actions": []any{"A1", "A2", "A3", "A4"}})[runners.RoleReason]; fewer >= full {
		t.Errorf("without A1-A4: %g; want fewer than %g", fewer, full)
	}
	// A model known to be always right answers like one assumed to
	// repeat itself: DistinctAnswers(1, k) = 1.
	r, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	if sure := r.(*Runner).EstimateCalls(runners.ModelPrior{Accuracy: 1, Known: true})[runners.RoleReason]; sure != full {
		t.Errorf("accuracy 1: %g; want %g, as with no known accuracy", sure, full)
	}
	// At temperature 0 every action's samples coincide (one child per
	// request), whatever the accuracy.
	one1 := func(mcts.Action, int) float64 { return 1 }
	est0, err := mcts.EstimateSearch(mcts.SearchModel{Table: Transitions, Terminal: A7, Free: map[mcts.Action]bool{A7: true}, Distinct: one1},
		DefaultRollouts, DefaultExpansion, DefaultC, estimateRuns)
	if err != nil {
		t.Fatal(err)
	}
	r, err = New(runners.Params{"temperature": 0})
	if err != nil {
		t.Fatal(err)
	}
	want0 := 1 + est0.Requests + est0.Terminals + est0.Children[A6]*sum
	if got := r.(*Runner).EstimateCalls(runners.ModelPrior{Accuracy: 0.6, Known: true})[runners.RoleReason]; math.Abs(got-want0) > 1e-9 {
		t.Errorf("temperature 0: %g; want %g (one child per request)", got, want0)
	}
}

func mustEstimate(t *testing.T, p runners.Params) map[string]float64 {
	t.Helper()
	r, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	return r.(*Runner).EstimateCalls(runners.ModelPrior{})
}
