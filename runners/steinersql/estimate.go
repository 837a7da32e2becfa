package steinersql

import "github.com/t2sbench/t2sbench/runners"

// ValidationFailRate is the assumed probability that one generated query
// fails validation (level 2 or 3 under multilevel validation) and the
// loop re-plans: 0.31, the level-2 trigger rate of the paper's Figure 3
// as METHODS.md reads it. It is a property of the model and the data,
// not of the parameters; the dry run's estimate assumes it.
const ValidationFailRate = 0.31

// EstimateCalls implements runners.CallEstimator:
//
//	decompose = 1 when decomposition is on, else 0
//	reason    = sum_{j=0}^{I-1} f^j
//
// with I = max_iterations (1 when validation is none) and f =
// ValidationFailRate: the first generation always runs, and iteration j+1
// runs when the j queries before it all failed validation (failures taken
// as independent). At the defaults (I = 3): 1 + 0.31 + 0.0961 = 1.406
// generation requests, 2.406 in all.
func (r *Runner) EstimateCalls(runners.ModelPrior) map[string]float64 {
	iters := r.maxIter
	if r.validation == ValNone {
		iters = 1
	}
	gen, p := 0.0, 1.0
	for j := 0; j < iters; j++ {
		gen += p
		p *= ValidationFailRate
	}
	out := map[string]float64{RoleReason: gen}
	if r.decomposition {
		out[RoleDecompose] = 1
	}
	return out
}
