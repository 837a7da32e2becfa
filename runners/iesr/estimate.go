package iesr

import (
	"github.com/t2sbench/t2sbench/runners"
	"github.com/t2sbench/t2sbench/runners/mcts"
)

// estimateRuns is the number of seeded searches the estimate averages.
const estimateRuns = 64

// EstimateCalls implements runners.CallEstimator:
//
//	understand    = 1 + min(2, understanding_rounds) with verify_keywords, 1 without,
//	                when stage_understanding is on
//	                (the extraction, then a round that repairs and a round
//	                that changes nothing and ends the rounds: t2sbench's
//	                assumption; at most 1 + understanding_rounds)
//	reason        = E[expansion requests] + E[reward requests]
//	discriminator = E[distinct terminals] * len(disc_cuts) when stage_discriminator is on
//
// The search runs with the configured expansion policy (paper or
// all-actions). Every visited terminal is a trajectory, and the
// discriminator completes each trajectory once per cut. A reward request
// is counted for each distinct terminal under all-actions and for each
// rollout's terminal under paper (which scores a terminal again when it is
// reached again); the paper's reward skips the request of a terminal whose
// SQL fails, which the estimate does not know, so it is an upper bound
// there. The search's requests and terminals come
// from mcts.EstimateSearch: the real mcts.Search run on a model-free
// replica of Transitions (minus disable_actions) with n_rollout,
// n_expansion and c, where every expansion is one request, END is free,
// and each distinct terminal costs one reward request. The replica's
// branching (distinct answers among the n_expansion samples of one
// request) is the assumption on the model, by action, as Alpha-SQL's
// (runners/alphasql/estimate.go):
//
//   - A1 (equation analysis, free text keyed by its words): n_expansion
//     when temperature > 0, 1 at temperature 0.
//   - A2 (schema selection), A5 (SQL generation), A6 (SQL revision),
//     right or wrong answers canonicalised into a key:
//     mcts.DistinctAnswers(m.Accuracy, n_expansion), from the model's
//     accuracy where the dry run knows it; 1 where it does not (the
//     samples coincide), and 1 at temperature 0.
//   - A3, A4 (the columns and entities the question's words name): 1;
//     they extract what the question says, so the samples agree.
func (r *Runner) EstimateCalls(m runners.ModelPrior) map[string]float64 {
	c := r.cfg
	est, err := mcts.EstimateSearch(mcts.SearchModel{
		Policy: c.Policy(), Rescore: c.Rescore(), Table: Transitions, Disabled: c.Disabled, Terminal: END, Free: map[mcts.Action]bool{END: true},
		Distinct: mcts.SampledDistinct(c.Temperature, []mcts.Action{A1}, []mcts.Action{A2, A5, A6}, m.Accuracy, m.Known),
	}, c.Rollouts, c.Samples, c.C, estimateRuns)
	if err != nil {
		return nil
	}
	out := map[string]float64{runners.RoleReason: est.Requests + est.Rewards}
	if c.Understanding {
		out[runners.RoleUnderstand] = 1
		if c.VerifyKeywords {
			out[runners.RoleUnderstand] += float64(min(2, c.UnderstandingRounds))
		}
	}
	if c.Discriminator {
		out[runners.RoleDiscriminator] = est.Terminals * float64(len(c.Cuts))
	}
	return out
}

// IndependentParams implements runners.SharedRequests: the score weights
// alpha, beta and gamma (Eq. 8) only rank the finished trajectories, so
// no request of any role depends on them and the points of a grid over
// them (Fig. 7) share every request through the model cache.
func (r *Runner) IndependentParams(string) []string {
	return []string{"alpha", "beta", "gamma"}
}
