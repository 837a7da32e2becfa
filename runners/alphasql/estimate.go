package alphasql

import "github.com/t2sbench/t2sbench/runners/mcts"

// Assumptions of the call estimate about the model's answers (the count
// depends on them, not only on the parameters).
const (
	// EstimateInvalidRate is the assumed probability that a revised SQL
	// still gives no valid result (an error, or empty or all-NULL rows),
	// so that A6 asks for another revision round.
	EstimateInvalidRate = 0.2
	// estimateRuns is the number of seeded searches the estimate averages.
	estimateRuns = 64
)

// EstimateCalls implements runners.CallEstimator:
//
//	reason = K + E[expansion requests] + E[distinct terminals] + E[revision rounds]
//
// K = 1 keyword request when value retrieval is on. The search's requests
// come from mcts.EstimateSearch: the real mcts.Search run on a model-free
// replica of Transitions (minus disable_actions) with n_rollout, n_expansion
// and c, where every expansion is one request, A7 is free, and each
// distinct terminal costs one reward request (a revisited one backs up its
// stored reward). The replica's branching is the assumption on the model:
// an action whose answers the runner canonicalises into a key (schema
// selection, values, functions, SQL: equal parses collapse into one
// child) yields one child per request, a free-text one (A1 rephrasing)
// n_expansion children. Each A6 child then revises again while its SQL
// stays invalid, at most n_revision - 1 more rounds, one request each:
//
//	E[revision rounds] = E[A6 requests] * sum_{j=1}^{n_revision-1} q^j
//
// with q = EstimateInvalidRate (independent rounds).
func (r *Runner) EstimateCalls() map[string]float64 {
	c := r.cfg
	est, err := mcts.EstimateSearch(mcts.SearchModel{
		Table: Transitions, Disabled: c.Disabled, Terminal: A7, Free: map[mcts.Action]bool{A7: true},
		Distinct: func(a mcts.Action, k int) float64 {
			if a == A1 {
				return float64(k)
			}
			return 1
		},
	}, c.Rollouts, c.Expansion, c.C, estimateRuns)
	if err != nil {
		return nil
	}
	calls := est.Requests + est.Terminals
	if c.ValueRetrieval {
		calls++
	}
	extra, p := 0.0, 1.0
	for j := 1; j < c.Revision; j++ {
		p *= EstimateInvalidRate
		extra += p
	}
	calls += est.ByAction[A6] * extra
	return map[string]float64{RoleReason: calls}
}
