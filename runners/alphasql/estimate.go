package alphasql

import (
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/mcts"
)

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
// stored reward). The replica's branching (distinct answers among the
// n_expansion samples of one request, each distinct answer one child) is
// the assumption on the model, by action:
//
//   - A1 (rephrasing, free text keyed by its words): n_expansion, when
//     temperature > 0 (a model sampling a paragraph does not repeat it word
//     for word); 1 at temperature 0.
//   - A2 (schema selection), A5 (SQL generation), A6 (SQL revision):
//     answers that are right or wrong, canonicalised into a key:
//     mcts.DistinctAnswers(m.Accuracy, n_expansion), from the model's
//     accuracy where the dry run knows it (a sim model's p); 1 where it
//     does not (the samples coincide, which reproduces the paper's about
//     130 requests per question, METHODS.md). At temperature 0 the samples
//     coincide: 1.
//   - A3, A4 (the filter values and functions the question states, read
//     off its words): 1. They extract what the question says rather than
//     decide anything, so the samples agree.
//
// Each A6 child (each distinct revised SQL of a request, as reviseMore
// works per distinct output) then revises again while its SQL stays
// invalid, at most n_revision - 1 more rounds, one request each:
//
//	E[revision rounds] = E[A6 children] * sum_{j=1}^{n_revision-1} q^j
//
// with q = EstimateInvalidRate (independent rounds).
func (r *Runner) EstimateCalls(m runners.ModelPrior) map[string]float64 {
	c := r.cfg
	est, err := mcts.EstimateSearch(mcts.SearchModel{
		Table: Transitions, Disabled: c.Disabled, Terminal: A7, Free: map[mcts.Action]bool{A7: true},
		Distinct: mcts.SampledDistinct(c.Temperature, []mcts.Action{A1}, []mcts.Action{A2, A5, A6}, m.Accuracy, m.Known),
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
	calls += est.Children[A6] * extra
	return map[string]float64{runners.RoleReason: calls}
}
