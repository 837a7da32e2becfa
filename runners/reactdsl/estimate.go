package reactdsl

import "github.com/t2sbench/t2sbench/runners"

// PaperMeanTurns is the mean number of turns of ReAct-SQL per question,
// 3.3 (the paper's Table 6: corrected BIRD mini-dev, overall). How many
// turns an episode takes depends on the model and the question, not on
// the parameters; the dry run's estimate assumes the paper's mean.
const PaperMeanTurns = 3.3

// EstimateCalls implements runners.CallEstimator: the baseline setting
// makes one request; the iterating settings one request per turn, so
//
//	reason = min(PaperMeanTurns, max_turns)
//
// (an episode ends at its answer or at max_turns, whichever comes first).
// The model prior is not used: how many probes a model makes before it
// answers is its habit more than its accuracy (under sim 3.1 turns at p =
// 0.6 and p = 0.8 alike), and the paper's mean is the one figure known.
func (r *Runner) EstimateCalls(runners.ModelPrior) map[string]float64 {
	if r.setting == SettingBaseline {
		return map[string]float64{runners.RoleReason: 1}
	}
	return map[string]float64{runners.RoleReason: min(PaperMeanTurns, float64(r.maxTurns))}
}
