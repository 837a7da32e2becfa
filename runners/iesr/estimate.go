package iesr

import "github.com/t2sbench/t2sbench/runners/mcts"

// estimateRuns is the number of seeded searches the estimate averages.
const estimateRuns = 64

// EstimateCalls implements runners.CallEstimator:
//
//	understand    = 1 when stage_understanding is on (one extraction request)
//	reason        = E[expansion requests] + E[distinct terminals]
//	discriminator = E[distinct terminals] * len(disc_cuts) when stage_discriminator is on
//
// Every visited terminal is a trajectory, and the discriminator completes
// each trajectory once per cut. The search's requests and terminals come
// from mcts.EstimateSearch: the real mcts.Search run on a model-free
// replica of Transitions (minus disable_actions) with n_rollout,
// n_expansion and c, where every expansion is one request, END is free,
// and each distinct terminal costs one reward request. The replica's
// branching is the assumption on the model: an action whose answers the
// runner canonicalises into a key (schema selection, columns, entities,
// SQL: equal parses collapse into one child) yields one child per
// request; free text (A1 equation analysis, keyed by its words) yields
// n_expansion children.
func (r *Runner) EstimateCalls() map[string]float64 {
	c := r.cfg
	est, err := mcts.EstimateSearch(mcts.SearchModel{
		Table: Transitions, Disabled: c.Disabled, Terminal: END, Free: map[mcts.Action]bool{END: true},
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
	out := map[string]float64{RoleReason: est.Requests + est.Terminals}
	if c.Understanding {
		out[RoleUnderstand] = 1
	}
	if c.Discriminator {
		out[RoleDiscriminator] = est.Terminals * float64(len(c.Cuts))
	}
	return out
}
