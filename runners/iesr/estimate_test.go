package iesr

import (
	"testing"

	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/mcts"
)

// TestEstimateCalls checks the parts of the estimate that follow from the
// switches: the discriminator completes every terminal once per cut, the
// understanding stage is one extraction plus min(2, understanding_rounds)
// verification rounds (one without verify_keywords), and more rollouts
// cost more.
func TestEstimateCalls(t *testing.T) {
	full := mustEstimate(t, nil)
	for _, tc := range []struct {
		p    runners.Params
		want float64
	}{
		{nil, 3},
		{runners.Params{"understanding_rounds": 1}, 2},
		{runners.Params{"verify_keywords": false}, 1},
	} {
		if got := mustEstimate(t, tc.p)[runners.RoleUnderstand]; got != tc.want {
			t.Errorf("%v: understand = %g; want %g", tc.p, got, tc.want)
		}
	}
	terminals := full[runners.RoleDiscriminator] / float64(len(DefaultCuts))
	if terminals < 1 || terminals > DefaultRollouts {
		t.Errorf("terminals = %g; want within [1, %d] (one per rollout at most)", terminals, DefaultRollouts)
	}
	off := mustEstimate(t, runners.Params{"stage_discriminator": false, "stage_understanding": false})
	if _, ok := off[runners.RoleDiscriminator]; ok || off[runners.RoleUnderstand] != 0 || off[runners.RoleReason] != full[runners.RoleReason] {
		t.Errorf("without discriminator and understanding: %v; want only reason, %g", off, full[runners.RoleReason])
	}
	two := mustEstimate(t, runners.Params{"disc_cuts": []any{0.3, 0.5}})
	if d := two[runners.RoleDiscriminator] / 2; d != terminals {
		t.Errorf("terminals with 2 cuts = %g; want %g (the cuts do not change the search)", d, terminals)
	}
	if small := mustEstimate(t, runners.Params{"n_rollout": 8}); small[runners.RoleReason] >= full[runners.RoleReason] {
		t.Errorf("reason requests at 8 rollouts %g; want fewer than at 32 (%g)", small[runners.RoleReason], full[runners.RoleReason])
	}
	// A model known to be always right answers like one assumed to
	// repeat itself (DistinctAnswers(1, k) = 1); at temperature 0 every
	// action makes one child per request, as the replica with branching 1.
	r, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	if sure := r.(*Runner).EstimateCalls(runners.ModelPrior{Accuracy: 1, Known: true}); sure[runners.RoleReason] != full[runners.RoleReason] {
		t.Errorf("accuracy 1: %v; want %v, as with no known accuracy", sure, full)
	}
	est0, err := mcts.EstimateSearch(mcts.SearchModel{Policy: mcts.OneAction, Rescore: true, Table: Transitions, Terminal: END, Free: map[mcts.Action]bool{END: true},
		Distinct: func(mcts.Action, int) float64 { return 1 }}, DefaultRollouts, DefaultExpansion, DefaultC, estimateRuns)
	if err != nil {
		t.Fatal(err)
	}
	r, err = New(runners.Params{"temperature": 0})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.(*Runner).EstimateCalls(runners.ModelPrior{Accuracy: 0.6, Known: true}); got[runners.RoleReason] != est0.Requests+est0.Rewards {
		t.Errorf("temperature 0: reason %g; want %g (one child per request)", got[runners.RoleReason], est0.Requests+est0.Rewards)
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
